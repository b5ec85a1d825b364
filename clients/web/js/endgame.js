// The end of the game: the result (who named whom, why the winners won, each officer's badge,
// tracker and Evidence tokens), the rematch, everything that was hidden (from the transcript,
// lobby `transcript`), and the fairness check of the whole transcript folded to one line with
// its details and the JSON download on demand.
//
// The rematch (the server's feature `rematch`): "Rematch" asks the lobby for a new table with
// the same seats, settings and bots (`rematch {table, token}` -> `created`) and takes a seat
// there; every session still at this table gets `rematch {table, next}` (and list_tables of
// this table says `rematch`), so each player's page offers "Join the rematch".
//
// "Watch the replay" opens the game's replay (replay.js) as this seat saw it, or as a spectator;
// a replay's own end offers the lobby only.

import { Refused } from "./connection.js";
import { mySeat } from "./describe.js";
import { errorText, joinTable, replayHash } from "./entry.js";
import { h } from "./dom.js";
import * as store from "./store.js";
import { usingWebCrypto, verifyTranscript } from "/sdk/fairness.js";
import { fullReveal, resultPanel } from "./panels.js";

export class EndOfGame {
  constructor(page) {
    this.page = page;
    this.el = h("div", { class: "end" });
    this.transcript = null;
    this.state = null; // null | loading | loaded | error
    this.error = null;
    this.verification = null;
    this.progress = null;
    this.seedCheck = null;
    this.downloadUrl = null;
    this.next = null; // the rematch's table, once there is one
    this.rematching = null; // words while the rematch is set up, or why it was not
    this.looked = false; // list_tables asked whether this table has a rematch
  }

  // The server offers rematches (welcome.features of the seat's session).
  canRematch() {
    const session = this.page.session;
    const features = (session && session.welcome && session.welcome.features) || [];
    return Array.isArray(features) && features.includes("rematch");
  }

  // A `rematch` message of the session (or list_tables' `rematch`): the next table.
  offered(next) {
    if (typeof next !== "string" || !next || this.next === next) return;
    this.next = next;
    this.page.schedule();
  }

  async rematch() {
    const page = this.page;
    const record = page.record;
    if (!record) return;
    this.rematching = "Setting up the rematch…";
    page.schedule();
    try {
      const created = await page.lobby.rematch(page.table, record.token);
      store.keepOwner(created.table, created.owner);
      this.next = created.table;
      await this.joinNext();
    } catch (err) {
      this.rematching = `The rematch could not be set up: ${errorText(err)}`;
      page.schedule();
    }
  }

  async joinNext() {
    const page = this.page;
    const next = this.next;
    if (!next) return;
    const held = store.seatAt(next);
    if (held) {
      page.navigate(`#/table/${next}`);
      return;
    }
    this.rematching = "Joining the rematch…";
    page.schedule();
    try {
      await joinTable(page.lobby, next, (page.record && page.record.name) || store.name() || "Officer");
      page.navigate(`#/table/${next}`);
    } catch (err) {
      this.rematching = `Could not join the rematch: ${errorText(err)}`;
      page.schedule();
    }
  }

  // The link to this game's replay: as this seat saw it, or as a spectator.
  replayLink(view) {
    const page = this.page;
    const seat = page.spectate ? null : mySeat(view);
    return h("a", { href: replayHash(page.table, { seat }), class: "button-link", id: "replay-link" }, "Watch the replay");
  }

  rematchPart(view) {
    const page = this.page;
    if (page.replay) {
      return h("div", { class: "rematch" }, h("div", { class: "buttons" }, h("a", { href: "#/", class: "button-link", id: "back-to-lobby" }, "Back to the lobby")));
    }
    if (page.spectate) {
      return h("div", { class: "rematch" },
        this.next ? h("p", {}, "The players start a rematch: ", h("a", { href: `#/watch/${this.next}`, id: "watch-rematch" }, "watch it")) : null,
        h("div", { class: "buttons" }, this.replayLink(view)));
    }
    const buttons = [];
    if (this.next) {
      buttons.push(h("button", { type: "button", class: "primary", id: "join-rematch", "data-key": "join-rematch", onclick: () => this.joinNext() }, "Join the rematch"));
    } else if (this.canRematch() && page.record) {
      buttons.push(h("button", { type: "button", class: "primary", id: "rematch", "data-key": "rematch", onclick: () => this.rematch() }, "Rematch"));
    }
    buttons.push(this.replayLink(view));
    buttons.push(h("a", { href: "#/", class: "button-link", id: "back-to-lobby" }, "Back to the lobby"));
    return h("div", { class: "rematch" },
      this.next ? h("p", {}, "A rematch with the same seats and settings is ready.") : null,
      h("div", { class: "buttons" }, buttons),
      this.rematching ? h("p", { class: "status", role: "status" }, this.rematching) : null);
  }

  render(view) {
    const page = this.page;
    if (view.status !== "over") {
      page.patch(this.el, null, () => []);
      return;
    }
    if (!this.state) this.fetch();
    if (!this.looked) this.lookForRematch();
    const what = [view.result, view.players, this.state, this.error, Boolean(this.transcript), this.verification, this.progress, this.seedCheck,
      this.next, this.rematching, this.canRematch()];
    page.patch(this.el, what, () => this.parts(view));
  }

  parts(view) {
    const table = this.page.table;
    const parts = [resultPanel(view, this.rematchPart(view))];
    if (this.transcript) parts.push(fullReveal(this.transcript, view.players));
    const v = this.verification;
    const line = v ? (v.ok ? "✓ The deal was fair: every secret and die roll checked" : `✘ The deal check failed: ${v.problem}`)
      : this.state === "error" ? "The deal could not be checked." : "Checking the deal…";
    parts.push(h("section", { class: "verify", "aria-label": "Fairness check", "data-verified": v ? (v.ok ? "ok" : "failed") : "pending" },
      h("details", { class: "verify-details" },
        h("summary", { class: v && !v.ok ? "error" : null, id: "verify-line" }, line),
        this.state === "loading" ? h("p", {}, "Fetching the transcript…") : null,
        this.state === "error" ? h("p", { class: "error" }, this.error) : null,
        v === null && this.transcript ? h("p", {}, `Checking the transcript… ${this.progress || ""}`) : null,
        v ? h("ul", { class: "plain checks" }, v.checks.map((c) => h("li", {}, h("span", { class: "verified" }, "✓ "), c)),
          v.ok ? null : h("li", { class: "error" }, `✘ ${v.problem}`)) : null,
        v && this.seedCheck ? h("p", {}, this.seedCheck) : null,
        this.transcript ? h("p", {},
          h("a", { href: this.downloadUrl, download: `echoridge-${table}.json`, id: "transcript-link", class: "button-link" }, "Download the verifiable transcript (JSON)"),
          h("small", {}, ` Check it fully with: echo-ridge verify echoridge-${table}.json`)) : null,
        h("p", { class: "small muted" }, usingWebCrypto ? "Checked in this page with Web Crypto (SHA-256, HMAC)." : "Checked in this page (this is not a secure context, so a built-in SHA-256 stands in for Web Crypto)."))));
    return parts;
  }

  // A rematch made before this page opened (list_tables of this table says `rematch`).
  async lookForRematch() {
    this.looked = true;
    try {
      const info = await this.page.lobby.table(this.page.table);
      if (info && info.rematch) this.offered(info.rematch);
    } catch {
      // a nicety: the `rematch` message still comes to a session at the table
    }
  }

  async fetch() {
    const page = this.page;
    this.state = "loading";
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        this.transcript = await page.lobby.transcript(page.table);
        break;
      } catch (err) {
        if (!(err instanceof Refused && err.code === "table/not_finished") || attempt === 19) {
          this.state = "error";
          this.error = `The transcript could not be fetched: ${errorText(err)}`;
          page.schedule();
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
    this.state = "loaded";
    const text = JSON.stringify(this.transcript, null, 1);
    this.downloadUrl = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    page.schedule();
    const report = await verifyTranscript(this.transcript, (done, total) => {
      this.progress = `${done}/${total}`;
      if (done % 25 === 0) page.schedule();
    });
    const record = page.record;
    if (record && record.client_seed && Number.isInteger(record.seat)) {
      const mine = (this.transcript.client_seeds || [])[record.seat];
      this.seedCheck = mine === record.client_seed
        ? "✓ Your client seed went into the game seed."
        : "✘ Your client seed is not the one in the transcript!";
    }
    this.verification = report;
    page.schedule();
  }
}

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
import { t } from "./i18n.js";
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
    this.rematching = t("endgame.setting_up");
    page.schedule();
    try {
      const created = await page.lobby.rematch(page.table, record.token);
      store.keepOwner(created.table, created.owner);
      this.next = created.table;
      await this.joinNext();
    } catch (err) {
      this.rematching = t("endgame.cannot_set_up", { reason: errorText(err) });
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
    this.rematching = t("endgame.joining");
    page.schedule();
    try {
      await joinTable(page.lobby, next, (page.record && page.record.name) || store.name() || t("endgame.default_name"));
      page.navigate(`#/table/${next}`);
    } catch (err) {
      this.rematching = t("endgame.cannot_join", { reason: errorText(err) });
      page.schedule();
    }
  }

  // The link to this game's replay: as this seat saw it, or as a spectator.
  replayLink(view) {
    const page = this.page;
    const seat = page.spectate ? null : mySeat(view);
    return h("a", { href: replayHash(page.table, { seat }), class: "button-link", id: "replay-link" }, t("endgame.replay"));
  }

  rematchPart(view) {
    const page = this.page;
    if (page.replay) {
      return h("div", { class: "rematch" }, h("div", { class: "buttons" }, h("a", { href: "#/", class: "button-link", id: "back-to-lobby" }, t("turn.lobby"))));
    }
    if (page.spectate) {
      return h("div", { class: "rematch" },
        this.next ? h("p", {}, t("endgame.rematch_started"), " ", h("a", { href: `#/watch/${this.next}`, id: "watch-rematch" }, t("endgame.watch_it"))) : null,
        h("div", { class: "buttons" }, this.replayLink(view)));
    }
    const buttons = [];
    if (this.next) {
      buttons.push(h("button", { type: "button", class: "primary", id: "join-rematch", "data-key": "join-rematch", onclick: () => this.joinNext() }, t("endgame.join")));
    } else if (this.canRematch() && page.record) {
      buttons.push(h("button", { type: "button", class: "primary", id: "rematch", "data-key": "rematch", onclick: () => this.rematch() }, t("endgame.rematch")));
    }
    buttons.push(this.replayLink(view));
    buttons.push(h("a", { href: "#/", class: "button-link", id: "back-to-lobby" }, t("turn.lobby")));
    return h("div", { class: "rematch" },
      this.next ? h("p", {}, t("endgame.ready")) : null,
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
    const line = v ? (v.ok ? t("endgame.fair") : t("endgame.unfair", { problem: v.problem }))
      : t("endgame.checking", { failed: this.state === "error" });
    parts.push(h("section", { class: "verify", "aria-label": t("endgame.fairness"), "data-verified": v ? (v.ok ? "ok" : "failed") : "pending" },
      h("details", { class: "verify-details" },
        h("summary", { class: v && !v.ok ? "error" : null, id: "verify-line" }, line),
        this.state === "loading" ? h("p", {}, t("endgame.fetching")) : null,
        this.state === "error" ? h("p", { class: "error" }, this.error) : null,
        v === null && this.transcript ? h("p", {}, t("endgame.progress", { progress: this.progress || "" })) : null,
        v ? h("ul", { class: "plain checks" }, checkWords(v).map((c) => h("li", {}, h("span", { class: "verified" }, "✓ "), c)),
          v.ok ? null : h("li", { class: "error" }, `✘ ${v.problem}`)) : null,
        v && this.seedCheck ? h("p", {}, t("endgame.seed", { mine: this.seedCheck === "ok" })) : null,
        this.transcript ? h("p", {},
          h("a", { href: this.downloadUrl, download: `echoridge-${table}.json`, id: "transcript-link", class: "button-link" }, t("endgame.download")),
          h("small", {}, " ", t("endgame.verify_cli", { file: `echoridge-${table}.json` }))) : null,
        h("p", { class: "small muted" }, t("endgame.checked_here", { webcrypto: Boolean(usingWebCrypto) })))));
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
          this.error = t("endgame.cannot_fetch", { reason: errorText(err) });
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
      this.seedCheck = mine === record.client_seed ? "ok" : "other";
    }
    this.verification = report;
    page.schedule();
  }
}

// The checks the transcript passed, in words (the SDK's codes: verifyTranscript's `steps`).
function checkWords(verification) {
  const steps = verification.steps || [];
  if (steps.length !== verification.checks.length) return verification.checks; // an older SDK
  return steps.map(({ step, count }) => t("endgame.check", { step, count: count ?? 0 }));
}

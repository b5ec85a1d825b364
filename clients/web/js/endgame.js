// The end of the game: the result, everything that was hidden (from the transcript, lobby
// `transcript`), the fairness check of the whole transcript, and its JSON download.

import { Refused } from "./connection.js";
import { errorText } from "./entry.js";
import { h } from "./dom.js";
import { usingWebCrypto, verifyTranscript } from "./fairness.js";
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
  }

  render(view) {
    const page = this.page;
    if (view.status !== "over") {
      page.patch(this.el, null, () => []);
      return;
    }
    if (!this.state) this.fetch();
    const what = [view.result, view.players, this.state, this.error, Boolean(this.transcript), this.verification, this.progress, this.seedCheck];
    page.patch(this.el, what, () => this.parts(view));
  }

  parts(view) {
    const table = this.page.table;
    const parts = [resultPanel(view)];
    if (this.transcript) parts.push(fullReveal(this.transcript, view.players));
    const v = this.verification;
    parts.push(h("section", { class: "verify", "aria-label": "Fairness check", "data-verified": v ? (v.ok ? "ok" : "failed") : "pending" },
      h("h2", {}, "Was the deal fair?"),
      this.state === "loading" ? h("p", {}, "Fetching the transcript…") : null,
      this.state === "error" ? h("p", { class: "error" }, this.error) : null,
      v === null && this.transcript ? h("p", {}, `Checking the transcript… ${this.progress || ""}`) : null,
      v ? h("ul", { class: "plain checks" }, v.checks.map((c) => h("li", {}, h("span", { class: "verified" }, "✓ "), c)),
        v.ok ? null : h("li", { class: "error" }, `✘ ${v.problem}`)) : null,
      v && this.seedCheck ? h("p", {}, this.seedCheck) : null,
      this.transcript ? h("p", {},
        h("a", { href: this.downloadUrl, download: `echoridge-${table}.json`, id: "transcript-link", class: "button-link" }, "Download the verifiable transcript (JSON)"),
        h("small", {}, ` Check it fully with: echo-ridge verify echoridge-${table}.json`)) : null,
      h("p", { class: "small muted" }, usingWebCrypto ? "Checked in this page with Web Crypto (SHA-256, HMAC)." : "Checked in this page (this is not a secure context, so a built-in SHA-256 stands in for Web Crypto).")));
    return parts;
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

// The page's session at a table, a seat (plays) or a spectator (watches): the SDK's
// TableSession (/sdk/session.js: the mirror of the view kept by deltas, the reveal checks,
// reconnecting with resume, commands retried with the same id) kept across reloads in
// sessionStorage (store.js), so a reload resumes too; a spectator signs in with this browser's
// identity (its chat lines carry it), and a lost network reconnects as soon as it is back.

import { TableSession as SdkTableSession } from "/sdk/session.js";
import { CLIENT, Refused, serverUrl } from "./connection.js";
import { errorText } from "./entry.js";
import { t } from "./i18n.js";
import * as store from "./store.js";

// The refusals that end a session (the SDK's describeRefusal), and the close codes it ends on
// for good (closeWords), worded in the page's language.
const REFUSALS = new Set(["auth/bad_token", "table/not_found", "table/no_spectators", "table/damaged", "table/closed", "table/archived"]);

// Why `session` stopped, for people: its `words` when the page gave some, else from its code
// (session.problem.code: a refusal's code, or close/NNNN with the bye's reason), never the
// server's English.
export function problemWords(session) {
  const problem = session.problem;
  if (!problem) return "";
  if (problem.words) return String(problem.words); // the page's own words (a replay's: replaysession.js)
  const code = String(problem.code || "");
  const close = /^close\/(\d+)$/.exec(code);
  if (close) {
    const n = Number(close[1]);
    const reason = String(session.closedWith || "");
    if (n === 4009) return t("session.closed.elsewhere");
    if (n === 4004 && reason.startsWith("table/closed")) return t("session.refused.table/closed");
    if (n === 4004 && reason.startsWith("table/archived")) return t("session.refused.table/archived");
    if (n === 4001 && reason.startsWith("auth/")) return t("session.closed.not_yours");
    return t("session.closed.other", { code: n });
  }
  if (REFUSALS.has(code)) return t(`session.refused.${code}`);
  return errorText(new Refused(code, problem.message));
}

export class TableSession extends SdkTableSession {
  constructor({ table, token = null, url = serverUrl() }) {
    const who = token ? "seat" : "spectator";
    super({ table, token, url, slots: store.snapshot(table, `${who}-slots`) || {}, client: CLIENT });
    this.signIn = true; // a spectator says this browser's identity (its chat lines carry it)
    this.byeReason = "page closed";
    this.saveTimer = null;
    this.onOnline = () => this.retryNow();
    window.addEventListener("online", this.onOnline);
  }

  start() {
    return super.start(store.snapshot(this.table, this.who));
  }

  helloFields() {
    const fields = super.helloFields();
    const secret = !this.token && this.signIn ? store.identity()?.secret : null;
    if (secret) fields.identity = secret;
    return fields;
  }

  refusedHello(err, fields) {
    if (err.code !== "auth/bad_identity" || !fields.identity) return false;
    this.signIn = false; // a secret the server no longer knows: watch as a guest
    return true;
  }

  closedForGood(code, bye) {
    this.closedWith = String((bye && bye.reason) || ""); // (problemWords says why)
    if (code === 4004 && bye && String(bye.reason || "").startsWith("table/closed")) {
      store.forgetSeat(this.table);
      store.forgetOwner(this.table);
    }
  }

  stop(code = null, why = null) {
    window.removeEventListener("online", this.onOnline);
    super.stop(code, why);
  }

  forgotten() {
    store.keepSnapshot(this.table, this.who, null);
  }

  kept() {
    store.keepSnapshot(this.table, `${this.who}-slots`, this.verifier.slotCommitments);
    if (this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = null;
      this.save();
    }, 250);
  }

  save() {
    const mirror = this.mirror();
    if (mirror) store.keepSnapshot(this.table, this.who, mirror);
  }
}

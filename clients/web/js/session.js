// The page's session at a table, a seat (plays) or a spectator (watches): the SDK's
// TableSession (/sdk/session.js: the mirror of the view kept by deltas, the reveal checks,
// reconnecting with resume, commands retried with the same id) kept across reloads in
// sessionStorage (store.js), so a reload resumes too; a spectator signs in with this browser's
// identity (its chat lines carry it), and a lost network reconnects as soon as it is back.

import { TableSession as SdkTableSession } from "/sdk/session.js";
import { CLIENT, serverUrl } from "./connection.js";
import * as store from "./store.js";

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

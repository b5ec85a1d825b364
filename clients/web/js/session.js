// A live session at a table, a seat (plays) or a spectator (watches): it keeps a mirror of its
// view by applying deltas (SPEC.md §6.2), checks every reveal against its commitment
// (fairness.js), and reconnects on its own after a drop, resuming from the epoch and version it
// holds (§3.3): exactly the missing deltas, or a fresh view. The last view is kept in
// sessionStorage, so a reload resumes too. A command whose result was lost with the connection
// is sent again with the same id after the reconnect (§5.3), and one refused with
// server/unavailable (the server's store is away) is sent again with the same id after a
// jittered backoff, so it is applied once; a reconnect refused that way is tried again too.

import { Lost, Refused, backoff, nextId, openSession, retryable, serverUrl } from "./connection.js";
import { apply } from "./delta.js";
import { Verifier } from "./fairness.js";
import * as store from "./store.js";

const RECONNECT = [0.2, 5]; // seconds: the first delay's cap and the largest (jittered, doubling)
// Closes after which reconnecting would not help (§7.2): the client says why instead.
const FINAL = new Set([1008, 1009, 4000, 4001, 4004, 4009]);
const RESTARTING = new Set([1001, 1012]); // a server that drains: reconnect at once
const COMMAND_SECONDS = 30; // for a result, each time a command is sent
const RETRY = [0.1, 5]; // seconds: server/unavailable retries (first cap, largest)
const RETRY_SECONDS = 120; // how long a command is retried before its refusal is shown

export class TableSession extends EventTarget {
  constructor({ table, token = null, url = serverUrl() }) {
    super();
    this.table = table;
    this.token = token;
    this.url = url;
    this.who = token ? "seat" : "spectator";
    this.signIn = true; // a spectator says this browser's identity (its chat lines carry it)
    this.view = null;
    this.version = -1;
    this.epoch = -1;
    this.seat = null;
    this.status = "connecting"; // connecting | live | reconnecting | stopped
    this.problem = null; // why the session stopped, for people
    this.closeCode = null;
    this.connection = null;
    this.attempt = 0;
    this.reconnects = 0;
    this.retries = 0; // commands sent again after server/unavailable
    this.stopped = false;
    this.inFlight = null; // {message, resolve, reject, timer}
    this.waiters = [];
    this.presence = null; // the last presence message (SPEC.md §6.4)
    this.deadline = null; // the last deadline message (SPEC.md §6.5)
    this.clocks = null; // the last clocks message: every clock that runs (SPEC.md §6.6)
    this.log = []; // the game log: {v: version (null: from a welcome), e: entry} (SPEC.md §6.3)
    this.logWhole = false; // the log came whole (a welcome after the game): no redacted entries
    const slots = store.snapshot(table, `${this.who}-slots`) || {};
    this.verifier = new Verifier(slots);
    this.verified = Promise.resolve();
    this.saveTimer = null;
    this.retryTimer = null;
    this.onOnline = () => this.retryNow();
    window.addEventListener("online", this.onOnline);
  }

  emit(name, detail) {
    this.dispatchEvent(new CustomEvent(name, { detail }));
  }

  setStatus(status) {
    if (this.status !== status) {
      this.status = status;
      this.emit("status", status);
    }
  }

  // --- connecting ---------------------------------------------------------------------------

  start() {
    const snap = store.snapshot(this.table, this.who);
    if (snap && snap.view && Number.isInteger(snap.version) && Number.isInteger(snap.epoch)) {
      this.view = snap.view;
      this.version = snap.version;
      this.epoch = snap.epoch;
      this.log = Array.isArray(snap.log) ? snap.log.filter((r) => r && typeof r === "object" && r.e) : [];
      this.logWhole = Boolean(snap.logWhole);
    }
    return this.connect();
  }

  async connect() {
    const fields = { table: this.table };
    if (this.token) fields.token = this.token;
    else {
      fields.spectate = true;
      const secret = this.signIn ? store.identity()?.secret : null;
      if (secret) fields.identity = secret;
    }
    if (this.version >= 0 && this.view) fields.resume = { epoch: this.epoch, version: this.version };
    this.setStatus(this.reconnects || this.attempt ? "reconnecting" : "connecting");
    let connection;
    let welcome;
    try {
      [connection, welcome] = await openSession(this.url, fields, {
        onMessage: (message) => this.take(connection, message),
        onClose: (code) => this.closed(connection, code),
      });
    } catch (err) {
      if (err instanceof Refused && err.code === "auth/bad_identity" && fields.identity) {
        this.signIn = false; // a secret the server no longer knows: watch as a guest
        return this.connect();
      }
      if (err instanceof Refused && !retryable(err.code)) return this.stop(err.code, describeRefusal(err));
      return this.retryLater();
    }
    if (this.stopped) {
      connection.close(1000, "stopped");
      return;
    }
    this.connection = connection;
    this.attempt = 0;
    if (welcome.view !== undefined) {
      this.view = welcome.view;
      this.log = (Array.isArray(welcome.log) ? welcome.log : []).map((e) => ({ v: null, e }));
      this.logWhole = Boolean(welcome.view && welcome.view.status === "over");
      this.emit("log", { reset: true, fresh: this.log });
    } else if (!welcome.resumed || !this.view) {
      connection.close(4011, "a fresh welcome without a view");
      return;
    }
    this.version = welcome.version ?? 0;
    this.epoch = welcome.epoch ?? 0;
    if (welcome.seat !== undefined) this.seat = welcome.seat;
    this.welcome = welcome;
    this.setStatus("live");
    this.changed(welcome.resumed ? "resumed" : "welcome");
    if (this.inFlight) this.sendInFlight();
  }

  take(connection, message) {
    if (connection !== this.connection) return;
    if (message.type === "delta") {
      if (message.epoch !== this.epoch || message.version !== this.version + 1) {
        this.resync("a delta out of order");
        return;
      }
      try {
        this.view = apply(this.view, message.ops);
      } catch {
        this.resync("a delta that does not apply");
        return;
      }
      this.version = message.version;
      if (Array.isArray(message.log) && message.log.length) {
        // The entries of the version that ends the game come whole, as everything after it.
        const whole = Boolean(this.view && this.view.status === "over");
        const fresh = message.log.map((e) => (whole ? { v: message.version, e, w: true } : { v: message.version, e }));
        this.log.push(...fresh);
        this.emit("log", { reset: false, fresh });
      }
      this.changed("delta");
    } else if (message.type === "presence") {
      this.presence = message;
      this.emit("presence", message);
    } else if (message.type === "deadline") {
      this.deadline = message; // SPEC.md §6.5: over once the view passes its version
      this.emit("deadline", message);
    } else if (message.type === "clocks") {
      this.clocks = message; // the newest replaces the ones before (clocks.js shows them)
      this.emit("clocks", message);
    } else if (message.type === "rematch") {
      this.rematch = message; // a new table for the same seats (endgame.js offers to join it)
      this.emit("rematch", message);
    } else if (message.type === "chat") {
      this.emit("chat", message); // SPEC.md §6.7: the chat panel's (chat.js)
    } else if (message.type === "result" || message.type === "error") {
      const flight = this.inFlight;
      if (flight && message.id === flight.message.id) {
        const result = message.type === "result"
          ? message
          : { type: "result", id: message.id, outcome: "rejected", code: message.code, message: message.message };
        if (retryable(result.code) && Date.now() < flight.giveUp) this.retryFlight();
        else this.finishFlight(result);
      }
    }
  }

  // Our copy is out of step: start again from a fresh view (§3.3).
  resync(why) {
    this.version = -1;
    this.view = null;
    this.log = [];
    store.keepSnapshot(this.table, this.who, null);
    if (this.connection) this.connection.close(4011, why);
  }

  closed(connection, code) {
    if (connection !== this.connection) return;
    this.connection = null;
    this.closeCode = code;
    if (this.stopped) return;
    const bye = connection.bye;
    if (FINAL.has(code)) {
      const why = closeWords(code, bye);
      if (code === 4004 && bye && String(bye.reason || "").startsWith("table/closed")) {
        store.forgetSeat(this.table);
        store.forgetOwner(this.table);
      }
      this.stop(`close/${code}`, why);
      return;
    }
    if (RESTARTING.has(code) && this.attempt === 0) {
      // The server drains (SPEC.md §7.2): reconnect at once, the proxy sends us elsewhere.
      this.setStatus("reconnecting");
      this.reconnect();
      return;
    }
    this.retryLater();
  }

  retryLater() {
    if (this.stopped) return;
    this.setStatus("reconnecting");
    const delay = backoff(this.attempt, ...RECONNECT);
    this.attempt += 1;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.reconnect(), delay * 1000);
  }

  retryNow() {
    if (this.stopped || this.status !== "reconnecting") return;
    clearTimeout(this.retryTimer);
    this.reconnect();
  }

  reconnect() {
    if (this.stopped || this.connection) return;
    this.reconnects += 1;
    this.connect();
  }

  stop(code = null, why = null) {
    this.stopped = true;
    this.problem = why ? { code, message: why } : null;
    clearTimeout(this.retryTimer);
    window.removeEventListener("online", this.onOnline);
    if (this.connection) {
      const connection = this.connection;
      this.connection = null;
      try {
        connection.send({ type: "bye", reason: "page closed" });
      } catch {
        // already gone
      }
      connection.close(1000, "bye");
    }
    if (this.inFlight) this.finishFlight(null, new Lost("the session stopped"));
    this.setStatus("stopped");
    this.emit("change", { why: "stopped" });
  }

  // --- the mirror -----------------------------------------------------------------------------

  changed(why) {
    const view = this.view;
    this.verifier.noteSlots(view);
    store.keepSnapshot(this.table, `${this.who}-slots`, this.verifier.slotCommitments);
    this.verified = this.verifier.check(view).then(
      (fresh) => fresh && this.emit("verified", { fresh }),
      (err) => this.emit("reveal-failed", { message: err.message }),
    );
    this.waiters = this.waiters.filter(([version, resolve]) => {
      if (this.version >= version) resolve();
      return this.version < version;
    });
    this.emit("change", { why });
    this.scheduleSave();
  }

  scheduleSave() {
    if (this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = null;
      this.save();
    }, 250);
  }

  save() {
    if (this.version < 0 || !this.view) return;
    store.keepSnapshot(this.table, this.who, {
      epoch: this.epoch,
      version: this.version,
      view: this.view,
      log: this.log,
      logWhole: this.logWhole,
    });
  }

  untilVersion(version) {
    if (this.version >= version) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push([version, resolve]));
  }

  // --- commands -------------------------------------------------------------------------------

  // Sends one of `you.legal` with the version the view is at; resolves to its result once the
  // view has reached the result's version. A stale version comes back rejected with
  // command/stale_version: look at the new view and choose again.
  command(cmd) {
    if (!this.token) return Promise.reject(new Error("spectators send no commands"));
    if (this.inFlight) return Promise.reject(new Error("a command is already on its way"));
    const message = { type: "command", id: nextId("c"), expected: this.version, command: cmd };
    return new Promise((resolve, reject) => {
      const giveUp = Date.now() + RETRY_SECONDS * 1000;
      this.inFlight = { message, resolve, reject, timer: null, retry: null, attempts: 0, giveUp };
      this.sendInFlight();
    });
  }

  // Sends the command in flight (again), if connected, and waits up to COMMAND_SECONDS for its
  // result; without a connection it is sent after the reconnect.
  sendInFlight() {
    const flight = this.inFlight;
    if (!flight) return;
    clearTimeout(flight.timer);
    flight.timer = setTimeout(() => this.finishFlight(null, new Lost("no result from the server")), COMMAND_SECONDS * 1000);
    if (!this.connection || this.status !== "live") return;
    try {
      this.connection.send(flight.message);
    } catch {
      // the connection dropped: sent again with the same id after the reconnect
    }
  }

  // server/unavailable: the same command, the same id, after a jittered backoff (§5.3).
  retryFlight() {
    const flight = this.inFlight;
    clearTimeout(flight.timer);
    clearTimeout(flight.retry);
    const delay = backoff(flight.attempts, ...RETRY);
    flight.attempts += 1;
    this.retries += 1;
    flight.retry = setTimeout(() => this.inFlight === flight && this.sendInFlight(), delay * 1000);
  }

  finishFlight(result, error = null) {
    const flight = this.inFlight;
    if (!flight) return;
    this.inFlight = null;
    clearTimeout(flight.timer);
    clearTimeout(flight.retry);
    if (error) {
      flight.reject(error);
      return;
    }
    if (result.version !== undefined && (result.outcome === "accepted" || result.outcome === "duplicate")) {
      this.untilVersion(result.version).then(() => flight.resolve(result));
    } else {
      flight.resolve(result);
    }
  }
}

function describeRefusal(err) {
  switch (err.code) {
    case "auth/bad_token":
      return "This browser's seat token is not valid at this table any more.";
    case "table/not_found":
      return "There is no such table.";
    case "table/no_spectators":
      return "This table cannot be watched: it is private or does not allow spectators.";
    case "table/damaged":
      return "This table's history cannot be read; the table is closed.";
    case "table/closed":
      return "This table was closed: by its creator, or because its game did not start in time.";
    case "table/archived":
      return "This game is over and archived: the table is closed, its transcript remains.";
    default:
      return err.message || err.code;
  }
}

// Why the server closed a session for good (SPEC.md §7.2), for people.
function closeWords(code, bye) {
  const reason = String((bye && bye.reason) || "");
  if (code === 4009) return "This seat was opened in another window or tab.";
  if (code === 4004 && reason.startsWith("table/closed")) return "This table was closed: by its creator, or because its game did not start in time.";
  if (code === 4004 && reason.startsWith("table/archived")) return "This game is over and archived: the table is closed, its transcript remains.";
  if (code === 4001 && reason.startsWith("auth/")) {
    return "This seat is not yours any more: the table's creator removed you, or the seat was given up.";
  }
  return reason || `The server closed the session (${code}).`;
}

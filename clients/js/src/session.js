// A live session at a table, a seat (plays) or a spectator (watches): it keeps a mirror of its
// view by applying deltas (SPEC.md §6.2), checks every reveal against its commitment
// (fairness.js Verifier, §9.3), and reconnects on its own after a drop, resuming from the epoch
// and version it holds (§3.3): exactly the missing deltas, or a fresh view. A command whose
// result was lost with the connection is sent again with the same id after the reconnect (§5.3),
// and one refused with server/unavailable (the server's store is away) is sent again with the
// same id after a jittered backoff, so it is applied once; a reconnect refused that way is tried
// again too. Its events: change, status, log, presence, deadline, clocks, rematch, chat,
// verified, reveal-failed. A page keeps the mirror across reloads by overriding the hooks
// (helloFields, refusedHello, closedForGood, kept, forgotten).

import { Lost, Refused, backoff, nextId, openSession, retryable } from "./connection.js";
import { apply } from "./delta.js";
import { Verifier } from "./fairness.js";

const RECONNECT = [0.2, 5]; // seconds: the first delay's cap and the largest (jittered, doubling)
// Closes after which reconnecting would not help (§7.2): the client says why instead.
const FINAL = new Set([1008, 1009, 4000, 4001, 4004, 4009]);
const RESTARTING = new Set([1001, 1012]); // a server that drains: reconnect at once
const COMMAND_SECONDS = 30; // for a result, each time a command is sent
const RETRY = [0.1, 5]; // seconds: server/unavailable retries (first cap, largest)
const RETRY_SECONDS = 120; // how long a command is retried before its refusal is shown
const WAIT_CODES = new Set(["command/stale_version", "command/played_by_server"]); // choose again
const RATE_LIMITED = "protocol/rate_limited"; // sent again with the same id after retry_in

// Seconds of the commands' waits (a table session's own: TableSession.COMMAND_SECONDS, ...).
export { COMMAND_SECONDS, RETRY_SECONDS };

export class TableSession extends EventTarget {
  // `url`: the server's websocket URL; `token`: a seat's (none: a spectator); `slots`: a look's
  // slot commitments kept from before (Verifier); `options`: openSession's (`subprotocol`,
  // `WebSocket`, `client`).
  constructor({ table, token = null, url, slots = {}, ...options }) {
    super();
    this.table = table;
    this.token = token;
    this.url = url;
    this.options = options;
    this.who = token ? "seat" : "spectator";
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
    this.verifier = new Verifier(slots);
    this.verified = Promise.resolve();
    this.retryTimer = null;
    this.byeReason = "client closed";
  }

  // Opens a connection and says hello (openSession with this session's options).
  open(fields, handlers) {
    return openSession(this.url, fields, handlers, this.options);
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

  // Connects; resolves once welcomed (or once given up: see `status` and `problem`). A mirror
  // kept from before ({epoch, version, view, log, logWhole}) is resumed from.
  start(kept = null) {
    if (kept && kept.view && Number.isInteger(kept.version) && Number.isInteger(kept.epoch)) {
      this.view = kept.view;
      this.version = kept.version;
      this.epoch = kept.epoch;
      this.log = Array.isArray(kept.log) ? kept.log.filter((r) => r && typeof r === "object" && r.e) : [];
      this.logWhole = Boolean(kept.logWhole);
    }
    return this.connect();
  }

  // The hello's fields (§3.1) but `resume`.
  helloFields() {
    return this.token ? { table: this.table, token: this.token } : { table: this.table, spectate: true };
  }

  // A hello refused (`err`, a Refused): true to say hello again at once (with helloFields()).
  refusedHello(err, fields) { // eslint-disable-line no-unused-vars
    return false;
  }

  // The server closed the session for good (`code`, and its `bye` if any).
  closedForGood(code, bye) {} // eslint-disable-line no-unused-vars

  // The mirror changed (`why`: welcome, resumed, delta, stopped): a page keeps it here.
  kept(why) {} // eslint-disable-line no-unused-vars

  // The mirror was dropped (out of step): a page forgets what it kept.
  forgotten() {}

  async connect() {
    const fields = this.helloFields();
    if (this.version >= 0 && this.view) fields.resume = { epoch: this.epoch, version: this.version };
    this.setStatus(this.reconnects || this.attempt ? "reconnecting" : "connecting");
    let connection;
    let welcome;
    try {
      [connection, welcome] = await this.open(fields, {
        onMessage: (message) => this.take(connection, message),
        onClose: (code) => this.closed(connection, code),
      });
    } catch (err) {
      if (err instanceof Refused && this.refusedHello(err, fields)) return this.connect();
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
        if (result.code === RATE_LIMITED && Date.now() < flight.giveUp) this.retryFlight(message.retry_in);
        else if (retryable(result.code) && Date.now() < flight.giveUp) this.retryFlight();
        else this.finishFlight(result);
      }
    }
  }

  // Our copy is out of step: start again from a fresh view (§3.3).
  resync(why) {
    this.version = -1;
    this.view = null;
    this.log = [];
    this.forgotten();
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
      this.closedForGood(code, bye);
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
    if (this.connection) {
      const connection = this.connection;
      this.connection = null;
      try {
        connection.send({ type: "bye", reason: this.byeReason });
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
    this.verified = this.verifier.check(view).then(
      (fresh) => fresh && this.emit("verified", { fresh }),
      (err) => this.emit("reveal-failed", { message: err.message }),
    );
    this.waiters = this.waiters.filter(([version, resolve]) => {
      if (this.version >= version) resolve();
      return this.version < version;
    });
    this.emit("change", { why });
    this.kept(why);
  }

  // What start() resumes from, as kept by a page.
  mirror() {
    if (this.version < 0 || !this.view) return null;
    return { epoch: this.epoch, version: this.version, view: this.view, log: this.log, logWhole: this.logWhole };
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

  // server/unavailable: the same command, the same id, after a jittered backoff (§5.3); a
  // command refused for the connection's rate (it had no effect, §2.3): never before the
  // server's `retry_in` (ms).
  retryFlight(retryIn = 0) {
    const flight = this.inFlight;
    clearTimeout(flight.timer);
    clearTimeout(flight.retry);
    const delay = Math.max(backoff(flight.attempts, ...RETRY), (Number(retryIn) || 0) / 1000);
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
  // --- playing --------------------------------------------------------------------------------

  get over() {
    return Boolean(this.view && this.view.status === "over");
  }

  get you() {
    return (this.view && this.view.you) || {};
  }

  // The commands the seat may send now (§5.1), each as it is to be sent.
  get legal() {
    return Array.isArray(this.you.legal) ? this.you.legal : [];
  }

  // Resolves once predicate(this) holds (checked after each change), or rejects after `seconds`
  // or when the session stops.
  until(predicate, seconds = COMMAND_SECONDS) {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (predicate(this)) done(resolve);
        else if (this.stopped) done(reject, new Lost(this.problem ? this.problem.message : "the session stopped"));
      };
      const timer = setTimeout(() => done(reject, new Lost(`waited ${seconds} s in vain`)), seconds * 1000);
      const done = (fn, value) => {
        clearTimeout(timer);
        this.removeEventListener("change", check);
        fn(value);
      };
      this.addEventListener("change", check);
      check();
    });
  }

  // Plays until the game is over: choose(view, legal) -> one of `legal` (or a promise of one).
  // Waits while the seat has nothing to do; a stale version or a seat the server plays means
  // choosing again after the view moves on; another refusal of a legal command throws.
  async play(choose, { seconds = 600 } = {}) {
    const giveUp = Date.now() + seconds * 1000;
    while (!this.over) {
      const left = (giveUp - Date.now()) / 1000;
      if (left <= 0) throw new Lost("the game did not end in time");
      const version = this.version;
      if (this.status !== "live" || this.legal.length === 0) {
        await this.until((s) => s.version !== version || s.over || (s.status === "live" && s.legal.length > 0), left);
        continue;
      }
      const result = await this.command(await choose(this.view, this.legal));
      if (result.outcome === "rejected") {
        if (!WAIT_CODES.has(result.code)) throw new Refused(result.code, result.message);
        await this.until((s) => s.version !== version || s.over, left);
      }
    }
  }

  // Says bye and closes; reconnects no more.
  close() {
    if (!this.stopped) this.stop();
  }
}

export function describeRefusal(err) {
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
export function closeWords(code, bye) {
  const reason = String((bye && bye.reason) || "");
  if (code === 4009) return "This seat was opened in another window or tab.";
  if (code === 4004 && reason.startsWith("table/closed")) return "This table was closed: by its creator, or because its game did not start in time.";
  if (code === 4004 && reason.startsWith("table/archived")) return "This game is over and archived: the table is closed, its transcript remains.";
  if (code === 4001 && reason.startsWith("auth/")) {
    return "This seat is not yours any more: the table's creator removed you, or the seat was given up.";
  }
  return reason || `The server closed the session (${code}).`;
}

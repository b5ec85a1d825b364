// One websocket speaking echoridge.v2.json (SPEC.md §2): a JSON text frame per message,
// requests matched to replies by id (§4), and the lobby client built on it.

import * as store from "./store.js";

export const SUBPROTOCOL = "echoridge.v2.json";
export const PROTOCOL = "echoridge.v2";
export const CLIENT = "echoridge-web/0.1.0";
export const REPLY_SECONDS = 15;
// Keep-alive (SPEC.md §2.4): a browser cannot see websocket pings, so after QUIET seconds
// without any frame from the server the page sends `ping`, and GRACE seconds more of silence
// mean the connection is lost (closed as 1006, which reconnects with resume). Tests may set
// window.echoridgeKeepAlive = {quiet, grace} before a connection opens.
export const KEEP_ALIVE = { quiet: 20, grace: 10 };

function keepAliveSeconds() {
  const custom = typeof window !== "undefined" ? window.echoridgeKeepAlive : null;
  return custom && typeof custom === "object" ? { ...KEEP_ALIVE, ...custom } : KEEP_ALIVE;
}
const LOBBY_RETRY_SECONDS = 120;

export function serverUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws`;
}

// The codes a request may be sent again on (SPEC.md §11: the server cannot reach its store).
const RETRYABLE = new Set(["server/unavailable"]);

export function retryable(code) {
  return RETRYABLE.has(code);
}

// Seconds before attempt n + 1 of a retry: random, between a quarter of and the whole of a
// cap that doubles each attempt from `first` up to `cap` (so clients do not return in step).
export function backoff(n, first, cap) {
  const ceiling = Math.min(cap, first * 2 ** n);
  return ceiling / 4 + Math.random() * (ceiling * 3 / 4);
}

export class Refused extends Error {
  // A request the server refused: its stable code (§11) and its sentence for people.
  constructor(code, message) {
    super(message || code);
    this.name = "Refused";
    this.code = code;
  }
}

export class Lost extends Error {
  constructor(message = "the connection was lost") {
    super(message);
    this.name = "Lost";
  }
}

let counter = 0;
const tabId = Math.random().toString(36).slice(2, 8);

export function nextId(prefix = "r") {
  counter += 1;
  return `${prefix}-${tabId}-${counter}`;
}

export function hello(fields = {}) {
  return { type: "hello", protocol: PROTOCOL, client: CLIENT, ...fields };
}

export class Connection {
  constructor(url, { onMessage = () => {}, onClose = () => {} } = {}) {
    this.url = url;
    this.onMessage = onMessage;
    this.onClose = onClose;
    this.pending = new Map(); // request id -> {resolve, reject, timer}
    this.ws = null;
    this.closed = false;
    this.closeCode = null;
    this.bye = null; // the server's bye, if it sent one
    this.liveness = null; // the keep-alive timer
    this.pinged = false; // a ping is out, unanswered by any frame
    this.lost = false; // given up on by the keep-alive
  }

  // Any frame from the server proves the connection alive: wait QUIET seconds again.
  heard() {
    if (this.closed) return;
    clearTimeout(this.liveness);
    this.pinged = false;
    const { quiet } = keepAliveSeconds();
    this.liveness = setTimeout(() => this.quiet(), quiet * 1000);
  }

  quiet() {
    if (this.closed) return;
    const { grace } = keepAliveSeconds();
    if (this.pinged) {
      this.loseNow("no frame from the server after a ping");
      return;
    }
    this.pinged = true;
    try {
      this.send({ type: "ping", id: nextId("p") });
    } catch {
      // not open: the close event says so
    }
    this.liveness = setTimeout(() => this.quiet(), grace * 1000);
  }

  // The server went silent: do as for a dropped connection at once, without waiting for a
  // closing handshake it will not answer.
  loseNow(why) {
    if (this.closed) return;
    this.lost = true;
    try {
      this.ws.close(4000, why.slice(0, 100));
    } catch {
      // already closing
    }
    this.finish(1006, why);
  }

  finish(code, reason) {
    if (this.closed) return;
    this.closed = true;
    this.closeCode = code;
    clearTimeout(this.liveness);
    for (const { reject: fail, timer } of this.pending.values()) {
      clearTimeout(timer);
      fail(new Lost());
    }
    this.pending.clear();
    this.onClose(code, reason);
  }

  open() {
    return new Promise((resolve, reject) => {
      let opened = false;
      const ws = new WebSocket(this.url, [SUBPROTOCOL]);
      this.ws = ws;
      ws.addEventListener("open", () => {
        opened = true;
        this.heard();
        resolve(this);
      });
      ws.addEventListener("message", (event) => {
        if (this.closed) return;
        this.heard();
        this.receive(event.data);
      });
      ws.addEventListener("close", (event) => {
        if (!opened) {
          this.closed = true;
          this.closeCode = event.code;
          reject(new Lost("could not connect"));
          return;
        }
        this.finish(event.code, event.reason);
      });
    });
  }

  receive(data) {
    if (typeof data !== "string") return; // JSON frames are text (§2.1)
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (!message || typeof message !== "object") return;
    if (message.type === "bye") this.bye = message;
    if (message.type === "pong") return; // the keep-alive's answer: heard() did its work
    const waiting = message.id !== undefined ? this.pending.get(message.id) : undefined;
    if (waiting) {
      this.pending.delete(message.id);
      clearTimeout(waiting.timer);
      if (message.type === "error") waiting.reject(new Refused(message.code, message.message));
      else waiting.resolve(message);
      return;
    }
    this.onMessage(message);
  }

  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) throw new Lost();
    this.ws.send(JSON.stringify(message));
  }

  // Sends a request with an id and resolves to the reply with that id (an `error` rejects).
  request(message, seconds = REPLY_SECONDS) {
    const id = message.id || nextId();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Lost("no reply from the server"));
      }, seconds * 1000);
      this.pending.set(id, { resolve, reject, timer });
      try {
        this.send({ ...message, id });
      } catch (err) {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(err);
      }
    });
  }

  close(code = 1000, reason = "") {
    if (this.ws && this.ws.readyState <= WebSocket.OPEN) this.ws.close(code, reason);
  }
}

// The URL with the table it connects for as a hint (SPEC.md §2.1: /ws?table=ID), so that a
// server of several processes serves the connection in the one that runs the table.
export function forTable(url, table) {
  if (!table) return url;
  const target = new URL(url);
  target.searchParams.set("table", table);
  return target.toString();
}

// Opens a connection and says hello; resolves to [connection, welcome].
export async function openSession(url, fields, handlers) {
  let first;
  const welcomed = new Promise((resolve, reject) => {
    first = { resolve, reject };
  });
  let waiting = true;
  const connection = new Connection(forTable(url, fields.table), {
    onMessage: (message) => {
      if (waiting) {
        waiting = false;
        if (message.type === "welcome") first.resolve(message);
        else if (message.type === "error") first.reject(new Refused(message.code, message.message));
        else first.reject(new Refused("protocol/wrong_session", `expected welcome, got ${message.type}`));
        return;
      }
      handlers.onMessage(message);
    },
    onClose: (code, reason) => {
      if (waiting) {
        waiting = false;
        first.reject(new Lost(`closed before the welcome (${code})`));
      }
      handlers.onClose(code, reason);
    },
  });
  await connection.open();
  connection.send(hello(fields));
  const timer = setTimeout(() => {
    if (waiting) {
      waiting = false;
      first.reject(new Lost("no welcome"));
      connection.close(1000, "no welcome");
    }
  }, REPLY_SECONDS * 1000);
  try {
    return [connection, await welcomed];
  } catch (err) {
    connection.close(1000, "refused");
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

// The lobby (§4): list, create, join, leave, start, add bots, remove players and close tables
// (the creator's), transcripts; identities and ratings (§4.9, §4.10). It connects on first use
// and again after a drop, signed in with the identity this browser keeps (store.js), if any.
// It says "identity" (an event) after each hello and each sign-in, whoever it is signed in as
// then (moderation.js fetches the players blocked).
export class Lobby extends EventTarget {
  constructor(url = serverUrl()) {
    super();
    this.url = url;
    this.connection = null;
    this.connecting = null;
    this.features = new Set(); // welcome.features of the last connection
    this.identity = null; // {id, handle} the connection is signed in as (welcome.identity)
    this.signedWith = null; // the secret the connection is signed in with
    this.forgotten = null; // the handle of an identity the server no longer knew (auth/bad_identity)
  }

  async ensure() {
    const secret = store.identity()?.secret || null;
    if (this.connection && !this.connection.closed) {
      if (this.signedWith === secret) return this.connection;
      // this browser signed in or out meanwhile (here or in another tab): connect as it is now
      this.connection.close(1000, "signed in as someone else");
      this.connection = null;
    }
    if (!this.connecting) {
      this.connecting = this.connect(secret).finally(() => {
        this.connecting = null;
      });
    }
    return this.connecting;
  }

  // Opens the lobby session, signed in with `secret`; a secret the server does not know (a
  // server whose store was wiped: auth/bad_identity) is forgotten, and the session opens as a
  // guest's.
  async connect(secret) {
    const open = (fields) => openSession(this.url, fields, { onMessage: () => {}, onClose: () => {} });
    let opened;
    try {
      opened = await open(secret ? { identity: secret } : {});
    } catch (err) {
      if (!(secret && err instanceof Refused && err.code === "auth/bad_identity")) throw err;
      this.forgotten = store.identity()?.handle || "";
      store.forgetIdentity(secret);
      secret = null;
      opened = await open({});
    }
    const [connection, welcome] = opened;
    this.connection = connection;
    this.signedWith = secret;
    this.features = new Set(welcome.features || []);
    this.identity = welcome.identity || null;
    if (this.identity) store.keepHandle(this.identity.handle); // renamed on another device
    this.dispatchEvent(new Event("identity"));
    return connection;
  }

  // Whether the server offers a feature (SPEC.md §8), once connected.
  async has(feature) {
    await this.ensure();
    return this.features.has(feature);
  }

  // A request's reply. A lost connection is tried once more; with `retry` (requests that may
  // be sent twice without harm), server/unavailable is tried again for up to RETRY_SECONDS.
  async request(message, seconds, { retry = false } = {}) {
    const giveUp = Date.now() + LOBBY_RETRY_SECONDS * 1000;
    let lost = 0;
    for (let attempt = 0; ; attempt++) {
      const connection = await this.ensure();
      try {
        const reply = await connection.request(message, seconds);
        if (!(retry && retryable(reply.code) && Date.now() < giveUp)) return reply;
      } catch (err) {
        if (err instanceof Lost && lost < 1) {
          lost += 1;
          continue;
        }
        if (!(retry && err instanceof Refused && retryable(err.code) && Date.now() < giveUp)) throw err;
      }
      await new Promise((resolve) => setTimeout(resolve, backoff(attempt, 0.1, 5) * 1000));
    }
  }

  async result(message, options) {
    const reply = await this.request(message, undefined, options);
    if (reply.outcome === "rejected") throw new Refused(reply.code, reply.message);
    return reply;
  }

  async tables() {
    return (await this.page()).tables;
  }

  // One page of the listing, newest first (SPEC.md §4.1): { tables, next }, `next` the cursor
  // of the page after it (absent: the last page). The server's page size when no limit.
  async page({ cursor, status, mode, limit } = {}) {
    const message = { type: "list_tables" };
    if (status) message.status = status;
    if (mode) message.mode = mode;
    if (limit) message.limit = limit;
    if (cursor) message.cursor = cursor;
    const reply = await this.request(message, undefined, { retry: true });
    return { tables: reply.tables || [], next: reply.next || null };
  }

  // One page of the record of games (SPEC.md §4.8), newest first: { games, next }. The public
  // finished games, or those a person of `player`'s name sat at; or, with `tables`, the
  // finished games among those tables (public or not; one reply, no `next`).
  async games({ player, tables, cursor, limit } = {}) {
    const message = { type: "list_games" };
    if (player) message.player = player;
    if (tables && tables.length) message.tables = tables;
    if (limit) message.limit = limit;
    if (cursor) message.cursor = cursor;
    const reply = await this.request(message, undefined, { retry: true });
    return { games: reply.games || [], next: reply.next || null };
  }

  // One table by id, whatever its status (its seats with names and bots).
  async table(table) {
    const tables = (await this.request({ type: "list_tables", table }, undefined, { retry: true })).tables || [];
    const row = tables.find((t) => t.table === table);
    if (!row) throw new Refused("table/not_found", "There is no such table.");
    return row;
  }

  // `clock`: create_table.clock (SPEC.md §4.2), or null for the server's casual preset.
  // `mode`: create_table.mode, "competitive" (sent as no mode) or "cooperative" (2-4 seats).
  // `handoverBot`: create_table.handover_bot, the level of the bot that plays a seat handed over
  // ("easy", "normal" or "strong"; "normal", the server's default, is sent as none).
  // The reply (created) carries the creator's `owner` token.
  create(seats, { isPublic = true, spectators = true, delay = 0, clock = null, mode = "competitive", handoverBot = "normal" } = {}) {
    const message = { type: "create_table", seats, public: isPublic, spectators, spectator_delay: delay };
    if (clock) message.clock = clock;
    if (mode && mode !== "competitive") message.mode = mode;
    if (handoverBot && handoverBot !== "normal") message.handover_bot = handoverBot;
    return this.request(message, undefined, { retry: true });
  }

  removePlayer(table, owner, seat) {
    return this.result({ type: "remove_player", table, owner, seat });
  }

  closeTable(table, owner) {
    return this.result({ type: "close_table", table, owner });
  }

  // `guest`: joined from a session of its own that is not signed in, so that the seat takes
  // `name` (a signed-in session's seat takes its handle, SPEC.md §4.3).
  join(table, name, clientSeed, { guest = false } = {}) {
    const message = { type: "join", table, name, client_seed: clientSeed };
    return guest ? this.asGuest(message) : this.request(message);
  }

  // One request in a one-off guest session.
  async asGuest(message) {
    const [connection] = await openSession(this.url, {}, { onMessage: () => {}, onClose: () => {} });
    try {
      return await connection.request(message);
    } finally {
      connection.close(1000, "bye");
    }
  }

  leave(table, token) {
    return this.result({ type: "leave", table, token });
  }

  start(table, token) {
    return this.result({ type: "start", table, token }, { retry: true });
  }

  addBot(table, token, kind) {
    return this.result({ type: "add_bot", table, token, kind });
  }

  // A finished table's rematch (the feature `rematch`): a new table with the same seats,
  // settings and bots; resolves to `created` (its `table` and the creator's `owner`).
  async rematch(table, token) {
    const reply = await this.request({ type: "rematch", table, token });
    if (reply.outcome === "rejected") throw new Refused(reply.code, reply.message);
    return reply;
  }

  // --- identities (SPEC.md §4.9) ---------------------------------------------------------------

  // An `identity` reply signs this session in: its secret (if any) is kept for every later hello.
  signedIn(reply) {
    this.identity = reply.identity;
    if (reply.secret) {
      store.keepIdentity({ secret: reply.secret, id: reply.identity.id, handle: reply.identity.handle });
      this.signedWith = reply.secret;
      this.forgotten = null;
    } else {
      store.keepHandle(reply.identity.handle);
    }
    this.dispatchEvent(new Event("identity"));
    return reply.identity;
  }

  // Makes an identity with this handle and signs in as it (identity/handle_taken refuses).
  async createIdentity(handle) {
    return this.signedIn(await this.request({ type: "create_identity", handle }));
  }

  // Moves an identity here with a transfer code (identity/bad_code refuses).
  async redeemCode(code) {
    return this.signedIn(await this.request({ type: "redeem_code", transfer_code: code }));
  }

  async renameIdentity(handle) {
    return this.signedIn(await this.request({ type: "rename_identity", handle }));
  }

  // A one-time code that moves this identity to another device: { transfer_code, expires }.
  async transferCode() {
    return this.request({ type: "new_transfer_code" });
  }

  // --- ratings (SPEC.md §4.10) ------------------------------------------------------------------

  // One page of the leaderboard, best first: { players, next }.
  async leaderboard({ cursor, limit } = {}) {
    const message = { type: "leaderboard" };
    if (limit) message.limit = limit;
    if (cursor) message.cursor = cursor;
    const reply = await this.request(message, undefined, { retry: true });
    return { players: reply.players || [], next: reply.next || null };
  }

  // A player's page, by identity id if known, else by handle: { identity, ratings, games, next }
  // (identity/not_found refuses).
  async player({ handle, identity }, { cursor, limit } = {}) {
    const message = identity ? { type: "player", identity } : { type: "player", handle };
    if (limit) message.limit = limit;
    if (cursor) message.cursor = cursor;
    const reply = await this.request(message, undefined, { retry: true });
    return { identity: reply.identity, ratings: reply.ratings || [], games: reply.games || [], next: reply.next || null };
  }

  async transcript(table) {
    return (await this.request({ type: "transcript", table }, 60, { retry: true })).transcript;
  }

  close() {
    if (this.connection) this.connection.close(1000, "bye");
  }
}

// The browser's lobby client (SPEC.md §4) on the SDK's connection (/sdk/connection.js: one
// websocket, JSON frames, requests matched to replies by id, the keep-alive), signed in with the
// identity this browser keeps (store.js).

import {
  Connection, KEEP_ALIVE, Lost, PROTOCOL, REPLY_SECONDS, Refused, SUBPROTOCOL, backoff, forTable, hello as sdkHello,
  nextId, openSession as sdkOpenSession, retryable,
} from "/sdk/connection.js";
import * as store from "./store.js";

export { Connection, KEEP_ALIVE, Lost, PROTOCOL, REPLY_SECONDS, Refused, SUBPROTOCOL, backoff, forTable, nextId, retryable };

export const CLIENT = "echoridge-web/0.1.0";
const LOBBY_RETRY_SECONDS = 120;

export function serverUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws`;
}

export function hello(fields = {}) {
  return sdkHello(fields, CLIENT);
}

// Opens a connection and says hello as this page; resolves to [connection, welcome].
export function openSession(url, fields, handlers) {
  return sdkOpenSession(url, fields, handlers, { client: CLIENT });
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
  create(seats, { isPublic = true, spectators = true, delay = 0, clock = null, mode = "competitive", handoverBot = "normal", rateBots = false } = {}) {
    const message = { type: "create_table", seats, public: isPublic, spectators, spectator_delay: delay };
    if (clock) message.clock = clock;
    if (mode && mode !== "competitive") message.mode = mode;
    if (handoverBot && handoverBot !== "normal") message.handover_bot = handoverBot;
    if (rateBots) message.rate_bots = true; // rated with its bots as players (SPEC.md §4.10)
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

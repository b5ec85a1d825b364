// One websocket speaking the protocol (SPEC.md §2): a frame per message in either encoding
// (codec.js; JSON unless asked for MessagePack), requests matched to replies by id (§4), the
// `ping`/`pong` keep-alive (§2.4), and the hello that opens a session (§3.1).
//
// It runs on the WHATWG WebSocket: a page's, Node 22's global one, or a constructor given as
// `WebSocket` (Node 20: run with --experimental-websocket, or pass e.g. the `ws` package's).

import { SUBPROTOCOL_JSON, SUBPROTOCOL_MSGPACK, decode, encode } from "./codec.js";

export const SUBPROTOCOL = SUBPROTOCOL_JSON;
export const PROTOCOL = "echoridge.v2";
export const CLIENT = "echoridge-js/2.0.0";
export const REPLY_SECONDS = 15;
// Keep-alive (SPEC.md §2.4): the WHATWG WebSocket does not show websocket pings, so after QUIET
// seconds without any frame from the server the client sends `ping`, and GRACE seconds more of
// silence mean the connection is lost (closed as 1006, which reconnects with resume). Tests may
// set globalThis.echoridgeKeepAlive = {quiet, grace} before a connection opens.
export const KEEP_ALIVE = { quiet: 20, grace: 10 };

function keepAliveSeconds() {
  const custom = globalThis.echoridgeKeepAlive;
  return custom && typeof custom === "object" ? { ...KEEP_ALIVE, ...custom } : KEEP_ALIVE;
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

export function hello(fields = {}, client = CLIENT) {
  return { type: "hello", protocol: PROTOCOL, client, ...fields };
}

const OPEN = 1; // WebSocket.OPEN

export class Connection {
  // `subprotocol`: echoridge.v2.json or echoridge.v2.msgpack; `WebSocket`: the constructor.
  constructor(url, { onMessage = () => {}, onClose = () => {}, subprotocol = SUBPROTOCOL, WebSocket = globalThis.WebSocket } = {}) {
    if (typeof WebSocket !== "function") {
      throw new Error("no WebSocket: pass one (Node 20: node --experimental-websocket, or the ws package)");
    }
    this.url = url;
    this.onMessage = onMessage;
    this.onClose = onClose;
    this.subprotocol = subprotocol;
    this.WebSocket = WebSocket;
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
      const ws = new this.WebSocket(this.url, [this.subprotocol]);
      if (this.subprotocol === SUBPROTOCOL_MSGPACK) ws.binaryType = "arraybuffer";
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
      ws.addEventListener("error", () => { // (a page gets close after it; Node 20's may not)
        if (!opened && !this.closed) {
          this.closed = true;
          reject(new Lost("could not connect"));
        }
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
    let message;
    try {
      message = decode(data, this.subprotocol); // (a frame of the other kind is refused, §2.1)
    } catch {
      return;
    }
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
    if (!this.ws || this.ws.readyState !== OPEN) throw new Lost();
    this.ws.send(encode(message, this.subprotocol));
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
    if (this.ws && this.ws.readyState <= OPEN) this.ws.close(code, reason);
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

// Opens a connection and says hello; resolves to [connection, welcome]. `options`: the
// Connection's `subprotocol` and `WebSocket`, and `client` (hello.client).
export async function openSession(url, fields, handlers, { client = CLIENT, ...options } = {}) {
  let first;
  const welcomed = new Promise((resolve, reject) => {
    first = { resolve, reject };
  });
  let waiting = true;
  const connection = new Connection(forTable(url, fields.table), {
    ...options,
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
  connection.send(hello(fields, client));
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

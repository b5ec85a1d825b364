// The two encodings of the protocol (SPEC.md §2.1, §2.2): `echoridge.v2.json` (one JSON text
// frame a message) and `echoridge.v2.msgpack` (one MessagePack binary frame a message), mirroring
// protocol/echoridge_protocol/codec.py's frames.
//
// A message is a plain object: nil, booleans, integers within ±(2^53−1), strings, lists and maps
// with string keys; no floats. The few fields typed bytes (BYTES_FIELDS) travel as MessagePack
// bin and as lowercase hex in JSON; a decoded message holds them as hex strings whichever the
// encoding (as transcripts and views hold hashes and salts), and encode() takes them as hex or as
// a Uint8Array. So decode(json) and decode(msgpack) of the same message are equal, and encoding
// either gives the reference encoder's bytes: `type` first when the object has it first, JSON
// without spaces, MessagePack in its smallest formats (ints, str, bin, array, map headers).
//
// The MessagePack encoder and decoder are written here for exactly the values §2.2 allows (no
// float, no extension type, no 64-bit integer beyond ±(2^53−1)); decoding refuses the rest with
// a CodecError carrying §2.2's code, as the server refuses it from a client.

export const SUBPROTOCOL_JSON = "echoridge.v2.json";
export const SUBPROTOCOL_MSGPACK = "echoridge.v2.msgpack";
export const SUBPROTOCOLS = [SUBPROTOCOL_MSGPACK, SUBPROTOCOL_JSON];
export const MAX_INT = Number.MAX_SAFE_INTEGER; // 2^53 − 1

// message type -> the paths of its bytes fields ("*": every item of a list).
export const BYTES_FIELDS = {
  join: [["client_seed"]],
  created: [["server_seed_commit"]],
  tables: [["tables", "*", "server_seed_commit"]],
};

export class CodecError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "CodecError";
    this.code = code; // protocol/malformed, protocol/bad_field
  }
}

const malformed = (why) => new CodecError("protocol/malformed", why);
const badField = (why) => new CodecError("protocol/bad_field", why);

const HEX = /^(?:[0-9a-f]{2})*$/;

function hexToBytes(hex) {
  if (typeof hex !== "string" || !HEX.test(hex)) throw badField("a bytes field is lowercase hex");
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function bytesToHex(bytes) {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

function isMap(x) {
  return x !== null && typeof x === "object" && !Array.isArray(x) && !(x instanceof Uint8Array);
}

// Calls fn(container, key) for every place a bytes field of `message` may be.
function eachBytesField(message, fn) {
  for (const path of BYTES_FIELDS[message.type] || []) {
    const walk = (node, depth) => {
      const step = path[depth];
      if (step === "*") {
        if (Array.isArray(node)) node.forEach((_, i) => (depth === path.length - 1 ? fn(node, i) : walk(node[i], depth + 1)));
      } else if (isMap(node) && Object.hasOwn(node, step)) {
        if (depth === path.length - 1) fn(node, step);
        else walk(node[step], depth + 1);
      }
    };
    walk(message, 0);
  }
}

// A copy of `message` with its bytes fields changed by `convert` (the rest shared).
function withBytes(message, convert) {
  if (!isMap(message) || !BYTES_FIELDS[message.type]) return message;
  const copy = structuredCopy(message);
  eachBytesField(copy, (node, key) => {
    node[key] = convert(node[key]);
  });
  return copy;
}

function structuredCopy(value) {
  if (Array.isArray(value)) return value.map(structuredCopy);
  if (isMap(value)) {
    const out = {};
    for (const k of Object.keys(value)) setKey(out, k, structuredCopy(value[k]));
    return out;
  }
  return value;
}

function setKey(map, key, value) {
  Object.defineProperty(map, key, { value, writable: true, enumerable: true, configurable: true });
}

// Checks that `value` is made of §2.2's values only (no bytes: they are hex by now).
function checkValue(value) {
  if (value === null || typeof value === "boolean" || typeof value === "string") return;
  if (typeof value === "number") {
    if (!Number.isInteger(value) || Math.abs(value) > MAX_INT) throw badField(`${value} is not an integer within ±(2^53−1)`);
    return;
  }
  if (value instanceof Uint8Array) throw badField("bytes outside a bytes field");
  if (Array.isArray(value)) {
    for (const v of value) checkValue(v);
    return;
  }
  if (isMap(value)) {
    for (const k of Object.keys(value)) checkValue(value[k]);
    return;
  }
  throw badField(`a ${typeof value} is not a protocol value`);
}

// --- JSON ------------------------------------------------------------------------------------

export function encodeJson(message) {
  const plain = withBytes(message, (v) => (v instanceof Uint8Array ? bytesToHex(v) : v));
  checkValue(plain);
  return JSON.stringify(plain);
}

export function decodeJson(text) {
  if (typeof text !== "string") throw malformed("a JSON frame is text");
  if (text.charCodeAt(0) === 0xfeff) throw malformed("a byte order mark");
  let value;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw malformed(`not JSON: ${err.message}`);
  }
  if (!isMap(value)) throw malformed("a message must be a map");
  checkValue(value);
  return value;
}

// --- MessagePack -------------------------------------------------------------------------------

const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

// One value in MessagePack (Uint8Array values become bin).
export function packMsgpack(value) {
  const out = new Writer();
  pack(value, out);
  return out.bytes();
}

class Writer {
  constructor() {
    this.buf = new Uint8Array(256);
    this.view = new DataView(this.buf.buffer);
    this.at = 0;
  }

  room(n) {
    if (this.at + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.at + n) size *= 2;
    const buf = new Uint8Array(size);
    buf.set(this.buf.subarray(0, this.at));
    this.buf = buf;
    this.view = new DataView(buf.buffer);
  }

  byte(b) {
    this.room(1);
    this.buf[this.at++] = b;
  }

  uint(n, size) { // big-endian, size 1, 2, 4 or 8 bytes (n >= 0, exact below 2^53)
    this.room(size);
    if (size === 1) this.view.setUint8(this.at, n);
    else if (size === 2) this.view.setUint16(this.at, n);
    else if (size === 4) this.view.setUint32(this.at, n);
    else {
      this.view.setUint32(this.at, Math.floor(n / 2 ** 32));
      this.view.setUint32(this.at + 4, n >>> 0);
    }
    this.at += size;
  }

  int(n, size) { // two's complement, n < 0
    this.room(size);
    if (size === 1) this.view.setInt8(this.at, n);
    else if (size === 2) this.view.setInt16(this.at, n);
    else if (size === 4) this.view.setInt32(this.at, n);
    else this.view.setBigInt64(this.at, BigInt(n));
    this.at += size;
  }

  raw(bytes) {
    this.room(bytes.length);
    this.buf.set(bytes, this.at);
    this.at += bytes.length;
  }

  bytes() {
    return this.buf.slice(0, this.at);
  }
}

function header(out, n, fix, fixMax, codes) { // codes: the 8-, 16- and 32-bit formats (8: null if none)
  if (n <= fixMax) out.byte(fix | n);
  else if (codes[0] !== null && n < 0x100) {
    out.byte(codes[0]);
    out.uint(n, 1);
  } else if (n < 0x10000) {
    out.byte(codes[1]);
    out.uint(n, 2);
  } else {
    out.byte(codes[2]);
    out.uint(n, 4);
  }
}

function pack(value, out) {
  if (value === null) out.byte(0xc0);
  else if (value === false) out.byte(0xc2);
  else if (value === true) out.byte(0xc3);
  else if (typeof value === "number") packInt(value, out);
  else if (typeof value === "string") {
    const bytes = utf8.encode(value);
    header(out, bytes.length, 0xa0, 31, [0xd9, 0xda, 0xdb]);
    out.raw(bytes);
  } else if (value instanceof Uint8Array) {
    header(out, value.length, 0, -1, [0xc4, 0xc5, 0xc6]);
    out.raw(value);
  } else if (Array.isArray(value)) {
    header(out, value.length, 0x90, 15, [null, 0xdc, 0xdd]);
    for (const v of value) pack(v, out);
  } else if (isMap(value)) {
    const keys = Object.keys(value);
    header(out, keys.length, 0x80, 15, [null, 0xde, 0xdf]);
    for (const k of keys) {
      pack(k, out);
      pack(value[k], out);
    }
  } else throw badField(`a ${typeof value} is not a protocol value`);
}

function packInt(n, out) {
  if (!Number.isInteger(n) || Math.abs(n) > MAX_INT) throw badField(`${n} is not an integer within ±(2^53−1)`);
  if (n >= 0) {
    if (n < 0x80) out.byte(n);
    else if (n < 0x100) (out.byte(0xcc), out.uint(n, 1));
    else if (n < 0x10000) (out.byte(0xcd), out.uint(n, 2));
    else if (n < 0x100000000) (out.byte(0xce), out.uint(n, 4));
    else (out.byte(0xcf), out.uint(n, 8));
  } else if (n >= -32) out.byte(n & 0xff);
  else if (n >= -0x80) (out.byte(0xd0), out.int(n, 1));
  else if (n >= -0x8000) (out.byte(0xd1), out.int(n, 2));
  else if (n >= -0x80000000) (out.byte(0xd2), out.int(n, 4));
  else (out.byte(0xd3), out.int(n, 8));
}

// One MessagePack value (bin becomes a Uint8Array); the whole of `bytes`, nothing after it.
export function unpackMsgpack(bytes) {
  const data = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const reader = { data, view: new DataView(data.buffer, data.byteOffset, data.byteLength), at: 0 };
  const value = unpack(reader, 0);
  if (reader.at !== data.length) throw malformed("bytes after the value");
  return value;
}

const MAX_DEPTH = 64;

function take(r, n) {
  if (r.at + n > r.data.length) throw malformed("a truncated value");
  const at = r.at;
  r.at += n;
  return at;
}

function readUint(r, size) {
  const at = take(r, size);
  if (size === 1) return r.view.getUint8(at);
  if (size === 2) return r.view.getUint16(at);
  if (size === 4) return r.view.getUint32(at);
  const n = r.view.getBigUint64(at);
  if (n > BigInt(MAX_INT)) throw badField("an integer beyond 2^53−1");
  return Number(n);
}

function readInt(r, size) {
  const at = take(r, size);
  if (size === 1) return r.view.getInt8(at);
  if (size === 2) return r.view.getInt16(at);
  if (size === 4) return r.view.getInt32(at);
  const n = r.view.getBigInt64(at);
  if (n > BigInt(MAX_INT) || n < -BigInt(MAX_INT)) throw badField("an integer beyond ±(2^53−1)");
  return Number(n);
}

function readStr(r, n) {
  const at = take(r, n);
  try {
    return strictUtf8.decode(r.data.subarray(at, at + n));
  } catch {
    throw malformed("a str that is not UTF-8");
  }
}

function readArray(r, n, depth) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(unpack(r, depth + 1));
  return out;
}

function readMap(r, n, depth) {
  const out = {};
  for (let i = 0; i < n; i++) {
    const key = unpack(r, depth + 1);
    if (typeof key !== "string") throw badField("a map key that is not a str");
    if (Object.hasOwn(out, key)) throw malformed(`the key ${JSON.stringify(key)} twice`);
    setKey(out, key, unpack(r, depth + 1));
  }
  return out;
}

function unpack(r, depth) {
  if (depth > MAX_DEPTH) throw new CodecError("protocol/too_large", "nested too deep");
  const b = r.data[take(r, 1)];
  if (b < 0x80) return b;
  if (b >= 0xe0) return b - 0x100;
  if (b >= 0xa0 && b <= 0xbf) return readStr(r, b & 0x1f);
  if (b >= 0x90 && b <= 0x9f) return readArray(r, b & 0x0f, depth);
  if (b >= 0x80 && b <= 0x8f) return readMap(r, b & 0x0f, depth);
  switch (b) {
    case 0xc0: return null;
    case 0xc2: return false;
    case 0xc3: return true;
    case 0xc4: case 0xc5: case 0xc6: {
      const n = readUint(r, 1 << (b - 0xc4));
      const at = take(r, n);
      return r.data.slice(at, at + n);
    }
    case 0xca: case 0xcb: throw badField("a float");
    case 0xcc: return readUint(r, 1);
    case 0xcd: return readUint(r, 2);
    case 0xce: return readUint(r, 4);
    case 0xcf: return readUint(r, 8);
    case 0xd0: return readInt(r, 1);
    case 0xd1: return readInt(r, 2);
    case 0xd2: return readInt(r, 4);
    case 0xd3: return readInt(r, 8);
    case 0xd9: return readStr(r, readUint(r, 1));
    case 0xda: return readStr(r, readUint(r, 2));
    case 0xdb: return readStr(r, readUint(r, 4));
    case 0xdc: return readArray(r, readUint(r, 2), depth);
    case 0xdd: return readArray(r, readUint(r, 4), depth);
    case 0xde: return readMap(r, readUint(r, 2), depth);
    case 0xdf: return readMap(r, readUint(r, 4), depth);
    case 0xc1: throw malformed("the never-used byte 0xc1");
    default: throw badField("an extension type"); // c7-c9, d4-d8
  }
}

export function encodeMsgpack(message) {
  const hexed = withBytes(message, (v) => (v instanceof Uint8Array ? bytesToHex(v) : v));
  checkValue(hexed);
  return packMsgpack(withBytes(hexed, hexToBytes));
}

export function decodeMsgpack(frame) {
  const value = unpackMsgpack(frame);
  if (!isMap(value)) throw malformed("a message must be a map");
  eachBytesField(value, (node, key) => {
    if (node[key] instanceof Uint8Array) node[key] = bytesToHex(node[key]);
  });
  checkValue(value); // a bin anywhere else is refused
  return value;
}

// --- either ------------------------------------------------------------------------------------

// One frame of `subprotocol`: a string (JSON) or a Uint8Array (MessagePack).
export function encode(message, subprotocol = SUBPROTOCOL_JSON) {
  if (subprotocol === SUBPROTOCOL_JSON) return encodeJson(message);
  if (subprotocol === SUBPROTOCOL_MSGPACK) return encodeMsgpack(message);
  throw new Error(`unknown subprotocol ${subprotocol}`);
}

// The message in one frame of `subprotocol`: text for JSON, binary (Uint8Array, ArrayBuffer) for
// MessagePack; a frame of the other kind is refused (§2.1: protocol/wrong_frame).
export function decode(frame, subprotocol = SUBPROTOCOL_JSON) {
  if (subprotocol === SUBPROTOCOL_JSON) {
    if (typeof frame !== "string") throw new CodecError("protocol/wrong_frame", "a binary frame on the JSON subprotocol");
    return decodeJson(frame);
  }
  if (subprotocol === SUBPROTOCOL_MSGPACK) {
    if (typeof frame === "string") throw new CodecError("protocol/wrong_frame", "a text frame on the msgpack subprotocol");
    return decodeMsgpack(frame instanceof ArrayBuffer ? new Uint8Array(frame) : frame);
  }
  throw new Error(`unknown subprotocol ${subprotocol}`);
}

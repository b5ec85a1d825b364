/** The protocol's values (SPEC.md §2.2): no floats; bytes fields are hex strings once decoded. */
export type Value = null | boolean | number | string | Value[] | { [key: string]: Value };
/** A protocol message: a map with a `type`. */
export interface Message { type: string; [field: string]: Value | Uint8Array | undefined }

export declare const SUBPROTOCOL_JSON: "echoridge.v2.json";
export declare const SUBPROTOCOL_MSGPACK: "echoridge.v2.msgpack";
export type Subprotocol = "echoridge.v2.json" | "echoridge.v2.msgpack";
export declare const SUBPROTOCOLS: Subprotocol[];
export declare const MAX_INT: number;
export declare const BYTES_FIELDS: Record<string, (string)[][]>;

export declare class CodecError extends Error {
  constructor(code: string, message: string);
  code: string;
}

export declare function encodeJson(message: Message): string;
export declare function decodeJson(text: string): Message;
export declare function encodeMsgpack(message: Message): Uint8Array;
export declare function decodeMsgpack(frame: Uint8Array): Message;
export declare function packMsgpack(value: Value | Uint8Array): Uint8Array;
export declare function unpackMsgpack(bytes: Uint8Array | ArrayBuffer): Value | Uint8Array;
export declare function encode(message: Message, subprotocol?: Subprotocol): string | Uint8Array;
export declare function decode(frame: string | Uint8Array | ArrayBuffer, subprotocol?: Subprotocol): Message;

import type { Message, Subprotocol } from "./codec.js";

/** A WHATWG WebSocket constructor (a page's, Node 22's, or e.g. the `ws` package's). */
export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => any;

export interface ConnectionOptions {
  subprotocol?: Subprotocol;
  WebSocket?: WebSocketConstructor;
}
export interface OpenOptions extends ConnectionOptions {
  /** hello.client */
  client?: string;
}
export interface Handlers {
  onMessage(message: Message): void;
  onClose(code: number, reason: string): void;
}

export declare const SUBPROTOCOL: "echoridge.v2.json";
export declare const PROTOCOL: "echoridge.v2";
export declare const CLIENT: string;
export declare const REPLY_SECONDS: number;
export declare const KEEP_ALIVE: { quiet: number; grace: number };

export declare function retryable(code: string | undefined): boolean;
export declare function backoff(n: number, first: number, cap: number): number;

/** A request the server refused: its code (SPEC.md §11) and its sentence. */
export declare class Refused extends Error {
  constructor(code: string, message?: string);
  code: string;
}
export declare class Lost extends Error {
  constructor(message?: string);
}

export declare function nextId(prefix?: string): string;
export declare function hello(fields?: Record<string, unknown>, client?: string): Message;
export declare function forTable(url: string, table?: string | null): string;

export declare class Connection {
  constructor(url: string, options?: Partial<Handlers> & ConnectionOptions);
  url: string;
  subprotocol: Subprotocol;
  closed: boolean;
  closeCode: number | null;
  /** The server's bye, if it sent one. */
  bye: Message | null;
  open(): Promise<Connection>;
  send(message: Message): void;
  /** Sends `message` with an id; resolves to the reply with that id (an error rejects: Refused). */
  request(message: Message, seconds?: number): Promise<Message>;
  close(code?: number, reason?: string): void;
}

/** Opens a connection and says hello (§3.1): [connection, welcome]. */
export declare function openSession(
  url: string, fields: Record<string, unknown>, handlers: Handlers, options?: OpenOptions,
): Promise<[Connection, Message]>;

import type { Connection, Handlers, OpenOptions, Refused } from "./connection.js";
import type { Message } from "./codec.js";
import type { Verifier } from "./fairness.js";

/** A command as `you.legal` lists it (SPEC.md §5.4). */
export interface Command { type: string; [field: string]: unknown }
/** The answer to a command (§5.2). */
export interface Result {
  type: "result";
  id: string;
  outcome: "accepted" | "rejected" | "duplicate";
  version?: number;
  code?: string;
  message?: string;
}
export interface Mirror { epoch: number; version: number; view: any; log: LogRecord[]; logWhole: boolean }
/** A log entry and the version that made it (null: from a welcome). */
export interface LogRecord { v: number | null; e: any; w?: boolean }
export type Status = "connecting" | "live" | "reconnecting" | "stopped";

export declare const COMMAND_SECONDS: number;
export declare const RETRY_SECONDS: number;

export interface TableSessionOptions extends OpenOptions {
  table: string;
  /** A seat's token; none: a spectator. */
  token?: string | null;
  /** The server's websocket URL, e.g. ws://127.0.0.1:8765/ws */
  url: string;
  /** A look's slot commitments kept from before. */
  slots?: Record<string, string>;
}

export declare class TableSession extends EventTarget {
  constructor(options: TableSessionOptions);
  table: string;
  token: string | null;
  url: string;
  who: "seat" | "spectator";
  view: any;
  version: number;
  epoch: number;
  seat: number | null;
  status: Status;
  problem: { code: string | null; message: string } | null;
  closeCode: number | null;
  connection: Connection | null;
  reconnects: number;
  retries: number;
  stopped: boolean;
  log: LogRecord[];
  logWhole: boolean;
  presence: Message | null;
  deadline: Message | null;
  clocks: Message | null;
  welcome?: Message;
  verifier: Verifier;
  /** Settles once the reveals of the latest view are checked. */
  verified: Promise<unknown>;
  byeReason: string;

  /** Connects (resuming from `kept` if given); resolves once welcomed or given up. */
  start(kept?: Mirror | null): Promise<void>;
  helloFields(): Record<string, unknown>;
  refusedHello(err: Refused, fields: Record<string, unknown>): boolean;
  closedForGood(code: number, bye: Message | null): void;
  kept(why: string): void;
  forgotten(): void;
  open(fields: Record<string, unknown>, handlers: Handlers): Promise<[Connection, Message]>;
  mirror(): Mirror | null;
  untilVersion(version: number): Promise<void>;
  /** Sends one of `legal` with the version the view is at (retry-safe id, SPEC.md §5.3). */
  command(command: Command): Promise<Result>;
  retryNow(): void;
  stop(code?: string | null, why?: string | null): void;

  readonly over: boolean;
  readonly you: any;
  readonly legal: Command[];
  until(predicate: (session: this) => boolean, seconds?: number): Promise<void>;
  play(
    choose: (view: any, legal: Command[]) => Command | Promise<Command>, options?: { seconds?: number },
  ): Promise<void>;
  close(): void;
}

export declare function describeRefusal(err: Refused): string;
export declare function closeWords(code: number, bye: Message | null): string;

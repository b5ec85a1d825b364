export interface HashOptions { webCrypto?: boolean }

export declare const usingWebCrypto: boolean;
export declare function utf8(text: string): Uint8Array;
export declare function fromHex(hex: string): Uint8Array;
export declare function toHex(bytes: Uint8Array | ArrayLike<number>): string;
export declare function concat(...parts: Uint8Array[]): Uint8Array;
export declare function field(bytes: Uint8Array): Uint8Array;
export declare function sha256(bytes: Uint8Array, options?: HashOptions): Promise<Uint8Array>;
export declare function hmacSha256(key: Uint8Array, message: Uint8Array, options?: HashOptions): Promise<Uint8Array>;
/** SPEC.md §9.2: the commitment of `value` under `label` with a hex salt, as hex. */
export declare function commit(label: string, value: string | number, saltHex: string, options?: HashOptions): Promise<string>;
/** SHA-256 of the server seed, as hex (§9.1). */
export declare function serverSeedCommit(serverSeedHex: string): Promise<string>;
/** The 32-byte game seed (§9.1). */
export declare function gameSeed(serverSeedHex: string, table: string, clientSeedsHex: string[]): Promise<Uint8Array>;
/** The salt of a committed item, as hex (§9.2). */
export declare function salt(seed: Uint8Array, table: string, label: string): Promise<string>;
/** Draw number `index` with `bound` (§10): an integer in 0 .. bound-1. */
export declare function drawBelow(seed: Uint8Array, table: string, index: number, bound: number): Promise<number>;

/** A recorded draw: [index, bound, value]. */
export type Draw = [number, number, number];
export type Block = [number, number];

export declare class Draws {
  constructor(seed: Uint8Array, table: string);
  seed: Uint8Array;
  table: string;
  used: Draw[];
  draw(bound: number): Promise<number>;
  shuffle<T>(items: Iterable<T>): Promise<T[]>;
  sample<T>(items: Iterable<T>, k: number): Promise<T[]>;
  pick<T>(items: T[]): Promise<T>;
}

export interface Setup {
  draws: Draw[];
  /** The 25 block names in canonical order, "Police HQ" in the middle. */
  layout: string[];
  tokens: { block: Block; kind: "search" | "stakeout"; value: number }[];
  murderer: string;
  suspectDeck: string[];
  eventDeck: string[];
  forceDeck: string[];
  abilities: string[];
  order: number[];
  roles: string[];
  mobsters: { block: Block; color: "red" | "blue" | "gray" }[];
}

/** SPEC.md §10.1: every random choice of the start, from the game seed. */
export declare function setupFromDraws(
  seed: Uint8Array, table: string, players: number, options?: { coop?: boolean; roles?: boolean },
): Promise<Setup>;

/** Checks every reveal of each view against its commitment (§9.3). */
export declare class Verifier {
  constructor(slotCommitments?: Record<string, string>);
  checked: Map<string, string>;
  failed: string | null;
  slotCommitments: Record<string, string>;
  noteSlots(view: unknown): void;
  /** Resolves to the number of proofs newly checked; rejects on one that does not open. */
  check(view: unknown): Promise<number>;
  token(block: Block): boolean;
  trait(evidence: string): boolean;
  suspect(id: string): boolean;
}

export interface Transcript {
  format: "echoridge.transcript.v1";
  table: string;
  players: number;
  server_seed_commit: string;
  server_seed: string;
  client_seeds: string[];
  initial: unknown;
  entries: { version: number; seat: number | null; command: unknown; draws: Draw[]; delta: unknown[] }[];
  final: any;
}

/** A check passed, as a code (server_seed, items, murderer, setup, draws) for clients' own words. */
export interface VerificationStep { step: string; count?: number }
export interface Verification { ok: boolean; checks: string[]; steps: VerificationStep[]; problem: string | null }

/** SPEC.md §9.4: checks a finished game's transcript (no rules engine needed). */
export declare function verifyTranscript(
  transcript: Transcript, onProgress?: (done: number, total: number) => void,
): Promise<Verification>;

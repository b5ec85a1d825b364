/** The log catalogue (logtext.en.json). */
export interface LogText {
  about?: string;
  /** The catalogue's language ("en", "es"): its plural rules. */
  language?: string;
  /** nobody, yes, no in the catalogue's language. */
  words?: Record<string, string>;
  entries: Record<string, string>;
  values?: Record<string, Record<string, string>>;
  variants?: string[];
  hidden?: string[];
  reasons?: Record<string, string>;
  events?: Record<string, EventWords>;
  [key: string]: unknown;
}
export interface EventWords { name: string; asks?: string; reward?: string; while?: string; timed?: string }
/** One log entry (SPEC.md §6.3). */
export interface LogEntry { kind: string; to?: number[]; [field: string]: unknown }
export interface Player { name?: string; bot?: string | boolean; [key: string]: unknown }

export declare const LOG_TEXT_URL: "/logtext.en.json";
/** The catalogue from a URL, a path or file: URL (Node), or the catalogue itself. */
export declare function loadLogText(source?: string | URL | LogText): Promise<LogText>;
/** /logtext.<language>.json */
export declare function logTextURL(language?: string): string;
export declare const FSI: "\u2068";
export declare const PDI: "\u2069";
/** `text` in Unicode bidi isolates when it has right-to-left letters. */
export declare function isolate(text: string): string;
export declare function seatName(players: Player[] | null | undefined, seat: number | null | undefined, nobody?: string): string;
export declare function blockNames(view: unknown): string[];
export declare function blockText(block: unknown, names?: string[]): string;
export declare function reasonText(text: LogText, action: string, code: string, fallback?: string): string;
export declare function eventWords(text: LogText, card: string): EventWords;
export declare function isPrivate(entry: LogEntry, seat: number | null | undefined, team?: number): boolean;
export declare function isTeam(entry: LogEntry, seat: number | null | undefined, team?: number): boolean;
export declare function templateKey(text: LogText, entry: LogEntry, seat: number | null | undefined, whole?: boolean): string | null;
export declare function entryText(
  text: LogText, entry: LogEntry,
  options?: { players?: Player[]; seat?: number | null; whole?: boolean; blocks?: string[] },
): string | null;
export declare function isHidden(text: LogText, entry: LogEntry): boolean;

/** ICU MessageFormat (our subset: arguments, plural, select, #, quoting), as the Python SDK's
 * echoridge_client.i18n formats it. */
export declare const CATEGORIES: readonly ["zero", "one", "two", "few", "many", "other"];
/** A message that does not parse, or an argument it needs is missing. */
export declare class MessageError extends Error {}
export type MessageArgs = Record<string, unknown>;
/** `message` with its arguments; plural categories of `language` (Intl.PluralRules); `raw`:
 * values that choose plural and select branches where they differ from the words shown. */
export declare function formatMessage(message: string, args?: MessageArgs, language?: string, raw?: MessageArgs): string;
/** The arguments a message names: name -> "arg" | "plural" | "select". */
export declare function messageArguments(message: string): Record<string, "arg" | "plural" | "select">;
/** The CLDR plural category of `n` in `language`. */
export declare function pluralCategory(n: number, language?: string): "zero" | "one" | "two" | "few" | "many" | "other";
/** The message's parsed nodes (cached); throws MessageError. */
export declare function parseMessage(message: string): unknown[];

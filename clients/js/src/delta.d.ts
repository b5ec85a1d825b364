/** One delta op (SPEC.md §6.2). */
export type Op =
  | ["set", (string | number)[], unknown]
  | ["del", (string | number)[]]
  | ["push", (string | number)[], unknown[]]
  | ["trim", (string | number)[], number];

export declare class DeltaError extends Error {
  constructor(message: string);
  code: "protocol/bad_delta";
}

/** The view after `ops`, in order; `view` is never changed (unchanged parts are shared). */
export declare function apply<V = unknown>(view: V, ops: Op[] | unknown[]): V;

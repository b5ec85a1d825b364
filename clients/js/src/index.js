// The Echo Ridge client SDK for JavaScript (SPEC.md): every module's exports in one place.
// Each module may be imported alone too (`@echoridge/client/delta`, or /sdk/delta.js from the
// reference server).

export * from "./codec.js";
export * from "./connection.js";
export * from "./delta.js";
export * from "./fairness.js";
export * from "./i18n.js";
export * from "./logtext.js";
export * from "./names.js";
export * from "./session.js";
export * from "./sha256.js";

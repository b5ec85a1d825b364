export * from "./codec.js";
export * from "./connection.js";
export * from "./delta.js";
export * from "./fairness.js";
export * from "./logtext.js";
export * from "./names.js";
export * from "./session.js";
export * from "./sha256.js";

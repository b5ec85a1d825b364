// A player's input (a name, a handle, a chat line) for a string: an attribute, a title, a live
// region's words. Between the Unicode isolates FSI and PDI when it has right-to-left letters,
// as the SDK's `isolate` (logtext.js) does, except that a string already isolated (the SDK's
// seatName: the name, not its "(bot)") is left as it is. In the page's text, i18n.js's `bdi`
// and `tx` put the input in a <bdi> instead.

import { FSI, isolate as sdkIsolate } from "/sdk/logtext.js";

export function isolate(text) {
  const s = String(text);
  return s.includes(FSI) ? s : sdkIsolate(s);
}

// The switch between a table's two pages: the board view (#/table/ID, #/watch/ID: table.js) and
// the text mode for screen readers (the same with ?mode=text: textmode.js). Kept apart from both
// so that table.js can offer the switch without importing the text mode (which extends it).

import { h } from "./dom.js";
import { t } from "./i18n.js";

// The hash of a table's page: a seat's or a spectator's, in text mode or not.
export function tableHash(table, { spectate = false, text = false } = {}) {
  return `#/${spectate ? "watch" : "table"}/${table}${text ? "?mode=text" : ""}`;
}

// The link to the other view of the same table, first on the page so that a screen reader finds
// it at once. `text`: whether the page it sits on is the text mode.
export function modeSwitch(page, text) {
  const href = tableHash(page.table, { spectate: page.spectate, text: !text });
  return h("p", { class: "mode-switch", id: "mode-switch" },
    h("a", { href, "data-key": "mode-switch" }, text ? t("text.switch.board") : t("text.switch.text")));
}

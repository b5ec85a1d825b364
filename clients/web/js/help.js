// "How to play": a dialog with the goal, the turn, the actions, evidence and suspects, what the
// board's pieces mean and the keys, after docs/rules.md, with a link to the full rules in the
// reader's language (the server publishes them beside the protocol: /protocol/rules.md, and
// /protocol/rules.es.md in Spanish: the catalogue's help.rules.href says which). Opened by the
// "How to play" buttons and by the ? key anywhere but in a text field. At a table with a game
// on, it starts with "Walk me through a turn" (tour.js).
//
// Its words are the help.* messages of /locales/<lang>/help.json (i18n.js). A message may hold
// a part in <strong>…</strong> (shown bold) or a link <name>…</name> whose address the code
// gives: `rich` builds them as elements and text nodes, never from HTML.

import { ABILITIES, FORCE, ROLES, roleActions } from "./data.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { tourEntry } from "./tour.js";

// The actions (rules.md §5): help.action.<id> is the name; .hours, .when, .what the rest.
const ACTIONS = ["arrest", "coffee_break", "call_for_backup", "catch_informant", "catch_witness", "search_scene", "stakeout", "bring_in", "resolve_event"];

// The pieces of the board: help.piece.<id> is the glyph, help.piece.<id>.means its meaning.
const PIECES = ["mobsters", "tokens", "clues", "marks", "event", "cars", "reachable"];

// Words of the game, for "How to play": help.term.<id> and help.term.<id>.means.
const GLOSSARY = ["track", "day_night", "drive", "action", "risk", "force", "roll", "apprehend", "badge", "informant", "tokens", "evidence", "suspects", "events", "rest", "accusation"];

// A message with <strong>…</strong> and <name>…</name> parts: text nodes, <strong>s and links
// (`links`: name -> {href, ...attributes}).
export function rich(message, links = {}) {
  const out = [];
  const pattern = /<([a-z]+)>(.*?)<\/\1>/gs;
  let at = 0;
  for (const match of message.matchAll(pattern)) {
    if (match.index > at) out.push(message.slice(at, match.index));
    const [, tag, inner] = match;
    if (tag === "strong") out.push(h("strong", {}, inner));
    else if (links[tag]) out.push(h("a", links[tag], inner));
    else out.push(inner);
    at = match.index + match[0].length;
  }
  if (at < message.length) out.push(message.slice(at));
  return out;
}

// A paragraph-like element holding one message.
function said(tag, key, args = {}, links = {}, attrs = {}) {
  return h(tag, attrs, rich(t(key, args), links));
}

// The full rules in the reader's language, and our rulings on unclear cases.
function rulesLinks() {
  return {
    rules: { href: t("help.rules.href"), target: "_blank", rel: "noopener", id: "help-rules" },
    rulings: { href: "/protocol/rulings.md", hreflang: "en", target: "_blank", rel: "noopener" },
  };
}

export function helpDialog() {
  const dialog = h("dialog", { id: "help", class: "help", "aria-labelledby": "help-title" },
    h("div", { class: "help-head" },
      h("h2", { id: "help-title" }, t("help.title")),
      h("button", { type: "button", class: "small", id: "help-close", onclick: () => dialog.close() }, t("help.close"))),
    tourEntry(() => dialog.close()),
    said("p", "help.goal"),
    h("h3", {}, t("help.whose_turn")),
    said("p", "help.whose_turn.text"),
    h("h3", {}, t("help.turn")),
    h("ol", {}, ["drive", "action", "force", "line", "roll", "rest"].map((step) => said("li", `help.turn.${step}`))),
    said("p", "help.turn.force_cards"),
    h("h3", {}, t("help.actions")),
    h("div", { class: "table-scroll", tabindex: 0, role: "region", "aria-label": t("help.actions") },
      h("table", { class: "help-actions" },
        h("thead", {}, h("tr", {}, ["action", "hours", "when", "what"].map((c) => h("th", { scope: "col" }, t(`help.column.${c}`))))),
        h("tbody", {}, ACTIONS.map((id) =>
          h("tr", {}, h("th", { scope: "row" }, t(`help.action.${id}`)), h("td", {}, t(`help.action.${id}.hours`)),
            h("td", {}, t(`help.action.${id}.when`)), h("td", {}, t(`help.action.${id}.what`))))))),
    h("h3", {}, t("help.evidence")),
    said("p", "help.evidence.text"),
    h("h3", {}, t("help.coop")),
    said("p", "help.coop.roles"),
    h("ul", {}, Object.keys(ROLES).map((role) =>
      said("li", "help.coop.role", { role: ROLES[role][0], actions: roleActions(role).join(", ") }))),
    said("p", "help.coop.text"),
    h("h3", { id: "glossary" }, t("help.glossary")),
    h("dl", { class: "help-pieces glossary" }, GLOSSARY.map((id) => [h("dt", {}, t(`help.term.${id}`)), h("dd", {}, t(`help.term.${id}.means`))])),
    h("h3", {}, t("help.board")),
    h("dl", { class: "help-pieces" }, PIECES.map((id) => [h("dt", {}, t(`help.piece.${id}`)), h("dd", {}, t(`help.piece.${id}.means`))])),
    said("p", "help.board.text", {
      cards: Object.values(FORCE).map(([name]) => name).join(", "),
      abilities: Object.values(ABILITIES).map(([name]) => name).join(", "),
    }),
    h("h3", {}, t("help.keys")),
    h("ul", {}, ["tab", "help", "log"].map((key) => said("li", `help.keys.${key}`))),
    h("h3", {}, t("help.fair")),
    said("p", "help.fair.text"),
    said("p", "help.rules", {}, rulesLinks(), { class: "small", id: "help-rules-line" }));
  return dialog;
}

export function helpButton(id = "help-open") {
  return h("button", { type: "button", class: "small help-button", id, "aria-haspopup": "dialog", onclick: () => openHelp() }, t("help.open"));
}

// Opens the help dialog (made on first use, kept in the body); focus goes back where it was.
export function openHelp() {
  let dialog = document.getElementById("help");
  if (!dialog) {
    dialog = helpDialog();
    document.body.append(dialog);
  }
  if (dialog.open) return;
  dialog.querySelector(".tour-entry").refresh();
  const back = document.activeElement;
  dialog.addEventListener("close", () => {
    // Back to where the reader was, unless the focus has already moved on (the close event
    // comes a moment after the dialog is hidden).
    const now = document.activeElement;
    const lost = !now || now === document.body || dialog.contains(now);
    if (lost && back && back.isConnected && typeof back.focus === "function") back.focus();
  }, { once: true });
  dialog.showModal();
  dialog.querySelector("#help-close").focus();
}

// The ? key opens the help, except while typing.
export function listenForHelpKey() {
  document.addEventListener("keydown", (event) => {
    if (event.key !== "?" || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))) return;
    const open = document.querySelector("dialog[open]");
    if (open && open.id !== "help") return;
    event.preventDefault();
    openHelp();
  });
}

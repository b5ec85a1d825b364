// Game data the page shows (rules.md), as the terminal client's data.py has it: the client
// never needs the rules engine, only names and one-line summaries, in the page's language: the
// names the log says too (Force and Event cards, actions, evidence, roles, reasons) from the log
// catalogue's `values` (logWord: one copy for the log and the panels), the rest from table.json
// "data.*". The server's own words for traits ("Red Rhinos") stay what the page compares; it
// shows traitName's.

// §7.4: suspect id -> [name, code] (the SDK's names.js: the log catalogue words suspects by them too).
import { SUSPECTS, SUSPECT_IDS, suspectName } from "/sdk/names.js";
import { logText, t } from "./i18n.js";

export { SUSPECTS, SUSPECT_IDS, suspectName };

export const CODE_ORDER = ["gang", "rank", "forensics", "getaway", "weapon"];
export const EVIDENCE_ORDER = ["rank", "gang", "forensics", "getaway", "weapon"];
// The traits as the server names them (view.you.traits, evidence[i].trait): the page compares
// these and shows traitName's words.
export const TRAITS = {
  gang: ["Red Rhinos", "Blue Bees"],
  rank: ["Boss", "Underboss"],
  forensics: ["Fingerprints", "Shoeprints"],
  getaway: ["Car", "Motorcycle"],
  weapon: ["Gun", "Knife"],
};
const TRAIT_IDS = Object.fromEntries(Object.values(TRAITS).flat().map((v) => [v, v.toLowerCase().replace(/ /g, "_")]));

// The log catalogue's word (its `values`, in the page's language) for `value` of `field`
// ("card", "action", "evidence", "roles", "color", "reason", "time"), else `fallback`: one copy
// of the names both the log and the panels say.
export function logWord(field, value, fallback = String(value)) {
  const text = logText();
  const words = text && text.values && text.values[field];
  const key = typeof value === "boolean" ? String(value) : value;
  return words && typeof key === "string" && Object.hasOwn(words, key) ? words[key] : fallback;
}

// A trait in words ("Red Rhinos"); `short`: the notebook's short form ("Red").
export function traitName(value, short = false) {
  const id = TRAIT_IDS[value];
  if (!id) return value === null || value === undefined ? "" : String(value);
  return t(short ? `data.trait_short.${id}` : `data.trait.${id}`);
}

// An evidence kind's name ("Gang"): the log catalogue's.
export function evidenceName(evidence) {
  return logWord("evidence", evidence, capitalize(evidence));
}

// What makes the clues of an evidence kind ("Informants").
export function evidenceClue(evidence) {
  return CODE_ORDER.includes(evidence) ? t(`data.clue.${evidence}`) : "";
}

const FORCE_IDS = [
  "code_three", "radio_car", "judges_signature", "tip_line", "checkpoint", "double_shift", "rubber_stamp",
  "telephoto", "squad_wagon", "jailhouse_deal",
];
const ABILITY_IDS = ["wheelman", "night_shift", "sharp_eyes", "radio_ace", "street_contacts", "lab_partner", "quartermaster", "good_cop"];

// id -> [name, effect] read in the page's language when used (help.js lists them).
function wordsTable(ids, words) {
  const table = {};
  for (const id of ids) Object.defineProperty(table, id, { enumerable: true, get: () => words(id) });
  return table;
}

// §9: Force card id -> [name, effect]; the effect starts with the moment of the turn it may be
// played at, in words (rules.md §4.8), never the windows' short names.
export const FORCE = wordsTable(FORCE_IDS, (card) => [forceName(card), forceEffect(card)]);

// §10: ability id -> [name, effect].
export const ABILITIES = wordsTable(ABILITY_IDS, (ability) => [abilityName(ability), t(`data.ability.${ability}.effect`)]);

// An action's name ("Call for Backup"): the log catalogue's (`bring_in_1`, `bring_in_2` for the
// two steps of Bring in for Holding).
export function actionName(action) {
  return logWord("action", action, capitalize(String(action).replaceAll("_", " ")));
}

// §14: co-op role id -> [name, the clue actions it may take (ids of the log catalogue's
// actions)]. Every role may also Drive, Arrest, Call for Backup, Coffee Break, Resolve Event and
// Rest Your Case.
const ROLE_ACTIONS = {
  detective: ["catch_witness", "search_scene"],
  patrol_cop: ["catch_informant", "stakeout", "bring_in_1", "bring_in_2"],
  analyst: ["search_scene", "stakeout"],
  forensic_tech: ["catch_informant", "catch_witness", "bring_in_1", "bring_in_2"],
};
export const ROLES = wordsTable(Object.keys(ROLE_ACTIONS), (role) => [roleName(role), ROLE_ACTIONS[role]]);
export const CLUE_ACTIONS = ["catch_informant", "catch_witness", "search_scene", "stakeout", "bring_in_1", "bring_in_2"];

export function roleName(role) {
  return Object.hasOwn(ROLE_ACTIONS, role) ? logWord("roles", role) : String(role || "-");
}

// The clue actions a role may take, in words (Bring in for Holding once, for both steps).
export function roleActions(role) {
  const words = [];
  for (const action of ROLE_ACTIONS[role] || []) {
    const word = action.startsWith("bring_in_") ? t("data.bring_in") : actionName(action);
    if (!words.includes(word)) words.push(word);
  }
  return words;
}

// What a seat is asked when it owes a decision of this kind.
const DECISION_KINDS = ["suspect_gain", "interrogate", "slot", "discard", "pool", "trait", "peek", "rest", "accusation"];
export function decisionWords(kind) {
  return DECISION_KINDS.includes(kind) ? t(`data.decision.${kind}`) : t("data.decision.other", { kind: String(kind) });
}

export const EVENT_LINES = [8, 16, 24, 32, 40];
export const HOURS = 48;
export const HQ = [3, 3];

// rules.md §2: day is 0-12 and 25-36; night is 13-24 and 37-48.
export function isNight(space) {
  return (space >= 13 && space <= 24) || space >= 37;
}

// The trait of suspect `id` for `evidence`, as the server names it ("Red Rhinos").
export function suspectTrait(id, evidence) {
  const code = SUSPECTS[id][1];
  return TRAITS[evidence][Number(code[CODE_ORDER.indexOf(evidence)])];
}

// Suspects consistent with every known trait and not known to be innocent.
export function candidates(innocent, traits) {
  return SUSPECT_IDS.filter(
    (s) => !innocent.has(s) && Object.entries(traits).every(([e, v]) => suspectTrait(s, e) === v),
  );
}

// A Force card's effect; in co-op (§14) Judge's Signature lets the action be one the role lacks.
export function forceEffect(card, coop = false) {
  if (coop && card === "judges_signature") return t("data.force.judges_signature.coop");
  return FORCE_IDS.includes(card) ? t(`data.force.${card}`) : "";
}

export function forceName(card) {
  return logWord("card", card);
}

export function abilityName(ability) {
  return ABILITY_IDS.includes(ability) ? t(`data.ability.${ability}`) : String(ability || "-");
}

// An Event card's name ("Harbor Fog"): the log catalogue's.
export function eventName(card) {
  return logWord("card", card);
}

// §7.4: the suspects' grammatical gender, for the words around their names in languages that
// need it ("f": Dolores, Ginger, Rita, Mae, Iris, Hattie, Lola, Cora; "m": the others), as the
// terminal client's data.py.
const FEMALE = new Set(["S02", "S04", "S06", "S08", "S10", "S12", "S14", "S16"]);
export function suspectGender(id) {
  return FEMALE.has(id) ? "f" : "m";
}

export function capitalize(text) {
  const s = String(text);
  return s.charAt(0).toUpperCase() + s.slice(1);
}

// The server bots' levels (add_bot `kind`, players[].bot; create_table `handover_bot`), in the
// order offered: [kind, word, what it means to a new player], the words read in the page's
// language when used. "normal" is the default.
export const BOT_LEVELS = ["easy", "normal", "strong"].map((kind) => Object.defineProperties([kind], {
  1: { enumerable: true, get: () => t(`data.bot.${kind}`) },
  2: { enumerable: true, get: () => t(`data.bot.${kind}.what`) },
}));

// A bot's level as one word (players[].bot): "greedy" is the old name of "normal"; "random"
// (uniform moves, for tests) stays "random".
export function botLevel(kind) {
  if (kind === "greedy") return "normal";
  return String(kind || "");
}

// A bot's marker after its name: "(bot, strong)".
export function botMark(kind) {
  return t("data.bot_mark", { level: typeof kind === "string" && kind ? botLevel(kind) : "none" });
}

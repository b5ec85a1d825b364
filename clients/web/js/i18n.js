// The browser client's languages (English, Spanish): which one the player reads, its words, and
// the switch between them. Every word a page shows comes from `t(key, args)`: a message of the
// catalogue parts /locales/<lang>/<part>.json (ICU MessageFormat, formatted by the SDK's
// i18n.js as the terminal client's are), loaded once by app.js before the first page renders.
// A sentence is one message (never joined from translated fragments); players' names are
// arguments shown as text nodes, isolated (<bdi>) where they sit inside a sentence.
//
// Error codes are worded by codeText(code) (errorText(err) for anything thrown): the sentences the server publishes at
// /errors.<lang>.json (English: the protocol's code registry; Spanish: the SDK's errors.es.json,
// which the terminal client reads too), never the server's English `message` or `detail`.
//
// The language: localStorage "echoridge.lang" when set (the header's switch), else the first
// of navigator.languages this client speaks ("es-MX" -> es), else English.

import { formatMessage, pluralCategory as category } from "/sdk/i18n.js";
import { loadLogText } from "/sdk/logtext.js";

export const LANGUAGES = [["en", "English"], ["es", "Español"]];
export const PARTS = ["pages", "table", "help", "textmode"];
export const STORAGE_KEY = "echoridge.lang";
const SUPPORTED = new Set(LANGUAGES.map(([code]) => code));

let current = "en";
let messages = new Map();
let log = null;

// The language to use: `stored` if supported, else the first of `preferred` (BCP 47 tags)
// whose primary subtag is supported, else "en".
export function pickLanguage(stored, preferred = []) {
  if (stored && SUPPORTED.has(stored)) return stored;
  for (const tag of preferred || []) {
    const primary = String(tag).toLowerCase().split(/[-_]/)[0];
    if (SUPPORTED.has(primary)) return primary;
  }
  return "en";
}

function stored() {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null; // storage disabled
  }
}

async function fetchJSON(url) {
  const reply = await fetch(url, { cache: "no-cache" });
  if (!reply.ok) throw new Error(`${url}: HTTP ${reply.status}`);
  return reply.json();
}

// Picks the language, sets <html lang>, loads its catalogue parts (one key -> message map; a key
// in two parts is an error, logged) and the log's catalogue (/logtext.<lang>.json).
export async function loadLanguage() {
  const preferred = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language];
  current = pickLanguage(stored(), preferred);
  document.documentElement.lang = current;
  const fetched = (url) =>
    fetchJSON(url).catch((err) => {
      console.error(`i18n: ${err.message}`);
      return {};
    });
  const [errors, ...parts] = await Promise.all([
    fetched(`/errors.${current}.json`),
    ...PARTS.map((part) => fetched(`/locales/${current}/${part}.json`)),
  ]);
  const merged = new Map();
  parts.forEach((catalogue, i) => {
    for (const [key, message] of Object.entries(catalogue)) {
      if (key.startsWith("_")) continue; // a comment
      if (merged.has(key)) console.error(`i18n: ${key} is in two parts (${PARTS[i]} and another)`);
      else merged.set(key, message);
    }
  });
  for (const [code, sentence] of Object.entries(errors.errors || {})) merged.set(`error.${code}`, sentence);
  messages = merged;
  log = await loadLogText(`/logtext.${current}.json`).catch((err) => {
    console.error(`i18n: ${err.message}`);
    return null;
  });
  return current;
}

// The message of `key` in the current language with `args` filled in. A missing key (or a
// message that does not format) is logged and the key shown: the tests make sure none is.
export function t(key, args = {}) {
  const message = messages.get(key);
  if (message === undefined) {
    console.error(`i18n: no message ${key} in ${current}`);
    return key;
  }
  try {
    return formatMessage(message, args, current);
  } catch (err) {
    console.error(`i18n: ${key}: ${err.message}`);
    return key;
  }
}

// Whether the current language has a message for `key`.
export function has(key) {
  return messages.has(key);
}

// An error code (an error frame's or a refusal's `code`) in words: its sentence, else a sentence
// naming the code.
export function codeText(code) {
  return messages.has(`error.${code}`) ? t(`error.${code}`) : t("error.unknown", { code: String(code) });
}

// Anything thrown in words: a refusal (an Error with a `code`: the SDK's Refused) by its code,
// a lost or unreachable connection (the SDK's Lost) as such, anything else as a failure.
export function errorText(err) {
  if (err && typeof err.code === "string" && err.code) return codeText(err.code);
  if (err && err.name === "Lost") return t("error.lost");
  return t("error.failed", { problem: String((err && err.message) || err) });
}

const MARK = /\uE000(\d+)\uE001/;

// `key`'s message with elements among its arguments (a seat's badge, a link, a name in <bdi>):
// an array of text and those elements, in the message's order, for h(...) to append. A
// sentence with a part that is an element stays one message.
export function tx(key, args = {}) {
  const nodes = [];
  const plain = {};
  for (const [name, value] of Object.entries(args)) {
    if (typeof Node !== "undefined" && value instanceof Node) {
      plain[name] = `\uE000${nodes.length}\uE001`;
      nodes.push(value);
    } else {
      plain[name] = value;
    }
  }
  const text = t(key, plain);
  if (!nodes.length) return [text];
  const used = new Set(); // an element named twice appears twice (a copy the second time)
  return text.split(MARK).map((part, i) => {
    if (i % 2 === 0) return part;
    const node = nodes[Number(part)];
    if (used.has(node)) return node.cloneNode(true);
    used.add(node);
    return node;
  }).filter((part) => part !== "");
}

// A player's own text (a name, a handle) as an isolated element inside a sentence: its
// direction is its own (an Arabic or Persian name keeps its order, the words around it theirs).
export function bdi(text) {
  const el = document.createElement("bdi");
  el.textContent = String(text);
  return el;
}

// "en" | "es".
export function language() {
  return current;
}

// The log's catalogue in the current language (logtext.<lang>.json), loaded by loadLanguage.
export function logText() {
  return log;
}

// Remembers `lang` and reloads the page in it.
export function setLanguage(lang) {
  if (!SUPPORTED.has(lang)) return;
  try {
    localStorage.setItem(STORAGE_KEY, lang);
  } catch {
    // storage disabled: this page only
  }
  location.reload();
}

// The CLDR plural category of `n` in the current language.
export function pluralCategory(n) {
  return category(n, current);
}

// "a, b and c" / "a, b y c".
export function andList(items) {
  return new Intl.ListFormat(current, { style: "long", type: "conjunction" }).format(items.map(String));
}

// A number as the language writes it.
export function formatNumber(n, options = {}) {
  return new Intl.NumberFormat(current, options).format(n);
}

// A date (a Date, or epoch milliseconds / seconds as given by `seconds`) as the language writes
// it; `options` as Intl.DateTimeFormat's.
export function formatDate(date, options = { dateStyle: "medium" }) {
  return new Intl.DateTimeFormat(current, options).format(date instanceof Date ? date : new Date(date));
}

// The header's language switch (index.html's <select id="language">): its options, the current
// language chosen, and a change remembered and applied.
export function mountLanguageSwitch(select) {
  if (!select) return;
  select.replaceChildren(
    ...LANGUAGES.map(([code, name]) => {
      const option = document.createElement("option");
      option.value = code;
      option.lang = code;
      option.textContent = name;
      option.selected = code === current;
      return option;
    }),
  );
  select.addEventListener("change", () => setLanguage(select.value));
}

// index.html's own words: [data-i18n] elements get t(key) as their text, [data-i18n-label]
// ones as their aria-label.
export function translateStatic(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-label]")) el.setAttribute("aria-label", t(el.dataset.i18nLabel));
}

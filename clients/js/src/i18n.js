// Messages in ICU MessageFormat: the syntax of our catalogues (logtext.<language>.json, the
// browser client's locales/<language>/*.json, the terminal's), the same subset and the same
// semantics as the Python SDK's echoridge_client/i18n.py (both are checked against one set of
// vectors, tests/golden/messageformat.json):
//
// - {name}: the argument `name` as text;
// - {n, plural, =0 {...} one {...} other {...}}: the branch for the exact value =N, else for the
//   number's plural category in the language (CLDR, from Intl.PluralRules: zero, one, two, few,
//   many, other), else other; inside a branch # is the number (a list counts its items);
// - {x, select, a {...} other {...}}: the branch named by the value (a boolean is "true" or
//   "false"), else other (gender, kinds);
// - quoting: '' is one apostrophe; an apostrophe before {, } (or # in a plural) starts quoted
//   text up to the next lone apostrophe; any other apostrophe is itself.
//
// Missing arguments, a select or plural without other and unbalanced braces are errors
// (MessageError).

export const CATEGORIES = ["zero", "one", "two", "few", "many", "other"];

export class MessageError extends Error {
  constructor(message) {
    super(message);
    this.name = "MessageError";
  }
}

const POUND = Symbol("#"); // # inside a plural branch

function isSpace(c) {
  return /\s/u.test(c);
}

class Parser {
  constructor(text) {
    this.text = text;
    this.i = 0;
  }

  error(what) {
    return new MessageError(`${what} at ${this.i} in ${JSON.stringify(this.text)}`);
  }

  nodes(inPlural = false, nested = false) {
    const out = [];
    let buf = "";
    const text = this.text;
    const flush = () => {
      if (buf) out.push(buf);
      buf = "";
    };
    while (this.i < text.length) {
      const c = text[this.i];
      if (c === "'") {
        const next = text.slice(this.i + 1, this.i + 2);
        if (next === "'") {
          buf += "'";
          this.i += 2;
        } else if (next === "{" || next === "}" || (inPlural && next === "#")) {
          let end = this.i + 1;
          for (;;) {
            end = text.indexOf("'", end);
            if (end < 0) {
              buf += text.slice(this.i + 1);
              this.i = text.length;
              break;
            }
            if (text.slice(end + 1, end + 2) === "'") {
              end += 2;
              continue;
            }
            buf += text.slice(this.i + 1, end).replaceAll("''", "'");
            this.i = end + 1;
            break;
          }
        } else {
          buf += "'";
          this.i += 1;
        }
      } else if (c === "{") {
        flush();
        out.push(this.argument());
      } else if (c === "}") {
        if (!nested) throw this.error("unbalanced }");
        break;
      } else if (c === "#" && inPlural) {
        flush();
        out.push(POUND);
        this.i += 1;
      } else {
        buf += c;
        this.i += 1;
      }
    }
    flush();
    return out;
  }

  word() {
    const text = this.text;
    const start = this.i;
    while (this.i < text.length && !"{},".includes(text[this.i]) && !isSpace(text[this.i])) this.i += 1;
    return text.slice(start, this.i);
  }

  skipSpace() {
    while (this.i < this.text.length && isSpace(this.text[this.i])) this.i += 1;
  }

  peek() {
    return this.text.slice(this.i, this.i + 1);
  }

  argument() {
    this.i += 1; // {
    this.skipSpace();
    const name = this.word();
    if (!name) throw this.error("an argument without a name");
    this.skipSpace();
    if (this.peek() === "}") {
      this.i += 1;
      return { arg: name };
    }
    if (this.peek() !== ",") throw this.error("expected , or }");
    this.i += 1;
    this.skipSpace();
    const kind = this.word();
    this.skipSpace();
    if (kind !== "plural" && kind !== "select") throw this.error(`unknown argument type '${kind}'`);
    if (this.peek() !== ",") throw this.error("expected ,");
    this.i += 1;
    const options = new Map();
    for (;;) {
      this.skipSpace();
      if (this.peek() === "}") {
        this.i += 1;
        break;
      }
      const key = this.word();
      this.skipSpace();
      if (!key || this.peek() !== "{") throw this.error("expected a selector and {");
      if (kind === "plural" && !CATEGORIES.includes(key) && !key.startsWith("=")) {
        throw this.error(`unknown plural category '${key}'`);
      }
      this.i += 1;
      options.set(key, this.nodes(kind === "plural", true));
      if (this.peek() !== "}") throw this.error("unclosed branch");
      this.i += 1;
    }
    if (!options.has("other")) throw this.error(`${kind} without other`);
    return { choice: name, kind, options };
  }
}

const parsed = new Map();

// The message's nodes (text, {arg}, {choice, kind, options}, #); MessageError if it does not
// parse.
export function parseMessage(text) {
  let nodes = parsed.get(text);
  if (!nodes) {
    nodes = new Parser(String(text)).nodes();
    parsed.set(text, nodes);
  }
  return nodes;
}

// The arguments a message names: name -> "arg", "plural" or "select" (a name used as a
// selector is a selector).
export function messageArguments(text) {
  const out = {};
  const walk = (nodes) => {
    for (const node of nodes) {
      if (typeof node !== "object") continue;
      if (node.arg !== undefined) {
        if (!Object.hasOwn(out, node.arg)) out[node.arg] = "arg";
      } else {
        out[node.choice] = node.kind;
        for (const branch of node.options.values()) walk(branch);
      }
    }
  };
  walk(parseMessage(text));
  return out;
}

const rules = new Map();

// The CLDR plural category of `n` in `language` ("one", "many", ...; Intl.PluralRules).
export function pluralCategory(n, language = "en") {
  let rule = rules.get(language);
  if (!rule) {
    try {
      rule = new Intl.PluralRules(language);
    } catch {
      rule = new Intl.PluralRules("en");
    }
    rules.set(language, rule);
  }
  return rule.select(n);
}

function numberOf(value) {
  if (Array.isArray(value)) return value.length;
  if (value instanceof Set) return value.size;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number") return value;
  const text = String(value).trim();
  const n = Number(text);
  if (!text || Number.isNaN(n)) throw new MessageError(`not a number: ${JSON.stringify(value)}`);
  return n;
}

// `text` with its arguments from `args`, plural categories of `language`; `raw`: values to
// choose plural and select branches by where they differ from the words shown (a count, a
// seat's gender).
export function formatMessage(text, args = {}, language = "en", raw = {}) {
  args = args || {};
  raw = raw || {};
  const value = (name, chooser = false) => {
    if (chooser && Object.hasOwn(raw, name)) return raw[name];
    if (!Object.hasOwn(args, name)) throw new MessageError(`missing argument '${name}' for ${JSON.stringify(text)}`);
    return args[name];
  };
  const run = (nodes, pound) => {
    let out = "";
    for (const node of nodes) {
      if (typeof node === "string") out += node;
      else if (node === POUND) out += pound !== null ? pound : "#";
      else if (node.arg !== undefined) {
        const v = value(node.arg);
        out += v === null || v === undefined ? "" : String(v);
      } else {
        const v = value(node.choice, true);
        if (node.kind === "plural") {
          const n = numberOf(v);
          const shown = String(n);
          const branch = node.options.get(`=${shown}`) || node.options.get(pluralCategory(n, language)) || node.options.get("other");
          out += run(branch, shown);
        } else {
          const key = String(v);
          out += run(node.options.get(key) || node.options.get("other"), pound);
        }
      }
    }
    return out;
  };
  return run(parseMessage(text), null);
}

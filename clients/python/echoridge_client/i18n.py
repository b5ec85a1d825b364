"""Messages in ICU MessageFormat: the syntax of our catalogues (``logtext.<language>.json``, the
terminal client's ``locales/<language>.json``), which the browser client reads too.  This is
the subset we use, formatted as ICU does:

- ``{name}``: the argument ``name`` as text;
- ``{n, plural, =0 {...} one {...} other {...}}``: the branch for the exact value ``=N``, else
  for the number's plural category in the language (CLDR: ``zero``, ``one``, ``two``, ``few``,
  ``many``, ``other``), else ``other``; inside a branch ``#`` is the number (a list counts its
  items);
- ``{x, select, a {...} other {...}}``: the branch named by the value (a boolean is ``true`` or
  ``false``), else ``other`` (gender, kinds);
- quoting: ``''`` is one apostrophe; an apostrophe before ``{``, ``}`` (or ``#`` in a plural)
  starts quoted text up to the next lone apostrophe; any other apostrophe is itself.

The plural category of a number is a language's rule (``plural(n) -> category``): the SDK
knows English's only and stays free of locale libraries; a client registers others
(``set_plural_rule``: the terminal client passes Babel's CLDR rules).  Missing arguments,
a select or plural without ``other`` and unbalanced braces are errors (``MessageError``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

PluralRule = Callable[[float], str]
CATEGORIES = ("zero", "one", "two", "few", "many", "other")


class MessageError(ValueError):
    """A message that does not parse, or an argument it needs is missing."""


def english_plural(n: float) -> str:
    """CLDR's rule for English: ``one`` for 1 (an integer), else ``other``."""
    return "one" if n == 1 and float(n).is_integer() else "other"


PLURAL_RULES: dict[str, PluralRule] = {"en": english_plural}


def set_plural_rule(language: str, rule: PluralRule) -> None:
    """Use ``rule`` for ``language``'s plural categories (e.g. Babel's
    ``Locale.parse(language).plural_form``)."""
    PLURAL_RULES[language] = rule


def plural_rule(language: str) -> PluralRule:
    """``language``'s registered rule, else English's."""
    return PLURAL_RULES.get(language) or PLURAL_RULES.get(language.split("_")[0]) or english_plural


@dataclass(frozen=True)
class Arg:
    name: str


@dataclass(frozen=True)
class Choice:
    name: str
    kind: str  # plural | select
    options: dict[str, tuple[Any, ...]]


POUND = object()  # ``#`` inside a plural branch


class Parser:
    def __init__(self, text: str) -> None:
        self.text, self.i = text, 0

    def error(self, what: str) -> MessageError:
        return MessageError(f"{what} at {self.i} in {self.text!r}")

    def nodes(self, in_plural: bool = False, nested: bool = False) -> tuple[Any, ...]:
        out: list[Any] = []
        buf: list[str] = []
        text = self.text
        while self.i < len(text):
            c = text[self.i]
            if c == "'":
                nxt = text[self.i + 1 : self.i + 2]
                if nxt == "'":
                    buf.append("'")
                    self.i += 2
                elif nxt in ("{", "}") or (in_plural and nxt == "#"):
                    end = self.i + 1
                    while True:
                        end = text.find("'", end)
                        if end < 0:
                            buf.append(text[self.i + 1 :])
                            self.i = len(text)
                            break
                        if text[end + 1 : end + 2] == "'":
                            end += 2
                            continue
                        buf.append(text[self.i + 1 : end].replace("''", "'"))
                        self.i = end + 1
                        break
                else:
                    buf.append("'")
                    self.i += 1
            elif c == "{":
                if buf:
                    out.append("".join(buf))
                    buf = []
                out.append(self.argument())
            elif c == "}":
                if not nested:
                    raise self.error("unbalanced }")
                break
            elif c == "#" and in_plural:
                if buf:
                    out.append("".join(buf))
                    buf = []
                out.append(POUND)
                self.i += 1
            else:
                buf.append(c)
                self.i += 1
        if buf:
            out.append("".join(buf))
        return tuple(out)

    def word(self) -> str:
        text, start = self.text, self.i
        while self.i < len(text) and text[self.i] not in "{}," and not text[self.i].isspace():
            self.i += 1
        return text[start : self.i]

    def skip_space(self) -> None:
        while self.i < len(self.text) and self.text[self.i].isspace():
            self.i += 1

    def argument(self) -> Any:
        self.i += 1  # {
        self.skip_space()
        name = self.word()
        if not name:
            raise self.error("an argument without a name")
        self.skip_space()
        if self.text[self.i : self.i + 1] == "}":
            self.i += 1
            return Arg(name)
        if self.text[self.i : self.i + 1] != ",":
            raise self.error("expected , or }")
        self.i += 1
        self.skip_space()
        kind = self.word()
        self.skip_space()
        if kind not in ("plural", "select"):
            raise self.error(f"unknown argument type {kind!r}")
        if self.text[self.i : self.i + 1] != ",":
            raise self.error("expected ,")
        self.i += 1
        options: dict[str, tuple[Any, ...]] = {}
        while True:
            self.skip_space()
            if self.text[self.i : self.i + 1] == "}":
                self.i += 1
                break
            key = self.word()
            self.skip_space()
            if not key or self.text[self.i : self.i + 1] != "{":
                raise self.error("expected a selector and {")
            if kind == "plural" and key not in CATEGORIES and not key.startswith("="):
                raise self.error(f"unknown plural category {key!r}")
            self.i += 1
            options[key] = self.nodes(in_plural=kind == "plural", nested=True)
            if self.text[self.i : self.i + 1] != "}":
                raise self.error("unclosed branch")
            self.i += 1
        if "other" not in options:
            raise self.error(f"{kind} without other")
        return Choice(name, kind, options)


@cache
def parse(text: str) -> tuple[Any, ...]:
    """The message's nodes (text, ``Arg``, ``Choice``, ``POUND``); ``MessageError`` if it does
    not parse."""
    return Parser(text).nodes()


def arguments(text: str) -> dict[str, str]:
    """The arguments a message names: name -> ``arg``, ``plural`` or ``select`` (a name used as
    a selector is a selector)."""
    out: dict[str, str] = {}

    def walk(nodes: tuple[Any, ...]) -> None:
        for node in nodes:
            if isinstance(node, Arg):
                out.setdefault(node.name, "arg")
            elif isinstance(node, Choice):
                out[node.name] = node.kind
                for branch in node.options.values():
                    walk(branch)

    walk(parse(text))
    return out


def number(value: Any) -> float:
    if isinstance(value, (list, tuple, set, frozenset)):
        return len(value)
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return value
    try:
        return float(str(value))
    except ValueError:
        raise MessageError(f"not a number: {value!r}") from None


def number_text(n: float) -> str:
    return str(int(n)) if float(n).is_integer() else str(n)


def format_message(
    text: str,
    args: Mapping[str, Any] | None = None,
    plural: PluralRule = english_plural,
    raw: Mapping[str, Any] | None = None,
) -> str:
    """``text`` with its arguments from ``args``; ``raw``: values to choose plural and select
    branches by where they differ from the words shown (a count, a seat's gender)."""
    args = args or {}
    raw = raw or {}

    def value(name: str, chooser: bool = False) -> Any:
        if chooser and name in raw:
            return raw[name]
        if name not in args:
            raise MessageError(f"missing argument {name!r} for {text!r}")
        return args[name]

    def run(nodes: tuple[Any, ...], pound: str | None) -> str:
        out: list[str] = []
        for node in nodes:
            if isinstance(node, str):
                out.append(node)
            elif node is POUND:
                out.append(pound if pound is not None else "#")
            elif isinstance(node, Arg):
                v = value(node.name)
                out.append("" if v is None else str(v))
            else:
                v = value(node.name, chooser=True)
                if node.kind == "plural":
                    n = number(v)
                    exact = f"={number_text(n)}"
                    branch = node.options.get(exact)
                    if branch is None:
                        branch = node.options.get(plural(n), node.options["other"])
                    out.append(run(branch, number_text(n)))
                else:
                    key = ("true" if v else "false") if isinstance(v, bool) else str(v)
                    out.append(run(node.options.get(key, node.options["other"]), pound))
        return "".join(out)

    return run(parse(text), None)

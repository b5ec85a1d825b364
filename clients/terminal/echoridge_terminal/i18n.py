"""The terminal client's languages: its words live in ``locales/<language>.json`` (a flat map
of keys such as ``lobby.create`` to ICU MessageFormat messages, the syntax the SDK formats:
``echoridge_client.i18n``), the game log's in the SDK's ``logtext.<language>.json``.

``t(key, **args)`` is a key's message in the current language, filled in; a whole sentence is
always one key (never translated fragments joined: tests/clients/test_i18n.py checks).  The
language is set once at startup (``set_language``): ``--lang``, else the locale's
(``LC_ALL``, ``LC_MESSAGES``, ``LANG``: ``es_ES.UTF-8`` is Spanish), else English.  Plural
categories come from Babel's CLDR rules.  ``error_words(code)`` words an error code from the
catalogue (``error.<code>``: the SDK's ``errortext``, one copy of each language's sentences
for both clients), never from the server's English ``message``.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping
from functools import cache
from importlib import resources

from babel import Locale
from babel.lists import format_list
from textual.binding import Binding
from textual.dom import DOMNode

from echoridge_client import errortext
from echoridge_client.i18n import PluralRule, format_message, set_plural_rule
from echoridge_client.logtext import isolate

LANGUAGES = ("en", "es")
DEFAULT = "en"
_current = DEFAULT

__all__ = ["LANGUAGES", "and_list", "error_words", "isolate", "language", "set_language", "t"]


def from_locale(env: Mapping[str, str] | None = None) -> str:
    """The language the locale names (the first set of ``LC_ALL``, ``LC_MESSAGES``, ``LANG``),
    if we have it; else English."""
    env = os.environ if env is None else env
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var)
        if value:
            code = value.split(".")[0].split("@")[0].split("_")[0].lower()
            return code if code in LANGUAGES else DEFAULT
    return DEFAULT


@cache
def catalogue(lang: str) -> dict[str, str]:
    """``locales/<lang>.json``: key -> message, and ``error.<code>`` for each error code: the
    SDK's sentences (``echoridge_client.errortext``: English is the protocol's registry, Spanish
    the ``errors.es.json`` the browser client reads too), which no file here repeats."""
    source = resources.files("echoridge_terminal").joinpath("locales", f"{lang}.json")
    data = json.loads(source.read_text(encoding="utf-8"))
    words = {str(k): str(v) for k, v in data.items() if not k.startswith("_")}
    words |= {f"error.{code}": sentence for code, sentence in errortext.sentences(lang).items()}
    return words


@cache
def plural(lang: str) -> PluralRule:
    """CLDR's plural rule of ``lang`` (Babel's): number -> category."""
    rule: PluralRule = Locale.parse(lang).plural_form
    return rule


def set_language(lang: str | None = None) -> str:
    """Use ``lang`` (None: the locale's) from now on; the language set."""
    global _current
    lang = lang if lang in LANGUAGES else from_locale() if lang is None else DEFAULT
    set_plural_rule(lang, plural(lang))
    _current = lang
    relabel_bindings()
    return lang


def relabel_bindings() -> None:
    """Key bindings' descriptions (``key.*`` and ``*.key.*`` messages, worded when their class
    was defined) in the current language: every screen's and app's, bindings merged anew."""
    keys = {
        message: key
        for lang in LANGUAGES
        for key, message in catalogue(lang).items()
        if key.startswith("key.") or ".key." in key
    }
    todo: list[type] = [DOMNode]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        bindings = cls.__dict__.get("BINDINGS")
        if not bindings:
            continue
        new = []
        for b in bindings:
            if isinstance(b, Binding) and b.description in keys:
                b = dataclasses.replace(b, description=t(keys[b.description]))
            new.append(b)
        cls.BINDINGS = new  # type: ignore[attr-defined]
    todo = [DOMNode]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        cls._merged_bindings = cls._merge_bindings()  # type: ignore[attr-defined]


def language() -> str:
    return _current


def t(key: str, **args: object) -> str:
    """``key``'s message in the current language with ``args`` (English if the key is missing
    there; the key itself if it is missing everywhere)."""
    message = catalogue(_current).get(key) or catalogue(DEFAULT).get(key)
    if message is None:
        return key
    return format_message(message, args, plural(_current))


def error_words(code: str) -> str:
    """An error code in words (``error.<code>``), the code itself for one we do not know."""
    key = f"error.{code}"
    if key in catalogue(_current) or key in catalogue(DEFAULT):
        return t(key)
    return t("error.unknown", code=code)


def and_list(items: list[str]) -> str:
    """Names in a list with the current language's "and" (``Ada, Bo and Cy``; ``Ada, Bo y
    Cy``): CLDR's list patterns, English without the serial comma as before."""
    if len(items) <= 1:
        return "".join(items)
    if _current == "en":
        return ", ".join(items[:-1]) + " and " + items[-1]
    return str(format_list(items, locale=_current))

"""The second language (Spanish): the catalogues are complete in both languages (the terminal
client's ``locales/*.json``, the log's ``logtext.*.json``, an ``error.CODE`` for every code),
with the same ICU arguments; the ICU MessageFormat subset formats plurals, selects, ``#`` and
quoting as ICU does; no terminal module builds a sentence from translated fragments; players'
names in Arabic or Persian are bidi-isolated in both languages."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from babel import Locale

from echoridge_client import errortext, logtext
from echoridge_client.i18n import MessageError, arguments, english_plural, format_message
from echoridge_client.logtext import FSI, PDI, render, seat_names
from echoridge_protocol.codes import ALL_CODES
from echoridge_terminal import i18n

TERMINAL = Path(i18n.__file__).parent
SDK = Path(logtext.__file__).parent
ES = Locale.parse("es").plural_form


def load(path: Path) -> dict[str, str]:
    return {k: v for k, v in json.loads(path.read_text(encoding="utf-8")).items() if k[0] != "_"}


def log_messages(lang: str) -> dict[str, str]:
    data = json.loads((SDK / f"logtext.{lang}.json").read_text(encoding="utf-8"))
    out = {f"entries.{k}": v for k, v in data["entries"].items()}
    out |= {f"reasons.{k}": v for k, v in data["reasons"].items()}
    out |= {f"events.{k}.{f}": v for k, e in data["events"].items() for f, v in e.items()}
    out |= {f"values.{k}.{a}": v for k, w in data["values"].items() for a, v in w.items()}
    return out


@pytest.mark.parametrize("kind", ["terminal", "logtext"])
def test_every_key_is_in_both_languages_with_the_same_arguments(kind: str) -> None:
    if kind == "terminal":
        en, es = i18n.catalogue("en"), i18n.catalogue("es")  # with the SDK's error sentences
    else:
        en, es = log_messages("en"), log_messages("es")
    assert sorted(set(en) - set(es)) == [], "keys missing in Spanish"
    assert sorted(set(es) - set(en)) == [], "keys missing in English"
    for key in en:
        assert set(arguments(en[key])) == set(arguments(es[key])), key


def test_every_error_code_has_a_sentence_in_both_languages() -> None:
    for lang in i18n.LANGUAGES:
        words = i18n.catalogue(lang)
        missing = [c for c in ALL_CODES if f"error.{c}" not in words]
        assert missing == [], (lang, missing)
        assert errortext.sentences(lang).keys() == ALL_CODES.keys()  # (and no code not in it)
        for code, sentence in errortext.sentences(lang).items():
            assert arguments(sentence) == {}, code
            assert format_message(sentence) == words[f"error.{code}"].replace("''", "'"), code
    assert errortext.sentences("en") == ALL_CODES  # English is the registry, copied nowhere


def test_the_error_sentences_are_in_one_file_only() -> None:
    """The shared Spanish sentences (the SDK's errors.es.json, which the browser fetches too)
    are not repeated in the terminal's catalogue."""
    for lang in i18n.LANGUAGES:
        own = load(TERMINAL / f"locales/{lang}.json")
        assert [k for k in own if k.startswith("error.") and k != "error.unknown"] == []


VECTORS = json.loads(
    (Path(__file__).parents[1] / "golden" / "messageformat.json").read_text(encoding="utf-8")
)  # read by the JavaScript SDK's test too (clients/js/test/i18n.test.js): the two cannot drift
RULES = {"en": english_plural, "es": ES}


def test_the_formatter_follows_icu_and_cldr() -> None:
    assert len(VECTORS["format"]) >= 20
    for v in VECTORS["format"]:
        got = format_message(v["message"], v["args"], RULES[v.get("language", "en")], v.get("raw"))
        assert got == v["expect"], v
    for v in VECTORS["errors"]:
        with pytest.raises(MessageError):
            format_message(v["message"], v.get("args", {}))
    for v in VECTORS["arguments"]:
        assert arguments(v["message"]) == v["expect"], v


def test_the_language_comes_from_the_locale() -> None:
    assert i18n.from_locale({"LANG": "es_ES.UTF-8"}) == "es"
    assert i18n.from_locale({"LC_ALL": "en_GB.UTF-8", "LANG": "es_MX"}) == "en"
    assert i18n.from_locale({"LC_MESSAGES": "es", "LANG": "C"}) == "es"
    assert i18n.from_locale({"LANG": "fr_FR.UTF-8"}) == "en"
    assert i18n.from_locale({}) == "en"


def test_spanish_words_with_plurals_in_the_terminal() -> None:
    try:
        i18n.set_language("es")
        assert i18n.t("lobby.create") == "Crear mesa"
        assert i18n.error_words("table/full") == "Todas las plazas de esa mesa están ocupadas."
        names = ["Ana", "Bo"]
        assert render({"kind": "force_deck_shuffled", "count": 1}, names, language="es") == (
            "Se barajó el mazo de Fuerza (1 carta)"
        )
        ended = render({"kind": "game_ended", "winners": [0, 1]}, names, language="es")
        assert ended == "La partida ha terminado. Ganan: Ana, Bo"
    finally:
        i18n.set_language("en")
    assert i18n.t("lobby.create") == "Create table"


@pytest.mark.parametrize("lang", ["en", "es"])
def test_rtl_names_are_isolated_in_the_log_and_the_chat(lang: str) -> None:
    names = seat_names([{"name": "مريم"}, {"name": "Ada"}])
    assert names == [f"{FSI}مريم{PDI}", "Ada"]
    line = render({"kind": "accused.others", "seat": 0, "to": [0]}, names, 1, language=lang)
    assert f"{FSI}مريم{PDI}" in line and line.index(FSI) < line.index(PDI)
    try:
        i18n.set_language(lang)
        said = i18n.t("waiting.joined", table="t-1", name=i18n.isolate("سارا"))
        assert f"{FSI}سارا{PDI}" in said
    finally:
        i18n.set_language("en")


#: The modules whose words are in locales/: every module of the package but ``EXCLUDED``.
#: None is excluded: the modules with no words at all (``__init__``, ``i18n`` itself,
#: ``idstore``, ``coop``, ``rematch``) pass the scan as they are, and must stay that way.
EXCLUDED: frozenset[str] = frozenset()
TRANSLATED = sorted(p.name for p in TERMINAL.glob("*.py") if p.name not in EXCLUDED)
UI_CALLS = {"Static", "Label", "Button", "Binding", "notify", "Checkbox", "RadioButton", "status",
            "Text", "append", "write", "add_column", "Option"}  # Rich text and table parts too


def is_t(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and getattr(node.func, "id", None) == "t"


@pytest.mark.parametrize("module", sorted(p.name for p in TERMINAL.glob("*.py")))
def test_no_sentence_is_built_from_translated_fragments(module: str) -> None:
    """A translated sentence is one message: ``t(a) + t(b)``, ``t(a) + "..."``, an f-string
    around ``t(...)`` or ``"".join`` of translations splits a sentence a translator cannot
    reorder (Spanish puts words elsewhere): use one key with ICU arguments instead."""
    tree = ast.parse((TERMINAL / module).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            sides = (node.left, node.right)
            if any(is_t(s) for s in sides) and not all(
                (isinstance(s, ast.Constant) and s.value in ("\n", " ")) or is_t(s) for s in sides
            ):
                pytest.fail(f"{module}:{node.lineno}: a translation joined with other text")
            if all(is_t(s) for s in sides):
                pytest.fail(f"{module}:{node.lineno}: two translations joined")
        if isinstance(node, ast.JoinedStr) and any(
            isinstance(v, ast.FormattedValue) and is_t(v.value) for v in node.values
        ):
            pytest.fail(f"{module}:{node.lineno}: an f-string around a translation")
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", None) == "join"
            and any(is_t(n) for a in node.args for n in ast.walk(a))
        ):
            pytest.fail(f"{module}:{node.lineno}: translations joined")


@pytest.mark.parametrize("module", TRANSLATED)
def test_no_english_literal_is_shown_by_a_translated_module(module: str) -> None:
    tree = ast.parse((TERMINAL / module).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
        if name not in UI_CALLS:
            continue
        shown = node.args[2:3] if name == "Binding" else node.args[:1]
        for arg in shown:
            if isinstance(arg, (ast.Constant, ast.JoinedStr)):
                text = arg.value if isinstance(arg, ast.Constant) else "".join(
                    v.value for v in arg.values if isinstance(v, ast.Constant)
                )  # an f-string's own words (not the names of what it fills in)
                if isinstance(text, str) and re.search(r"[^\W\d_]{2}", text):  # a word:
                    # single letters are the board's symbols (I, W, S, K, H), explained in words
                    pytest.fail(f"{module}:{node.lineno}: {text!r} is not translated")

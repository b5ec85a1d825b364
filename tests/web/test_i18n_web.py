"""The browser client's languages (clients/web/js/i18n.js, clients/web/locales/).

- The catalogue: every part (pages, table, help, textmode) has the same keys in English and in
  Spanish with the same ICU arguments, every message parses, no key is in two parts, no message
  is empty, and every key a module names literally (``t("...")``) exists.
- No module builds a sentence from translated fragments (``t(a) + ...``, a template literal
  around ``t(...)``, ``[t(a), ...].join``) nor hides ``t`` behind a variable of that name.
- The language comes from ``navigator.languages`` and the header's switch is remembered across
  reloads; the error codes' sentences come from the server (/errors.<lang>.json: English is the
  protocol's registry, Spanish the SDK's errors.es.json that the terminal client reads too).
- In Spanish, the lobby, the waiting room, a player's page, the leaderboard, the claim page and a
  replay show no common English words (visible text, aria-labels, titles, placeholders), with
  screenshots and axe; names in Arabic and Persian sit isolated (<bdi>) inside English and
  Spanish sentences.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests need Playwright (the dev extra)")

from playwright.sync_api import expect

from echoridge_client import errortext
from echoridge_client.i18n import MessageError, arguments
from echoridge_client.lobby import Lobby
from echoridge_protocol.codes import ALL_CODES
from tests.e2e.conftest import ServerProcess
from tests.web.a11y import assert_accessible
from tests.web.conftest import base_url

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "clients" / "web"
LOCALES = WEB / "locales"
PARTS = ("pages", "table", "help", "textmode")
LANGUAGES = ("en", "es")
T = TypeVar("T")


def part(lang: str, name: str) -> dict[str, str]:
    data = json.loads((LOCALES / lang / f"{name}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{lang}/{name}.json is not an object"
    return {str(k): v for k, v in data.items() if not str(k).startswith("_")}


def catalogue(lang: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for name in PARTS:
        out |= part(lang, name)
    return out


# --- the catalogue ------------------------------------------------------------------------------


def test_every_key_is_in_both_languages_with_the_same_arguments() -> None:
    en, es = catalogue("en"), catalogue("es")
    assert sorted(set(en) - set(es)) == [], "keys missing in Spanish"
    assert sorted(set(es) - set(en)) == [], "keys missing in English"
    wrong = []
    for key in sorted(en):
        try:
            if set(arguments(en[key])) != set(arguments(es[key])):
                wrong.append(key)
        except MessageError as err:
            wrong.append(f"{key}: {err}")
    assert wrong == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_key_is_in_two_parts_and_no_message_is_empty(lang: str) -> None:
    seen: dict[str, str] = {}
    for name in PARTS:
        for key, message in part(lang, name).items():
            assert key not in seen, f"{key} is in {seen[key]}.json and {name}.json"
            seen[key] = name
            empty = not (isinstance(message, str) and message.strip())
            assert not empty, f"{lang}/{name}.json: {key} is empty"


# t("key"), tx("key"): the keys the modules name literally (a key made at run time, such as
# t(`lobby.column.${c}`), is checked by the pages that show it)
LITERAL_KEY = re.compile(r"(?<![\w.$])tx?\(\s*\"([A-Za-z0-9_./-]+)\"")


def test_every_key_a_module_names_exists() -> None:
    en = catalogue("en") | {f"error.{code}": "" for code in ALL_CODES}
    missing = []
    for module in sorted(WEB.glob("js/*.js")):
        for key in LITERAL_KEY.findall(module.read_text(encoding="utf-8")):
            if key not in en:
                missing.append(f"{module.name}: {key}")
    assert missing == []


# --- no sentence joined from fragments --------------------------------------------------------


def scan(source: str) -> tuple[str, list[list[tuple[str, str]]]]:
    """The code with its strings and comments blanked (parentheses stay balanced), and each
    template literal as its parts: ("text", ...) and ("expr", ...)."""
    out: list[str] = []
    templates: list[list[tuple[str, str]]] = []
    i, n = 0, len(source)
    regex_after = set("(,=:[!&|?{};+-*%<>~^") | {""}

    def last_code() -> str:
        for c in reversed(out):
            if not c.isspace():
                return c[-1]
        return ""

    def template(i: int) -> int:
        """Reads a template literal from source[i] == "`"; returns the index after it."""
        parts: list[tuple[str, str]] = []
        text: list[str] = []
        i += 1
        while i < n and source[i] != "`":
            if source[i] == "\\":
                text.append(source[i : i + 2])
                i += 2
            elif source.startswith("${", i):
                parts.append(("text", "".join(text)))
                text = []
                depth, j = 1, i + 2
                while j < n and depth:
                    c = source[j]
                    if c == "`":
                        j = template(j)
                        continue
                    if c in "\"'":
                        q, j = c, j + 1
                        while j < n and source[j] != q:
                            j += 2 if source[j] == "\\" else 1
                    depth += c == "{"
                    depth -= c == "}"
                    j += 1
                parts.append(("expr", source[i + 2 : j - 1]))
                i = j
            else:
                text.append(source[i])
                i += 1
        parts.append(("text", "".join(text)))
        templates.append(parts)
        return i + 1

    while i < n:
        c = source[i]
        if source.startswith("//", i):
            i = source.find("\n", i) if "\n" in source[i:] else n
        elif source.startswith("/*", i):
            i = source.index("*/", i) + 2
        elif c in "\"'":
            j = i + 1
            while source[j] != c:
                j += 2 if source[j] == "\\" else 1
            out.append('""')
            i = j + 1
        elif c == "`":
            i = template(i)
            out.append("``")
        elif c == "/" and last_code() in regex_after | {"n"}:  # a regex literal (after return)
            j, klass = i + 1, False
            while source[j] != "/" or klass:
                klass = (klass or source[j] == "[") and source[j] != "]"
                j += 2 if source[j] == "\\" else 1
            out.append("/r/")
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out), templates


CALL = re.compile(r"(?<![\w.$])(tx?)\(")


def calls(code: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each t(...) / tx(...) call in blanked code."""
    for match in CALL.finditer(code):
        depth, j = 0, match.end() - 1
        while True:
            depth += code[j] == "("
            depth -= code[j] == ")"
            j += 1
            if depth == 0:
                break
        yield match.start(), j


def joined_fragments(source: str) -> list[str]:
    code, templates = scan(source)
    found = []
    for start, end in calls(code):
        before, after = code[:start].rstrip(), code[end:].lstrip()
        if before.endswith("+") or (after.startswith("+") and not after.startswith("++")):
            found.append(f"+ beside {code[start:end][:60]}")
    for parts in templates:
        exprs = [e.strip() for kind, e in parts if kind == "expr"]
        texts = "".join(e for kind, e in parts if kind == "text").strip()
        if any(CALL.match(e) for e in exprs) and (len(exprs) > 1 or texts):
            found.append(f"a template literal around {exprs}")
    for match in re.finditer(r"\[([^\[\]]*)\]\s*\.join\(", code):
        if CALL.search(match.group(1)):
            found.append(f"[...].join of translations: {match.group(0)[:60]}")
    if re.search(r"import \{[^}]*\bt\b[^}]*\} from \"\./i18n\.js\"", source):
        shadows = re.findall(r"\b(?:const|let|var)\s+t\b|\(t\)\s*=>|(?<![\w.$])t\s*=>|\(t,", code)
        found += [f"a variable named t hides the translation: {s}" for s in shadows]
    return found


def test_the_scan_finds_joined_fragments() -> None:
    """The scan itself (so that a module passing it means something)."""
    bad = [
        'x = t("a") + " " + name;',
        "x = `${t(\"a\")} ${t(\"b\")}`;",
        "x = `You are ${t(\"a\")}`;",
        'x = [t("a"), t("b")].join(" ");',
        'import { t } from "./i18n.js";\nlist.map((t) => t.name);',
    ]
    assert all(joined_fragments(source) for source in bad), [joined_fragments(s) for s in bad]
    good = [
        'x = t("a", { name }); y = `${t("b")}`; z = /a"b/.test(w); s = "t(" + q;',
        'x = h("p", {}, t("a"), " ", link); // t("b") + c',
        "x = `${name}: ${value}`;",
    ]
    assert [joined_fragments(source) for source in good] == [[], [], []]


@pytest.mark.parametrize("module", sorted(p.name for p in WEB.glob("js/*.js")))
def test_no_sentence_is_built_from_translated_fragments(module: str) -> None:
    """A translated sentence is one message with arguments: joining translations (or text
    and a translation) makes a sentence a translator cannot reorder."""
    assert joined_fragments((WEB / "js" / module).read_text(encoding="utf-8")) == []


# --- the language and the error sentences -------------------------------------------------------


@pytest.fixture
def context(browser: Any) -> Iterator[Callable[[str], Any]]:
    made: list[Any] = []

    def make(locale: str) -> Any:
        ctx = browser.new_context(locale=locale, viewport={"width": 1280, "height": 900})
        made.append(ctx)
        return ctx

    yield make
    for ctx in made:
        ctx.close()


def test_the_language_comes_from_the_browser_and_the_switch_is_remembered(
    module_server: ServerProcess, context: Callable[[str], Any]
) -> None:
    page = context("es-ES").new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(base_url(module_server) + "/#/")
    page.wait_for_function("() => document.documentElement.lang === 'es'")
    nav = page.get_by_role("navigation", name="Sitio")
    expect(nav.get_by_role("link")).to_have_text(["Sala", "Clasificación"])  # (once drawn)
    assert page.locator("#language").input_value() == "es"
    page.select_option("#language", "en")  # reloads in English, and stays so
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    page.get_by_role("navigation", name="Site").get_by_role("link", name="Leaderboard").wait_for()
    page.reload()
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    assert page.locator("#language").input_value() == "en"
    assert page.evaluate("localStorage.getItem('echoridge.lang')") == "en"
    assert errors == []

    english = context("en-US").new_page()
    english.goto(base_url(module_server) + "/#/leaderboard")
    english.wait_for_function("() => document.title === 'Echo Ridge — leaderboard'")
    mexican = context("es-MX").new_page()
    mexican.goto(base_url(module_server) + "/#/leaderboard")
    mexican.wait_for_function("() => document.title === 'Echo Ridge — clasificación'")
    french = context("fr-FR").new_page()  # a language we do not have: English
    french.goto(base_url(module_server) + "/#/")
    french.wait_for_function("() => document.documentElement.lang === 'en'")


def test_the_server_publishes_the_error_sentences(module_server: ServerProcess) -> None:
    def get(path: str) -> dict[str, Any]:
        with urllib.request.urlopen(base_url(module_server) + path, timeout=10) as reply:
            assert reply.headers["Content-Type"].startswith("application/json")
            return dict(json.load(reply))

    assert get("/errors.en.json") == {"language": "en", "errors": ALL_CODES}
    spanish = get("/errors.es.json")
    assert spanish == {"language": "es", "errors": errortext.sentences("es")}
    assert spanish["errors"].keys() == ALL_CODES.keys()
    assert spanish["errors"]["table/full"] == "Todas las plazas de esa mesa están ocupadas."


def in_thread(work: Callable[[], Awaitable[T]]) -> T:
    """Runs a coroutine in a thread of its own (sync Playwright keeps a loop in this one)."""
    done: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            done.append(asyncio.run(work()))  # type: ignore[arg-type]
        except BaseException as err:  # (handed to the test)
            failure.append(err)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(240)
    assert not worker.is_alive(), "the SDK's work did not end in time"
    if failure:
        raise failure[0]
    return done[0]


# --- the pages in Spanish, and names written right to left -------------------------------------

ARABIC, PERSIAN = "سارا", "مریم"
# Common English words (as whole words): none may show on a page in Spanish. Players' names
# (in <bdi>) and codes are theirs, not the page's.
ENGLISH = re.compile(
    r"\b(the|The|You|you|your|Your|Create|Join|Sign in|Loading|Watch|Replay|Leaderboard|Back to"
    r"|seats?|Seats?|of|and|Play|Players?|Games?|Table|Start|Rating)\b"
)
SHOWN_JS = """() => {
    const out = [];
    const skip = "bdi, code, script, style, noscript, [aria-hidden=true]";
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const el = n.parentElement;
        if (!el || el.closest(skip) || !el.checkVisibility()) continue;
        if (n.textContent.trim()) out.push(n.textContent.trim());
    }
    for (const el of document.querySelectorAll("[aria-label], [title], [placeholder], option")) {
        const box = el.tagName === "OPTION" ? el.closest("select") : el;
        if (!box.checkVisibility() || el.closest(skip)) continue;
        for (const a of ["aria-label", "title", "placeholder"]) {
            if (el.getAttribute(a)) out.push(el.getAttribute(a));
        }
        if (el.tagName === "OPTION") out.push(el.textContent);
    }
    out.push(document.title);
    return out;
}"""


def english_on(page: Any) -> list[str]:
    """The page's texts (visible text, aria-labels, titles, placeholders, options, the title)
    that have a common English word."""
    return [text for text in page.evaluate(SHOWN_JS) if ENGLISH.search(text)]


def bdi_texts(page: Any, selector: str) -> list[str]:
    return page.locator(f"{selector} bdi").all_inner_texts()


def prepare_games(url: str) -> tuple[str, str]:
    """Two signed-in players, one named in Arabic and one in Persian: a rated game played to
    its end, and a public table they both wait at. (finished table, waiting table)"""
    from tests.e2e.test_identities import play_rated

    async def work() -> tuple[str, str]:
        lobbies = [await Lobby.connect(url) for _ in range(2)]
        try:
            for lobby, name in zip(lobbies, (ARABIC, PERSIAN), strict=True):
                await lobby.create_identity(name)
            finished, _ = await play_rated(url, lobbies)
            waiting = (await lobbies[0].create(3, public=True)).table
            for lobby in lobbies:
                await lobby.join(waiting, "ignored")
            return finished, waiting
        finally:
            for lobby in lobbies:
                await lobby.close()

    return in_thread(work)


def check_page(page: Any, screenshots: Path, name: str, what: str) -> None:
    page.screenshot(path=str(screenshots / f"{name}.png"), full_page=True)
    assert english_on(page) == [], f"English words on {what}"
    assert_accessible(page, f"{what} in Spanish")


class Visitor:
    """A browser page in a locale (its own context), its console errors kept."""

    def __init__(self, context: Callable[[str], Any], base: str, locale: str) -> None:
        self.base = base
        self.page = context(locale).new_page()
        self.page.set_default_timeout(15_000)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(f"uncaught: {exc}"))
        self.page.on(
            "console", lambda m: self.errors.append(m.text) if m.type == "error" else None
        )

    def goto(self, path: str) -> None:
        self.page.goto(self.base + path)


def test_the_pages_in_spanish_and_names_written_right_to_left(
    module_server: ServerProcess, context: Callable[[str], Any], screenshots: Path
) -> None:
    base = base_url(module_server)
    finished, waiting = prepare_games(module_server.url)
    lucia = Visitor(context, base, "es-ES")
    page = lucia.page

    # the lobby: the waiting table's players, isolated in the Spanish page
    lucia.goto("/#/")
    row = page.locator(f'tr[data-table="{waiting}"]')
    expect(row).to_be_visible()
    assert sorted(bdi_texts(page, f'tr[data-table="{waiting}"] td.players')) == sorted(
        [ARABIC, PERSIAN]
    )
    expect(page.locator("#create-form h2")).to_have_text("Crear una mesa")
    check_page(page, screenshots, "es-lobby", "the lobby")

    # the leaderboard (once the game is rated) and a player's page, names isolated
    lucia.goto("/#/leaderboard")
    rows = page.locator("#leaderboard tbody tr")
    deadline = time.monotonic() + 30
    while rows.count() < 2:
        assert time.monotonic() < deadline, "the game was not rated within 30 s"
        page.wait_for_timeout(500)
        page.reload()
        page.locator("#leaderboard-page").wait_for()
    assert sorted(bdi_texts(page, "#leaderboard tbody th")) == sorted([ARABIC, PERSIAN])
    check_page(page, screenshots, "es-leaderboard", "the leaderboard")

    lucia.goto(f"/#/player/{ARABIC}")
    expect(page.locator("#player-game-table tbody tr")).to_have_count(1)
    assert bdi_texts(page, "#player-name") == [ARABIC]
    assert PERSIAN in bdi_texts(page, "#player-game-table td.with")
    expect(page.locator("#player-games-title")).to_have_text("Partidas recientes")
    check_page(page, screenshots, "es-player", "a player's page")

    # the claim page
    lucia.goto("/#/claim")
    expect(page.locator("#claim h1")).to_have_text("Iniciar sesión en este dispositivo")
    check_page(page, screenshots, "es-claim", "the claim page")

    # the replay of the finished game, as the Arabic name's seat saw it
    lucia.goto(f"/#/replay/{finished}?seat=0")
    expect(page.locator("#replay-reveals")).to_have_attribute("data-reveals", "ok", timeout=30_000)
    expect(page.locator("#replay-status")).to_contain_text("Jugada 1 de")
    check_page(page, screenshots, "es-replay", "a replay")

    # the waiting room of a table Lucía creates
    lucia.goto("/#/")
    page.fill("#name", "Lucía")
    page.select_option("#seats", "2")
    page.select_option("#bots", "0")
    page.click("#create")
    expect(page.locator("#room-you")).to_contain_text("Ocupas la plaza P1 como")
    expect(page.locator("#room-seats")).to_have_text("1 de 2 plazas ocupadas.")
    check_page(page, screenshots, "es-room", "the waiting room")

    # in English too, the names sit isolated in the sentences around them
    ada = Visitor(context, base, "en-US")
    ada.goto("/#/")
    expect(ada.page.locator(f'tr[data-table="{waiting}"]')).to_be_visible()
    assert len(english_on(ada.page)) > 10  # (the scan finds English where there is some)
    assert sorted(bdi_texts(ada.page, f'tr[data-table="{waiting}"] td.players')) == sorted(
        [ARABIC, PERSIAN]
    )
    ada.page.locator("#open-title").scroll_into_view_if_needed()
    ada.page.screenshot(path=str(screenshots / "en-rtl-names-lobby.png"))
    ada.goto(f"/#/player/{PERSIAN}")
    expect(ada.page.locator("#player-game-table tbody tr")).to_have_count(1)
    assert bdi_texts(ada.page, "#player-name") == [PERSIAN]
    assert ARABIC in bdi_texts(ada.page, "#player-game-table td.with")
    ada.page.screenshot(path=str(screenshots / "en-rtl-names-player.png"))
    assert lucia.errors == [] and ada.errors == []

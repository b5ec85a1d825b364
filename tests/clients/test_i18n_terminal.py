"""The terminal client's words beyond the catalogues' completeness (test_i18n.py): no module of
the package holds an English sentence outside ``t()`` (where the English-literal scan, which
reads only the widgets' own arguments, cannot see it); "How to play", the co-op team's words,
the replay's, durations and a transfer code's expiry come out whole in Spanish (no key left
unworded, no English word), and English as before; a key's description that is one English
message is one Spanish message too (``i18n.relabel_bindings`` finds a binding's key by its
English words)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from rich.errors import StyleSyntaxError
from rich.style import Style

from echoridge.simulate import game_seed, play_random
from echoridge_client.words import duration
from echoridge_protocol.players import REPORT_REASONS
from echoridge_rules import EVERYONE
from echoridge_rules.model import Status
from echoridge_rules.views import Seat as SeatViewer
from echoridge_rules.views import view as project
from echoridge_terminal import i18n, team
from echoridge_terminal.account import expiry_words
from echoridge_terminal.help import how_to_play
from echoridge_terminal.render import Checked
from echoridge_terminal.replaydata import Viewer, refusal_words, secrets, turn_words
from echoridge_terminal.signin import duration_words
from tests.clients.test_i18n import TERMINAL
from tests.clients.test_tui import plain

#: Words of English prose (a string holding two words, one of them one of these, is a sentence).
COMMON = frozenset(
    re.findall(
        r"\w+",
        "the a an is are to of and your you with for not has have this that was it its their be "
        "no yet from will can cannot here there what who when or as into only first on in at by",
    )
)
#: English words a Spanish screen must not show (the game's proper names aside).
ENGLISH = re.compile(
    r"\b(the|and|your|you|with|of|is|are|not|turn|officer|team|chose|accuses|nobody|"
    r"players?|seat|version|before|after|start|Suspects?|Force|murderer|keys?|board|rules)\b"
)
#: A catalogue key left in the words (``t`` returns a key it cannot find).
KEY = re.compile(r"\b(help|city|team|report|replay|ratings|account|signin|player|time)\.[a-z_]")


@contextmanager
def spanish() -> Iterator[None]:
    try:
        i18n.set_language("es")
        yield
    finally:
        i18n.set_language("en")


def is_style(text: str) -> bool:
    try:
        Style.parse(text)
    except StyleSyntaxError:
        return False
    return True


@pytest.mark.parametrize("module", sorted(p.name for p in TERMINAL.glob("*.py")))
def test_no_module_holds_an_english_sentence_outside_t(module: str) -> None:
    """Every string of the module but docstrings, keys (``t``'s first argument) and Rich styles
    (``bold white on red``): none is English prose, shown through ``say``, ``note``, an
    exception's message or a constant."""
    tree = ast.parse((TERMINAL / module).read_text(encoding="utf-8"))
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            skip.add(id(node.value))  # a docstring
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "t" and node.args:
            skip.update(id(n) for n in ast.walk(node.args[0]))
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)) or id(node) in skip:
            continue
        words = [w.strip(".,:;!?()\"“”'") for w in node.value.split()]
        words = [w for w in words if re.fullmatch(r"[A-Za-z]+", w)]
        english = len(words) >= 2 and any(w.lower() in COMMON for w in words)
        if english and not is_style(node.value):
            pytest.fail(f"{module}:{node.lineno}: {node.value!r} is English, not t(...)")


def test_how_to_play_is_whole_in_spanish_and_english() -> None:
    english = plain(how_to_play())
    assert "HOW TO PLAY ECHO RIDGE" in english and "Bring in for Holding" in english
    assert "/protocol/rules.md" in english
    assert not KEY.search(english), KEY.search(english)
    with spanish():
        words = plain(how_to_play())
    assert not KEY.search(words), KEY.search(words)
    for head in ("CÓMO SE JUEGA A ECHO RIDGE", "El objetivo", "Las acciones", "El tablero",
                 "Teclas", "Llevar a custodia", "* Comisaría *", "(solo tú)", "FT",
                 "/protocol/rules.es.md"):  # fmt: skip
        assert head in words, head
    prose = re.sub(r"\S*[/.]\S*[/.]\S*|--\w+", "", words.replace("Echo Ridge", ""))  # no paths
    english_words = ENGLISH.findall(prose)
    assert english_words == [], english_words


def test_the_report_reasons_and_key_descriptions_have_words_in_both_languages() -> None:
    for lang in i18n.LANGUAGES:
        words = i18n.catalogue(lang)
        assert [r for r in REPORT_REASONS if f"report.reason.{r}" not in words] == [], lang
    en, es = i18n.catalogue("en"), i18n.catalogue("es")
    keys = [k for k in en if k.startswith("key.") or ".key." in k]
    spanish_of: dict[str, set[str]] = {}
    for key in keys:
        spanish_of.setdefault(en[key], set()).add(es[key])
    assert {m: s for m, s in spanish_of.items() if len(s) > 1} == {}


def test_durations_and_expiry_in_both_languages() -> None:
    for ms in (1, 40_000, 3_600_000, 7_140_000, 86_400_000 * 3 + 3_600_000 * 5):
        assert duration_words(ms) == duration(ms)  # English as the SDK words it
    assert expiry_words(600_000, now=0).endswith("(in 10 minutes)")
    with spanish():
        assert duration_words(86_400_000 * 3 + 3_600_000 * 5) == "3 días y 5 horas"
        assert duration_words(60_000) == "1 minuto"
        assert expiry_words(60_000, now=0).endswith("(dentro de 1 minuto)")


def coop_views() -> tuple[dict, dict]:
    """A random co-op game for two: a seat's view while the team accuses, and the end."""
    accusing = None
    state = None
    for _, _, state in play_random(2, game_seed(5, 2), mode="cooperative"):
        if state.status is Status.ACCUSING and accusing is None:
            accusing = project(state, SeatViewer(0))
    assert accusing is not None and state is not None and state.status is Status.OVER
    return accusing, project(state, SeatViewer(0))


def test_the_coop_team_in_spanish() -> None:
    accusing, over = coop_views()
    english = plain(team.board(accusing)) + plain(team.result_lines(over))
    assert "The team's accusation" in english and "The team accused" in english
    with spanish():
        words = plain(team.board(accusing)) + plain(team.result_lines(over))
    assert not KEY.search(words), KEY.search(words)
    for said in ("El equipo (cooperativa", "acciones de pistas", "Sospechosos boca arriba",
                 "mano de Fuerza", "La acusación del equipo", "vale la acusación de quien está",
                 "El equipo acusó a"):  # fmt: skip
        assert said in words, said
    assert "¡el equipo gana!" in words or "el equipo pierde" in words
    assert ENGLISH.findall(words) == [], ENGLISH.findall(words)


def test_the_replay_in_spanish() -> None:
    views = [
        (project(state, SeatViewer(0)), project(state, EVERYONE, hindsight=True))
        for n, (_, _, state) in enumerate(play_random(2, game_seed(7, 2)))
        if n in (0, 12)
    ]
    seat_view, everyone = views[-1]
    assert turn_words(seat_view).startswith("Turn ") and " to play" in turn_words(seat_view)
    with spanish():
        now = turn_words(seat_view)
        assert re.match(r"Turno \d+ \((día|noche)\), juega ", now), now
        assert turn_words(views[0][0]).startswith(("Antes de empezar", "Turno 1 (d", "Turno 1 (n"))
        assert Viewer(seat=1).words(seat_view).startswith("Plaza 1 (")
        assert Viewer(everyone=True).words(seat_view) == "Todos (todos los secretos a la vista)"
        refused = refusal_words("table/not_finished", "t-9", "ws://x/ws")
        assert refused.startswith("La partida de la mesa t-9 aún se está jugando")
        assert refusal_words("table/full", "t-9") == (
            "Todas las plazas de esa mesa están ocupadas (table/full)."
        )
        shown = plain(secrets(everyone, Checked.of(None)))
    assert "Todos los secretos en esta versión" in shown and "Mazo de Sospechosos" in shown
    assert re.search(r"(El asesino|La asesina): S\d\d", shown), shown
    assert ENGLISH.findall(shown) == [], ENGLISH.findall(shown)

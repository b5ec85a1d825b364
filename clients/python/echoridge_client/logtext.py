"""The game log in words: each log entry (SPEC.md §6.3; data, never prose) rendered with the
templates of ``logtext.en.json``, the one English catalog both clients read (the browser client
fetches the same file at ``/logtext.en.json``), or of another language's ``logtext.LANG.json``
beside it (``catalog("es")``: Spanish), with the same keys.  Templates are ICU MessageFormat
(``i18n.py``): ``{field}``, and where a language's grammar needs them ``{n, plural, ...}``
(``#``: the number; a list counts its items) and ``{x, select, ...}`` chosen by the entry's own
value of the field (a suspect's id, an evidence kind, a boolean as ``true`` / ``false``); the
English templates use ``{field}`` only.  This module follows the catalog's ``about`` rules,
and nothing else:

- the template is the first that exists of ``KIND.others`` (the entry has ``to``, the viewer is
  not in it, and the log is not whole), ``KIND.FIELD`` for each field of the catalog's
  ``variants`` in order (the entry has that field, not null: the co-op forms), ``KIND.none`` (the
  entry has a ``card`` that is null), ``KIND.yes`` / ``KIND.no`` (the entry has a boolean
  ``success``), ``KIND``;
- ``{field}`` is the entry's field formatted by its name: ``seat``, ``target``, ``resolver``,
  ``lead``: that seat's display name; ``contributors``, ``winners``: display names joined
  (``nobody``: none); ``block``: the block's name from the city (``block_names``), else
  ``(col,row)``; ``path``: blocks joined by an arrow; a field
  named in ``values``: the word given there (a boolean looked up as ``true`` / ``false``); a
  suspect id: the suspect's name; a list: its items joined by commas; a missing field: an
  empty string;
- an entry whose ``to`` holds the viewer (a log that is not whole) is marked: with
  ``team_mark`` when the game is co-op and ``to`` holds every seat (the team was told it, the
  spectators were not), else with ``private_mark``.

A log is *whole* when nothing in it is a redacted form: a fresh welcome's log after the game
(``TableSession.log_whole``), and the entries of the version that ended the game.  Names are the
players' own input: callers show them as text, never as markup.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any
from unicodedata import bidirectional

from echoridge_client.gamedata import SUSPECT_NAMES
from echoridge_client.i18n import arguments, format_message, plural_rule

Entry = dict[str, Any]
EventWords = dict[str, str]  # name, asks, reward, and while / timed when the card has them

SEAT_FIELDS = frozenset({"seat", "target", "resolver", "lead"})
SEATS_FIELDS = frozenset({"contributors", "winners"})
ARROW = " → "
FSI, PDI = "\u2068", "\u2069"  # first strong isolate ... pop directional isolate
RTL = frozenset({"R", "AL"})  # Hebrew, Arabic, Persian, ... letters


def isolate(text: str) -> str:
    """A player's own text (a name, a chat line) isolated from the words around it (Unicode
    bidi isolates) when it has right-to-left letters: an Arabic or Persian name keeps its
    order inside English or Spanish words, and the words around it keep theirs."""
    return f"{FSI}{text}{PDI}" if any(bidirectional(c) in RTL for c in text) else text


def seat_names(players: Sequence[Any]) -> list[str]:
    """Display names per seat from ``view["players"]``: the player's name (``P1``.. when it
    has none) in bidi isolates (``isolate``), ``(bot)`` after the name of a seat the server
    plays."""
    out = []
    for i, p in enumerate(players):
        p = p if isinstance(p, dict) else {}
        name = p.get("name") if isinstance(p.get("name"), str) and p.get("name") else f"P{i + 1}"
        name = isolate(str(name))
        out.append(f"{name} (bot)" if p.get("bot") else name)
    return out


def seat_name(names: Sequence[str], seat: Any, nobody: str = "nobody") -> str:
    if seat is None:
        return nobody
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(names):
        return names[seat]
    return f"P{seat + 1}" if isinstance(seat, int) else str(seat)


HQ_NAME = "Police HQ"  # HQ's name in a view's city (SPEC.md §10.1), worded by ``words.hq``


def block_names(view: Any) -> list[str]:
    """The city's block names in canonical order (``view["city"]["blocks"][i]["name"]``), to
    word blocks by; empty for a view without a city or before the layout is drawn."""
    city = view.get("city") if isinstance(view, dict) else None
    blocks = city.get("blocks") if isinstance(city, dict) else None
    names = [b.get("name") if isinstance(b, dict) else "" for b in blocks or ()]
    return [str(n) for n in names] if all(names) and len(names) == 25 else []


def block_text(block: Any, names: Sequence[str] = ()) -> str:
    """A block ``[col, row]`` in words: its name in the city (``names``), else ``(col,row)``."""
    if isinstance(block, (list, tuple)):
        if names and len(block) == 2 and all(type(x) is int and 1 <= x <= 5 for x in block):
            return str(names[(block[1] - 1) * 5 + block[0] - 1])
        return "(" + ",".join(str(x) for x in block) + ")"
    return str(block)


@dataclass(frozen=True)
class Catalog:
    """One language's templates (the parsed ``logtext.<language>.json``)."""

    language: str
    entries: dict[str, str]
    values: dict[str, dict[str, str]]
    hidden: frozenset[str]
    private_mark: str
    team_mark: str = ""
    variants: tuple[str, ...] = ()
    reasons: dict[str, str] | None = None
    events: dict[str, EventWords] | None = None
    words: dict[str, str] | None = None  # nobody, yes, no

    @classmethod
    def parse(cls, data: dict[str, Any]) -> Catalog:
        return cls(
            language=str(data.get("language", "")),
            entries={str(k): str(v) for k, v in (data.get("entries") or {}).items()},
            values={
                str(k): {str(a): str(b) for a, b in v.items()}
                for k, v in (data.get("values") or {}).items()
            },
            hidden=frozenset(str(k) for k in data.get("hidden") or ()),
            private_mark=str(data.get("private_mark", "")),
            team_mark=str(data.get("team_mark", "")),
            variants=tuple(str(k) for k in data.get("variants") or ()),
            reasons={str(k): str(v) for k, v in (data.get("reasons") or {}).items()},
            events={
                str(k): {str(a): str(b) for a, b in v.items()}
                for k, v in (data.get("events") or {}).items()
            },
            words={str(k): str(v) for k, v in (data.get("words") or {}).items()},
        )

    def word(self, name: str) -> str:
        """``nobody``, ``yes``, ``no`` in the catalog's language (English when it has none)."""
        return (self.words or {}).get(name) or name

    # --- choosing and filling a template ----------------------------------------------------------

    def key(self, entry: Entry, seat: int | None = None, whole: bool = False) -> str | None:
        """The template key for ``entry`` as ``seat`` (None: a spectator) was told it."""
        kind = str(entry.get("kind"))
        to = entry.get("to")
        redacted = isinstance(to, list) and not whole and seat not in to
        if redacted and f"{kind}.others" in self.entries:
            return f"{kind}.others"
        for name in self.variants:
            if entry.get(name) is not None and f"{kind}.{name}" in self.entries:
                return f"{kind}.{name}"
        if "card" in entry and entry["card"] is None and f"{kind}.none" in self.entries:
            return f"{kind}.none"
        success = entry.get("success")
        if isinstance(success, bool):
            yn = f"{kind}.{'yes' if success else 'no'}"
            if yn in self.entries:
                return yn
        return kind if kind in self.entries else None

    def place(self, block: Any, blocks: Sequence[str]) -> str:
        """A block in words; HQ (named ``Police HQ`` on the wire, SPEC.md §10.1) in this
        language (``words.hq``)."""
        text = block_text(block, blocks)
        return self.word("hq") if text == HQ_NAME and self.words and "hq" in self.words else text

    def field(
        self, name: str, value: Any, names: Sequence[str], blocks: Sequence[str] = ()
    ) -> str:
        if value is None:
            return ""
        if name in SEAT_FIELDS:
            return seat_name(names, value, self.word("nobody"))
        if name in SEATS_FIELDS:
            seats = value if isinstance(value, list) else [value]
            return ", ".join(seat_name(names, s) for s in seats) or self.word("nobody")
        if name == "block":
            return self.place(value, blocks)
        if name == "path":
            path = value if isinstance(value, list) else []
            return ARROW.join(self.place(b, blocks) for b in path)
        words = self.values.get(name)
        if words is not None:
            key = ("true" if value else "false") if isinstance(value, bool) else value
            if isinstance(key, str) and key in words:
                return words[key]
        if isinstance(value, str) and value in SUSPECT_NAMES:
            return SUSPECT_NAMES[value]
        if isinstance(value, list):
            return ", ".join(self.field(name, v, names, blocks) or str(v) for v in value)
        if isinstance(value, bool):
            return self.word("yes" if value else "no")
        if isinstance(value, dict):
            return json.dumps(value, sort_keys=True)
        return str(value)

    def text(
        self,
        entry: Entry,
        names: Sequence[str] = (),
        seat: int | None = None,
        whole: bool = False,
        blocks: Sequence[str] = (),
    ) -> str | None:
        """``entry`` in words as ``seat`` sees it (``names``: display names per seat;
        ``blocks``: the city's block names, ``block_names``); None for a kind the catalog does
        not know."""
        key = self.key(entry, seat, whole)
        if key is None:
            return None
        template = self.entries[key]
        args = {f: self.field(f, entry.get(f), names, blocks) for f in arguments(template)}
        raw = {f: entry.get(f) for f, kind in arguments(template).items() if kind != "arg"}
        raw = {f: "" if v is None else v for f, v in raw.items()}
        return format_message(template, args, plural_rule(self.language), raw)

    def reason(self, action: str, code: str, fallback: str = "") -> str:
        """Why ``action`` (a command type) may not be taken now (``you.unavailable``): the
        words of ``"ACTION CODE"``, else of ``"CODE"``, else ``fallback``."""
        reasons = self.reasons or {}
        return reasons.get(f"{action} {code}") or reasons.get(code) or fallback

    def event(self, card: str) -> EventWords:
        """An Event card in words: ``name``, ``asks``, ``reward``, ``while``?, ``timed``?"""
        return dict((self.events or {}).get(card) or {"name": card})

    def fields(self, key: str) -> list[str]:
        """The fields a template names."""
        return list(arguments(self.entries[key]))

    def is_hidden(self, entry: Entry) -> bool:
        """A kind a short log may leave out (the generator's draws, phases)."""
        return str(entry.get("kind")) in self.hidden


def is_private(entry: Entry, seat: int | None, whole: bool = False, team: int = 0) -> bool:
    """Whether ``seat`` was told the whole entry while others got less (``private_mark``);
    ``team``: the seat count of a co-op game (0: not co-op), whose entries told to every seat
    are the team's (``is_team``), not private."""
    to = entry.get("to")
    told = not whole and seat is not None and isinstance(to, list) and seat in to
    return told and not is_team(entry, seat, whole, team)


def is_team(entry: Entry, seat: int | None, whole: bool = False, team: int = 0) -> bool:
    """Whether every seat of a co-op game of ``team`` seats, ``seat`` among them, was told the
    whole entry while spectators got less (the team's shared knowledge: ``team_mark``)."""
    to = entry.get("to")
    if whole or team < 1 or seat is None or not isinstance(to, list) or seat not in to:
        return False
    return set(range(team)) <= set(to)


@cache
def catalog(language: str = "en") -> Catalog:
    """The catalog shipped with the package (``logtext.<language>.json``)."""
    source = resources.files("echoridge_client").joinpath(f"logtext.{language}.json")
    return Catalog.parse(json.loads(source.read_text(encoding="utf-8")))


def render(
    entry: Entry,
    names: Sequence[str] = (),
    seat: int | None = None,
    *,
    whole: bool = False,
    mark: bool = True,
    language: str = "en",
    coop: bool = False,
    blocks: Sequence[str] = (),
) -> str:
    """One entry in words, with the private mark when only ``seat`` (and who else is in
    ``to``) was told all of it, the team mark when in a co-op game (``coop``) every seat of
    ``names`` was; ``blocks``: the city's block names (``block_names(view)``), so blocks read
    as names; an unknown kind comes out as its name."""
    text = catalog(language)
    out = text.text(entry, names, seat, whole, blocks)
    if out is None:
        out = str(entry.get("kind"))
    team = len(names) if coop else 0
    if mark and is_team(entry, seat, whole, team) and text.team_mark:
        out = f"{out} {text.team_mark}"
    elif mark and is_private(entry, seat, whole, team) and text.private_mark:
        out = f"{out} {text.private_mark}"
    return out

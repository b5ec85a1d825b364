"""A finished game replayed from any seat (SPEC.md §4.7): the ``replay`` request's pages turned
into views, version by version, each page's deltas applied to the view it starts from.

``replayed(lobby, table, seat)`` yields a ``ReplayedVersion`` for every version from ``start``
to the game's last: the viewer's whole view then, and that version's log entries as the viewer
knew them.  A page starts from the view the previous one ended at: the server's ``view`` of the
page must equal it (``ReplayError`` otherwise), so pages cannot drift apart.  With ``verify``
(the default) every reveal met on the way is checked against its commitment as during the game
(reveals.py: ``RevealError``).

``check_against_transcript`` is SPEC §4.7's check, with no engine: every view of a replay agrees
with the game's transcript (``page_views`` turns one page as received, a JSON map, into views).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from echoridge_client.errors import ClientError
from echoridge_client.reveals import Verifier
from echoridge_protocol.delta import apply, diff

if TYPE_CHECKING:
    from echoridge_client.lobby import Lobby


class ReplayError(ClientError):
    """A replay whose pages do not agree with each other."""


@dataclass(frozen=True)
class ReplayedVersion:
    version: int
    last: int  # the game's last version
    view: dict[str, Any]
    log: tuple[dict[str, Any], ...]


async def replayed(
    lobby: Lobby,
    table: str,
    seat: int | None,
    *,
    everyone: bool = False,
    start: int = 0,
    verify: bool = True,
) -> AsyncIterator[ReplayedVersion]:
    verifier = Verifier() if verify else None
    here: dict[str, Any] | None = None
    next_start: int | None = start
    while next_start is not None:
        page = await lobby.replay_page(table, seat, everyone=everyone, start=next_start)
        view = dict(page.view)
        if here is None:
            if verifier is not None:
                verifier.check(view)
            yield ReplayedVersion(page.start, page.last, view, tuple(page.log or ()))
        elif diff(here, view):
            raise ReplayError(f"the page from version {page.start} starts from another view")
        for step in page.steps:
            view = apply(view, step.ops)
            if verifier is not None:
                verifier.check(view)
            yield ReplayedVersion(step.version, page.last, view, tuple(step.log or ()))
        here, next_start = view, page.next


def page_views(page: Mapping[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """A ``replay`` page as the wire gives it (a map): (version, the viewer's view) for
    ``start`` and every step."""
    view = dict(page["view"])
    views = [(int(page["start"]), view)]
    for step in page["steps"]:
        view = apply(view, step["ops"])
        views.append((int(step["version"]), view))
    return views


def check_against_transcript(
    views: Iterable[tuple[int, Mapping[str, Any]]],
    transcript: Mapping[str, Any],
    seat: int | None = None,
    *,
    everyone: bool = False,
) -> None:
    """SPEC §4.7: a replay's views agree with the transcript (section 9.4).  The public view at
    version v is ``initial`` with the deltas of entries 1..v applied; a spectator's view is
    exactly that; a seat's is that but for ``you`` and the values of face-down city tokens it
    knew; everyone's is that but for ``you``, ``secrets`` and every token's value; the last
    version's views are ``final`` (a seat's but for ``you``).  A token's value is the one
    ``final.secrets.tokens`` gives for its block.  ``ReplayError`` at the first disagreement."""
    final = transcript["final"]
    values = {tuple(t["block"]): t["value"] for t in (final.get("secrets") or {}).get("tokens", ())}
    public = transcript["initial"]
    publics = [public]
    for entry in transcript["entries"]:
        public = apply(public, entry["delta"])
        publics.append(public)
    last = len(publics) - 1
    for version, view in views:
        if not 0 <= version <= last:
            raise ReplayError(f"version {version} is not in the transcript (0 to {last})")
        if version == last:
            shown, expected = dict(view), dict(final)
            if seat is not None:  # (a seat's own ``you``; everyone's and a spectator's: final's)
                shown.pop("you", None)
                expected.pop("you", None)
            if diff(expected, shown):
                raise ReplayError(f"the view at the last version {version} is not final")
            continue
        shown = dict(view)
        if seat is None and not everyone:
            if diff(publics[version], shown):
                raise ReplayError(f"the view at version {version} is not the transcript's")
            continue
        mine = shown.pop("you", None)
        if seat is not None and mine is not None and mine.get("seat") != seat:
            raise ReplayError(f"the view at version {version} is not seat {seat}'s")
        if everyone:
            shown.pop("secrets", None)
        city = shown.get("city")
        if isinstance(city, Mapping):
            blocks = []
            for block in city.get("blocks", ()):
                clue = block.get("clue")
                if isinstance(clue, Mapping) and clue.get("value") is not None:
                    if values.get(tuple(block["block"])) != clue["value"]:
                        raise ReplayError(
                            f"block {block['block']}'s token at version {version} is not the "
                            "value the transcript reveals"
                        )
                    else:
                        block = {**block, "clue": {**clue, "value": None}}
                blocks.append(block)
            shown["city"] = {**city, "blocks": blocks}
        expected = dict(publics[version])
        expected.pop("you", None)
        if everyone:
            expected.pop("secrets", None)
        if diff(expected, shown):
            raise ReplayError(f"the view at version {version} differs from the transcript's")

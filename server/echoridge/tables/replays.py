"""Replays of finished games (issue 27): a game as one viewer saw it, version by version.

A replay is made from the archive alone.  The kept transcript (tables/transcripts.py) holds every
command and the seeds, so the engine decides the game again, as ``echo-ridge verify`` does, and
every state comes back; the view of a viewer at a version is ``view()`` of that state, the very
projection its sessions were sent during the game (tables/viewers.py: ``viewer_view``), and its
log entries those the game's deltas carried (``told``, for the viewer ``log_viewer`` names).
``everyone`` is the view with every secret of that version (``view(..., hindsight=True)``) and
the log unredacted.  A page is the view at ``start`` and the diffs of the versions after it.

A node keeps the states of the last ``KEPT`` games replayed (a replay is read page after page);
requests for a game being rebuilt wait for that rebuild, and rebuilding and paging return to
the event loop every ``YIELD_EVERY`` versions.  ``rebuild`` and ``page`` are pure (generators
that yield ``None`` where the server may return to its loop; ``done`` runs them at once).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from echoridge.tables.errors import TableError
from echoridge.tables.viewers import SPECTATORS, log_viewer, viewer_view
from echoridge_protocol import diff
from echoridge_protocol import messages as m
from echoridge_protocol.fairness import game_seed
from echoridge_rules import EVERYONE, RuleViolation, State, ViewCache, decide, evolve, view
from echoridge_rules.log import Entry, Told, entries_for, told
from echoridge_rules.rng import Rng
from echoridge_rules.serial import load

KEPT = 8  # games whose states a node keeps for the next pages
PAGE = 100  # versions in a page when the request names no limit
YIELD_EVERY = 8

T = TypeVar("T")


@dataclass(frozen=True)
class Game:
    """A finished game's states (``states[v]``: after version v) and what each was told."""

    states: tuple[State, ...]
    said: tuple[tuple[Told, ...], ...]

    @property
    def last(self) -> int:
        return len(self.states) - 1


class Replays:
    def __init__(self, node: Any) -> None:
        self.node = node
        self._games: OrderedDict[str, Game] = OrderedDict()
        self._building: dict[str, asyncio.Task[Game]] = {}

    async def page(self, request: m.GetReplay) -> m.Replay:
        """One page of a finished game's replay (``page``'s refusals, and the transcript's:
        ``table/not_found``, ``table/not_started``, ``table/not_finished``...)."""
        check(request)
        return await _stepped(page(await self._game(request.table), request))

    async def _game(self, table: str) -> Game:
        game = self._games.get(table)
        if game is not None:
            self._games.move_to_end(table)
            return game
        task = self._building.get(table)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._rebuild(table))
            self._building[table] = task
            task.add_done_callback(lambda t: self._built(table, t))
        return await asyncio.shield(task)

    def _built(self, table: str, task: asyncio.Task[Game]) -> None:
        if self._building.get(table) is task:
            del self._building[table]
        if task.cancelled() or task.exception() is not None:
            return
        self._games[table] = task.result()
        while len(self._games) > KEPT:
            self._games.popitem(last=False)

    async def _rebuild(self, table: str) -> Game:
        return await _stepped(rebuild((await self.node.transcripts.get(table)).document()))


async def _stepped(work: Iterator[T | None]) -> T:
    """Run one of this module's generators, returning to the event loop at each ``None``."""
    for item in work:
        if item is None:
            await asyncio.sleep(0)
        else:
            return item
    raise AssertionError("the generator ended without its result")


def done(work: Iterator[T | None]) -> T:
    """Run one of this module's generators at once (tools and tests)."""
    return next(item for item in work if item is not None)


def check(request: m.GetReplay) -> None:
    """The refusals a request earns before its game is read."""
    if request.everyone and request.seat is not None:
        raise TableError("protocol/bad_field", "Ask for one seat, or for everyone.")


def rebuild(document: dict[str, Any]) -> Iterator[Game | None]:
    """Decide a transcript's commands again: every state and what each version told (``None``
    every ``YIELD_EVERY`` versions, then the game)."""
    try:
        seeds = [bytes.fromhex(s) for s in document["client_seeds"]]
        table = document["table"]
        rng = Rng(game_seed(bytes.fromhex(document["server_seed"]), table, seeds), table)
        entries = list(document["entries"])
    except (KeyError, TypeError, ValueError) as exc:
        raise TableError("table/damaged") from exc  # (a transcript that is not one)
    state = State()
    states: list[State] = [state]
    said: list[tuple[Told, ...]] = [()]
    for n, entry in enumerate(entries, start=1):
        try:
            command = load(entry["command"])
            events = decide(state, command, rng)
        except (RuleViolation, KeyError, TypeError, ValueError) as exc:
            raise TableError("table/damaged") from exc  # (a transcript the engine refuses)
        for e in events:
            state = evolve(state, e)
        states.append(state)
        said.append(tuple(told(state, command, events)))
        if n % YIELD_EVERY == 0:
            yield None
    yield Game(tuple(states), tuple(said))


def page(game: Game, request: m.GetReplay) -> Iterator[m.Replay | None]:
    """One page of ``game``'s replay for ``request`` (``None`` every ``YIELD_EVERY`` versions,
    then the page).  TableError ``protocol/bad_field``: a seat the game has not, ``seat`` with
    ``everyone``, or a ``start`` past the game's last version."""
    check(request)
    everyone = bool(request.everyone)
    players = len(game.states[-1].players)
    if request.seat is not None and request.seat >= players:
        raise TableError("protocol/bad_field", f"That game has seats 0 to {players - 1}.")
    start = request.start or 0
    if start > game.last:
        raise TableError("protocol/bad_field", f"That game's last version is {game.last}.")
    end = min(game.last, start + (request.limit or PAGE))
    key = SPECTATORS if request.seat is None else request.seat
    cache = ViewCache()

    def seen(v: int) -> tuple[dict[str, Any], tuple[Entry, ...] | None]:
        state = game.states[v]
        if everyone:
            shown, who = view(state, EVERYONE, cache, hindsight=True), EVERYONE
        else:
            shown, who = viewer_view(state, key, cache), log_viewer(state, key)
        return shown, tuple(entries_for(game.said[v], who)) or None

    first, log = seen(start)
    steps = []
    before = first
    for v in range(start + 1, end + 1):
        after, entries = seen(v)
        steps.append(m.ReplayStep(version=v, ops=diff(before, after), log=entries))
        before = after
        if v % YIELD_EVERY == 0:
            yield None
    yield m.Replay(
        id=request.id,
        table=request.table,
        seat=request.seat,
        everyone=everyone,
        start=start,
        last=game.last,
        view=first,
        log=log,
        steps=tuple(steps),
        next=end if end < game.last else None,
    )

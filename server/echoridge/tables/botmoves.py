"""The server's bots: the seats it plays and how each decides (SPEC.md §4.4, "Bot levels").

- **Which bot.** A server-side bot's seat (metadata ``bot:N``) is played by its own kind; a
  person's seat handed over (rules/seats.py: away, strikes, vote, "play for me") and the rest of
  a turn that timed out by a bot of the table's ``handover_bot`` level (``normal`` for tables
  made before levels).  Every kind is ``search.make_policy``'s (echoridge_client): ``easy``,
  ``normal`` (= ``greedy``), ``strong``, ``random``.
- **Seeds.** Each decision is seeded by ``TABLE/SEAT/VERSION``, so every node that runs the
  table decides the same command (the strong bot's search too when it is given the same time:
  not always, and then the second node's append is refused as stale or a duplicate of its id
  ``bot:VERSION:SEAT``, whichever lands first).
- **Strong bots off the loop.** A strong decision searches for ``--bot-budget`` seconds: the
  view and the legal commands are taken under the table's lock, the lock is let go while a
  process pool (``StrongBots``, one per node, created at the first strong decision and closed
  with the node; ``--bot-processes``, 0: a thread) searches, and the command is appended only
  if the table is still at that version (else it is dropped: the new version wakes the bot
  again).  A search that fails (an error in it, a broken or stuck pool) never stops the table:
  that decision is the ``normal`` policy's, and it is logged.
"""

from __future__ import annotations

import asyncio
import copy
import multiprocessing
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any

from echoridge.logs import get_logger
from echoridge.store import StoreError
from echoridge.tables.clocks import waiting_on
from echoridge.tables.viewers import viewer_view
from echoridge_client.search import DEFAULT_BUDGET, make_policy, searchable, strong_choice
from echoridge_protocol import messages as m
from echoridge_rules import RuleViolation, State, Status, decide
from echoridge_rules.legal import legal_actions
from echoridge_rules.seats import played_by_server
from echoridge_rules.serial import load, to_plain

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from echoridge.tables.outcome import Outcome
    from echoridge_rules import ViewCache
    from echoridge_rules.commands import Command
    from echoridge_rules.events import Event
    from echoridge_rules.rng import Rng

HANDOVER_BOT = "normal"  # the level of a table's handover bot when its metadata names none
MIN_BUDGET, MAX_BUDGET = 0.01, 10.0  # --bot-budget's bounds
DEFAULT_PROCESSES = 1  # --bot-processes (0: a thread of the server process)
# A strong decision not back after this many budgets (and a few seconds: the pool's first
# worker starts, decisions queue behind others) is given up for the normal policy's.
PATIENCE_BUDGETS, PATIENCE_SECONDS = 20, 5.0

log = get_logger("echoridge.tables")


def normal_choice(view: dict[str, Any], legal: list[dict[str, Any]], seed: bytes) -> Any:
    return make_policy("normal", seed).choose(view, legal)


def default_executor(processes: int) -> Executor | None:
    """A pool of ``processes`` worker processes (spawned: a fresh interpreter, nothing of the
    server's loop or connections in it); None for 0 (a thread)."""
    if processes <= 0:
        return None
    return ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn"))


class StrongBots:
    """The strong bots' searches of one node, off its event loop: in a process pool of
    ``processes`` workers (made by ``factory`` at the first search, made again after it broke),
    or with ``processes`` 0 in a thread (``asyncio.to_thread``).  ``budget``: seconds per
    decision.  ``searches`` and ``fallbacks`` count the decisions searched and those that
    fell back to the normal policy."""

    def __init__(
        self,
        processes: int = DEFAULT_PROCESSES,
        budget: float = DEFAULT_BUDGET,
        factory: Callable[[int], Executor | None] = default_executor,
    ) -> None:
        if processes < 0:
            raise ValueError("--bot-processes is 0 or more")
        if not MIN_BUDGET <= budget <= MAX_BUDGET:
            raise ValueError(f"--bot-budget is {MIN_BUDGET} to {MAX_BUDGET} seconds")
        self.processes = processes
        self.budget = budget
        self._factory = factory
        self._pool: Executor | None = None
        self.searches = 0
        self.fallbacks = 0
        self.closed = False

    @property
    def patience(self) -> float:
        return self.budget * PATIENCE_BUDGETS + PATIENCE_SECONDS

    def _executor(self) -> Executor | None:
        if self._pool is None and self.processes > 0:
            self._pool = self._factory(self.processes)
        return self._pool

    async def choose(
        self, view: dict[str, Any], legal: list[dict[str, Any]], seed: bytes, where: str = ""
    ) -> Any:
        """The strong bot's command; the normal policy's if the search fails (logged)."""
        self.searches += 1
        pool: Executor | None = None
        try:
            if self.closed:
                raise RuntimeError("the node is closing")
            pool = self._executor()
            job: Awaitable[Any]
            if pool is None:  # a thread: it reads the view while the loop goes on, so a copy
                mine = copy.deepcopy(view)
                job = asyncio.to_thread(strong_choice, mine, legal, seed, self.budget)
            else:
                loop = asyncio.get_running_loop()
                job = loop.run_in_executor(pool, strong_choice, view, legal, seed, self.budget)
            async with asyncio.timeout(self.patience):
                choice = await job
            if not isinstance(choice, dict) or choice not in legal:
                raise ValueError(f"the search chose no legal command: {choice!r}")
            return choice
        except Exception as exc:
            self.fallbacks += 1
            if isinstance(exc, BrokenProcessPool):
                self._discard(pool)  # the next search makes a new pool
            log.warning(
                "strong bot failed: normal policy instead",
                table=where,
                error=f"{type(exc).__name__}: {exc}",
            )
            return normal_choice(view, legal, seed)

    def _discard(self, broken: Executor | None = None) -> None:
        """Drop the pool (``broken``: only if it is still the current one, since two searches
        may fail on the same broken pool and the first one's replacement must stay)."""
        if broken is not None and broken is not self._pool:
            return
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the pool (the node is closing): a search still running is not waited for."""
        self.closed = True
        self._discard()


class BotMoves:
    """The bots' moves, for ``TableRunner`` (runner.py) through ``ServerMoves``."""

    node: Any
    table: str
    lock: asyncio.Lock
    closed: bool
    state: State
    meta: dict[str, str]
    bots: dict[int, str]
    views: ViewCache

    if TYPE_CHECKING:

        @property
        def version(self) -> int: ...

        async def _rng(self) -> Rng | None: ...

        async def _append(
            self, seat: int | None, key: str, command: Command, events: list[Event]
        ) -> Outcome: ...

        def _wake_auto_pass(self) -> None: ...

    def _bots(self) -> dict[int, str]:
        """The seats the server plays with a bot from the start (metadata ``bot:N`` = kind)."""
        return {
            int(key[len("bot:") :]): kind
            for key, kind in self.meta.items()
            if key.startswith("bot:") and kind in m.BOT_KINDS
        }

    def _bot_kind(self, seat: int) -> str:
        """The kind of bot that plays ``seat``: its own, or the table's handover level."""
        kind = self.bots.get(seat)
        if kind is not None:
            return kind
        level = self.meta.get("handover_bot", HANDOVER_BOT)
        return level if level in m.BOT_LEVELS else HANDOVER_BOT

    def _wake_bots(self) -> None:
        """Let the seats the server plays move, if the game waits on them.  Each move is decided
        from the state with a seed of (table, seat, version), so every node that runs this
        table decides the same command, and its command id makes a second append a duplicate."""
        self._wake_auto_pass()
        state = self.state
        if self.closed or state.status not in (Status.PLAYING, Status.ACCUSING):
            return
        waiting = waiting_on(state) or ([state.turn.seat] if state.turn else [])
        for seat in waiting:
            if played_by_server(state, seat):
                self._schedule_bot(seat, self.version)

    def _schedule_bot(self, seat: int, version: int, attempt: int = 0) -> None:
        loop = asyncio.get_running_loop()
        delay = self.node.bot_delay if attempt == 0 else retry_delay(attempt)
        loop.call_later(delay, lambda: loop.create_task(self._bot_move(seat, version, attempt)))

    async def _bot_move(self, seat: int, version: int, attempt: int) -> None:
        """Decide and append the move of a seat the server plays, at ``version``.  A strong
        bot's search runs with the lock let go (``StrongBots``), and its command is dropped if
        the table moved on meanwhile."""
        seed = f"{self.table}/{seat}/{version}".encode()
        try:
            async with self.lock:
                if not self._bot_may_move(seat, version):
                    return
                legal = [to_plain(c) for c in legal_actions(self.state, seat)]
                if not legal:
                    return
                seen = bot_view(viewer_view(self.state, seat, self.views), legal)
                kind = self._bot_kind(seat)
                if kind != "strong" or len(legal) == 1 or not searchable(seen):
                    # (a strong bot searches its turns' actions only: the rest is quick)
                    choice = make_policy(kind, seed).choose(seen, legal)
                    await self._append_bot_move(seat, version, choice, kind)
                    return
            choice = await self.node.strong_bots.choose(seen, legal, seed, self.table)
            async with self.lock:
                if not self._bot_may_move(seat, version):
                    return  # (the table moved on: the new version wakes the bot again)
                await self._append_bot_move(seat, version, choice, kind)
        except StoreError:  # Redis is away: the bot tries again (the same command id)
            if not self.closed and self.version == version:
                self._schedule_bot(seat, version, attempt + 1)

    def _bot_may_move(self, seat: int, version: int) -> bool:
        return not self.closed and self.version == version and played_by_server(self.state, seat)

    async def _append_bot_move(self, seat: int, version: int, choice: Any, kind: str) -> None:
        """(Under the lock.)  Append a bot's command, unless the rules refuse it; one log line
        at the level of the commands' (``--move-log-level``)."""
        rng = await self._rng()
        if rng is None:
            return
        try:
            command = load(choice)
            events = decide(self.state, command, rng)
        except RuleViolation:
            return
        outcome = await self._append(seat, f"bot:{version}:{seat}", command, events)
        log.log(
            self.node.move_log_level,
            "bot move",
            table=self.table,
            seat=seat,
            bot=kind,
            command=str(choice.get("type")),
            outcome=outcome.outcome,
            version=outcome.version,
        )


def retry_delay(attempt: int) -> float:
    """Seconds before attempt ``attempt`` (1, 2, ...) of a server move that failed on Redis."""
    return float(min(5.0, 0.1 * 2**attempt))


def bot_view(seen: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    """The seat's view as its bot sees it: the view of a seat the server plays lists nothing
    in ``you.legal`` (SPEC.md §6.1), so the engine's legal commands are put there, as the
    policies read them (a shallow copy: the cached view is never changed)."""
    you = seen.get("you")
    return {**seen, "you": {**you, "legal": legal}} if you is not None else seen

"""One server process's table service: the lobby, the live tables it runs, and their upkeep.

A runner exists while the node has sessions at its table (or a command for it); it is closed a
while after its last session leaves.  Any node can serve any table: runners on different nodes
of one table stay in step through the log.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import Any

from echoridge.logs import get_logger
from echoridge.store import Conflict, Storage
from echoridge.tables.archiving import Archiver
from echoridge.tables.botmoves import StrongBots
from echoridge.tables.clockwork import Clockwork
from echoridge.tables.errors import TableError
from echoridge.tables.expiry import Sweeper
from echoridge.tables.lobby import Lobby, Settings
from echoridge.tables.players import Players
from echoridge.tables.quota import LobbyLimits, Requester
from echoridge.tables.replays import Replays
from echoridge.tables.runner import MakeWelcome, Outcome, Sink, TableRunner
from echoridge.tables.tokens import token_hash
from echoridge.tables.transcripts import Prepared, Transcripts
from echoridge_protocol import messages as m
from echoridge_rules.commands import StopGame

IDLE_RUNNER_SECONDS = 30.0
STARTED_RUNNER_SECONDS = 1.0  # a runner opened by a lobby's start, with no session: its idle time

log = get_logger("echoridge.tables")


class Node:
    def __init__(
        self,
        storage: Storage,
        metrics: Any = None,
        decision_seconds: float = 0,
        limits: LobbyLimits | None = None,
    ) -> None:
        self.storage = storage
        self.id = secrets.token_hex(6)  # names this process in shared state (presence)
        self.decision_seconds = decision_seconds  # 0: decisions never time out
        self.bot_delay = 0.0  # seconds a server-side bot waits before it moves
        # the strong bots' searches, off the event loop (serve --bot-processes, --bot-budget;
        # tables/botmoves.py): its pool is made at the first strong decision
        self.strong_bots = StrongBots()
        self.pass_delay = 2.0  # a seat's auto-pass waits a random 1/2 to 3/2 of this (seconds)
        # the level of the per-command lines (serve --move-log-level): debug, so hidden at the
        # server's info level, unless the operator asks for them
        self.move_log_level = logging.DEBUG
        self.lobby = Lobby(storage, limits)  # (limits: tables/quota.py)
        self.metrics = metrics
        self.runners: dict[str, TableRunner] = {}
        self._opening: dict[str, asyncio.Future[TableRunner]] = {}
        self._reapers: dict[str, asyncio.TimerHandle] = {}
        self.seat_sessions: dict[tuple[str, int], Any] = {}  # (table, seat) -> its session here
        self.clock_index = Clockwork(self)  # deadlines of tables no node may be running
        self.expiry = Sweeper(self)  # tables whose game never started, closed in time
        self.transcripts = Transcripts(self)  # finished games', built once (transcripts.py)
        self.archiver = Archiver(self)  # finished games' live keys released (archiving.py)
        self.players = Players(storage)  # identities and ratings (players.py)
        self.jwt: Any = None  # serve --auth-jwt-key: a net.jwtauth.JwtVerifier
        self.replays = Replays(self)  # finished games as one viewer saw them (replays.py)
        self.clock_floor: int | None = None  # the shortest clock times allowed (tests, demos)
        self.notices: Any = None  # play by notification (notices.py), with --notify-url

    # --- runners --------------------------------------------------------------------------------

    async def runner(self, table: str) -> TableRunner:
        """The live runner of a table on this node, opened on first use."""
        runner = self.runners.get(table)
        if runner is not None and not runner.closed:
            self._keep(table)
            return runner
        pending = self._opening.get(table)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[TableRunner] = asyncio.get_running_loop().create_future()
        self._opening[table] = future
        try:
            runner = TableRunner(self, table)
            await runner.open()
            self.runners[table] = runner
            future.set_result(runner)
            self._set_tables_gauge()
            log.info("table opened", table=table, version=runner.version, epoch=runner.epoch)
            self._keep(table)
            return runner
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "never retrieved" warning
            raise
        finally:
            self._opening.pop(table, None)

    def _keep(self, table: str, seconds: float = IDLE_RUNNER_SECONDS) -> None:
        """(Re)arm the reaper that closes an idle runner."""
        self._unkeep(table)
        loop = asyncio.get_running_loop()
        self._reapers[table] = loop.call_later(
            seconds, lambda: loop.create_task(self._reap(table))
        )

    def _unkeep(self, table: str) -> None:
        """Forget a table's reaper (there is one while its runner is in ``runners``)."""
        handle = self._reapers.pop(table, None)
        if handle is not None:
            handle.cancel()

    async def _reap(self, table: str) -> None:
        runner = self.runners.get(table)
        if runner is None:  # (closed otherwise meanwhile)
            self._unkeep(table)
            return
        if runner.sessions:
            self._keep(table)
            return
        del self.runners[table]
        self._reapers.pop(table, None)
        await runner.close()
        self._set_tables_gauge()
        log.info("table closed", table=table, version=runner.version)

    def _set_tables_gauge(self) -> None:
        if self.metrics is not None:
            self.metrics.tables.set(len(self.runners))

    def observe_append(self, result: object, seconds: float) -> None:
        if self.metrics is not None and isinstance(result, Conflict):
            self.metrics.append_conflicts.inc()

    def log_timeout(self, table: str, kind: str, seat: int, outcome: Outcome) -> None:
        log.info(
            "seat handed over" if kind == "handover" else f"{kind} timed out",
            table=table,
            seat=seat,
            outcome=outcome.outcome,
            version=outcome.version,
        )

    def start_tasks(self) -> None:
        """Start the node's own tasks (the clock index, the expiry of unstarted tables); a
        running loop is needed."""
        self.clock_index.start()
        self.expiry.start()
        self.archiver.start()

    async def close(self) -> None:
        await self.clock_index.close()
        await self.expiry.close()
        await self.archiver.close()
        await self.transcripts.close()
        if self.notices is not None:
            await self.notices.close()
        for handle in self._reapers.values():
            handle.cancel()
        self._reapers.clear()
        for runner in list(self.runners.values()):
            await runner.close()
        self.runners.clear()
        self._set_tables_gauge()
        self.strong_bots.close()

    # --- sessions -------------------------------------------------------------------------------

    async def attach(
        self,
        table: str,
        sink: Sink,
        key: int,
        resume: m.Resume | None,
        welcome: MakeWelcome,
        credential: str | None = None,
    ) -> TableRunner:
        runner = await self.runner(table)
        await runner.attach(sink, key, resume, welcome, credential)
        return runner

    async def command(
        self, table: str, seat: int, command_id: str, expected: int, plain: dict[str, Any]
    ) -> Outcome:
        runner = await self.runner(table)
        return await runner.submit(seat, command_id, expected, plain)

    # --- the lobby ------------------------------------------------------------------------------

    async def create(
        self, settings: Settings, who: Requester | None = None
    ) -> tuple[str, bytes, str]:
        """A new table: its id, its server seed's commitment and its creator's token (within
        ``who``'s limits: tables/quota.py)."""
        table, commit, owner = await self.lobby.create(settings, who)
        log.info(
            "table created",
            table=table,
            seats=settings.seats,
            public=settings.public,
            clock=settings.clock.preset,
            mode=settings.mode,
            handover_bot=settings.handover_bot,
            rate_bots=settings.rate_bots,
        )
        return table, commit, owner

    async def rematch(self, table: str, token: str) -> tuple[str, bytes, str | None]:
        """The rematch of a finished game (tables/lobby.py): the new table's id, commitment and
        owner token (None unless this request made it).  The old table's sessions here are
        told at once; other nodes notice it in its metadata (tables/rematch.py)."""
        new, commit, owner = await self.lobby.rematch(table, token)
        runner = self.runners.get(table)
        if runner is not None and not runner.closed:
            runner.rematch.known(new)
        log.info("rematch", table=table, next=new, made=owner is not None)
        return new, commit, owner

    async def remove(self, table: str, owner: str, seat: int) -> None:
        """The creator frees a seat before the start; its sessions are closed as for a
        ``leave`` (here at once, on other nodes when their runner notices)."""
        held = await self.lobby.remove(table, owner, seat)
        runner = self.runners.get(table)
        if runner is not None:
            runner.seat_left(seat, held)
        log.info("seat removed", table=table, seat=seat)

    async def close_table(self, table: str, owner: str) -> None:
        """The creator closes a table that never started."""
        await self.lobby.close(table, owner)
        await self.closed_here(table)
        log.info("table closed by its creator", table=table)

    async def stop_game(self, table: str, reason: str = "operator") -> Outcome:
        """Stop a started game before its end (the admin API's close): the server appends
        ``StopGame``, the game is over with no winner, its log says ``game_stopped`` to every
        viewer, and it is archived (not rated) as any finished game.  Its command id is the same
        on every node, so a second try is a ``duplicate``; a game already over is refused
        (``rules/game_over``), one not started ``rules/game_not_started``."""
        runner = await self.runner(table)
        outcome = await runner.server_move(StopGame(reason), f"stop:{reason}")
        if outcome.outcome == "accepted":
            log.info("game stopped", table=table, reason=reason, version=outcome.version)
        return outcome

    async def closed_here(self, table: str) -> None:
        """A table was closed before its start (by its creator, or expired): its sessions on
        this node are closed (4004) and its runner with them."""
        runner = self.runners.pop(table, None)
        self._unkeep(table)
        if runner is not None:
            runner.table_closed()
            await runner.close()
            self._set_tables_gauge()

    async def archived_here(self, table: str) -> None:
        """A finished game's live keys were released (tables/archiving.py): its sessions on
        this node are closed (4004 ``table/archived``) and its runner with them."""
        runner = self.runners.pop(table, None)
        self._unkeep(table)
        if runner is not None:
            runner.table_archived()
            await runner.close()
            self._set_tables_gauge()

    async def leave(self, table: str, token: str, asking: Sink | None = None) -> int:
        """Give a seat up before the start; its sessions here are closed at once (4001), but
        ``asking`` (the session that sent the ``leave``: it answers first), those on other
        nodes when their runner notices (runner.py, ``_check_seats``)."""
        seat = await self.lobby.leave(table, token)
        runner = self.runners.get(table)
        if runner is not None:
            runner.seat_left(seat, token_hash(token), asking)
        log.info("seat left", table=table, seat=seat)
        return seat

    async def start(self, table: str, token: str) -> int:
        """Start a full table (any seated player may); returns the version of the start."""
        await self.lobby.authenticate(table, token)
        try:
            await self.lobby.mark_started(table)
        except TableError as exc:
            # Marked started but with no start in the log: a start that failed half-way
            # (Redis went away) and is asked for again.  Complete it.
            if exc.code != "table/started" or (await self.storage.log.head(table)).version:
                raise
        runner = await self.runner(table)
        await runner.ensure_started()
        if not runner.sessions:  # opened only to start it: its players may be on other nodes
            self._keep(table, STARTED_RUNNER_SECONDS)
        log.info("table started", table=table, version=runner.version)
        return runner.version

    async def transcript(self, table: str) -> Prepared:
        """The public transcript of a finished game, built once and kept (tables/transcripts.py)."""
        return await self.transcripts.get(table)

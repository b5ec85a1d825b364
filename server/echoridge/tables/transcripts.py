"""Finished games' transcripts on a node: built once, kept compressed, served as bytes.

Building a transcript replays the game's log through the engine and projects the spectator view
at every version (tens of ms for a 4-player game): done once per game, not per download.  The
node whose append ended the game builds it in the background (``finished``, from the runner);
a ``transcript`` request that finds none kept (a game finished before transcripts were kept, a
build lost to a Redis outage, or one still under way on another node) builds it then.  Either
way it is kept once in Redis with the game's record (store/archive.py: msgpack compressed with
xz, SET NX, so a second builder keeps nothing; the document is the log's, the same whoever
builds it; tables/archiving.py makes the record and later releases the live keys), and requests
on one node while it builds wait for that build.

A request reads the kept bytes (one GET) and sends them without re-encoding the document: a
``Prepared`` transcript splices them into the reply's frame (``codec.encode_with``) as they are
for the msgpack subprotocol, and makes the JSON text of the document once for the JSON one (the
last ``PREPARED`` transcripts served are kept with it, each used again only while the kept bytes
are the same).  The frames are the bytes ``codec.encode(m.Transcript(...))`` would give: nothing
changes on the wire.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from typing import Any

import msgpack

from echoridge.logs import get_logger
from echoridge.store import StoreError
from echoridge.tables.archiving import make_record
from echoridge.tables.errors import TableError
from echoridge.transcript import Recorder
from echoridge_protocol import codec
from echoridge_protocol import messages as m
from echoridge_rules import State, Status, evolve

log = get_logger("echoridge.tables")

YIELD_EVERY = 8  # versions replayed between two returns to the event loop (~2 ms: a 4-player
# game's replay, 30-60 ms at once, stopped every table of the node for as long)
PREPARED = 16  # transcripts kept encoded per node (a 4-player game's: ~120 KB with its JSON)


class Prepared:
    """One finished game's transcript, encoded: its frames for any request id."""

    __slots__ = ("_json", "packed", "table")

    def __init__(self, table: str, packed: bytes) -> None:
        self.table = table
        self.packed = packed  # the document as msgpack (what is kept, decompressed)
        self._json: str | None = None

    def document(self) -> dict[str, Any]:
        return dict(msgpack.unpackb(self.packed, strict_map_key=False))

    def frame(self, request_id: str, subprotocol: str) -> codec.Frame:
        """The ``transcript`` reply to request ``request_id`` in ``subprotocol``."""
        if subprotocol == m.SUBPROTOCOL_JSON:
            if self._json is None:
                self._json = str(codec.encode_value(self.document(), subprotocol))
            body: bytes | str = self._json
        else:
            body = self.packed
        reply = m.Transcript(id=request_id, table=self.table, transcript={})
        return codec.encode_with(reply, subprotocol, "transcript", body)


class Transcripts:
    def __init__(self, node: Any) -> None:
        self.node = node
        self.store = node.storage.archive
        self._building: dict[str, asyncio.Task[bytes]] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._prepared: OrderedDict[str, Prepared] = OrderedDict()

    async def get(self, table: str) -> Prepared:
        """The transcript of a finished game: the kept one, or built (and kept) now.
        TableError: ``table/not_found``, ``table/not_started``, ``table/not_finished``,
        ``table/damaged``, ``table/archived`` (archived, but its transcript is unreadable)."""
        try:
            packed = await self.store.get(table)
        except StoreError:
            packed = None  # (built from the log, which says what is wrong)
        if packed is None:
            packed = await self._build_once(table)
        prepared = self._prepared.get(table)
        if prepared is not None and prepared.packed == packed:
            self._prepared.move_to_end(table)
            return prepared
        prepared = self._prepared[table] = Prepared(table, packed)
        if len(self._prepared) > PREPARED:
            self._prepared.popitem(last=False)
        return prepared

    def finished(self, table: str, delay: float = 0.0) -> None:
        """This node's append ended the table's game: build and keep its transcript now, and
        rate the game.  Every other node that sees the end does the same ``delay`` seconds later
        (a no-op when the first did it: a node killed as its append ended a game)."""
        task = asyncio.get_running_loop().create_task(
            self._keep(table, delay), name=f"keep {table}"
        )
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def close(self) -> None:
        for task in list(self._background):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _keep(self, table: str, delay: float = 0.0) -> None:
        await asyncio.sleep(delay)
        try:
            if not await self.store.archived(table):
                await self._build_once(table)
        except (TableError, StoreError) as exc:  # (the first request builds it then)
            log.warning("transcript not kept", table=table, error=str(exc))
            return
        try:
            await self.node.players.settle(table)
        except StoreError as exc:  # (the archiver's sweep rates it before the release)
            log.warning("game not rated", table=table, error=str(exc))

    async def _build_once(self, table: str) -> bytes:
        task = self._building.get(table)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._build(table))
            self._building[table] = task
            task.add_done_callback(lambda t: self._built(table, t))
        return await asyncio.shield(task)

    def _built(self, table: str, task: asyncio.Task[bytes]) -> None:
        if self._building.get(table) is task:
            del self._building[table]
        if not task.cancelled():
            task.exception()  # (retrieved: the requests that waited for it raised it)

    async def _build(self, table: str) -> bytes:
        """Replay the log into the transcript (as msgpack), and archive it with the record."""
        meta = await self.node.lobby.meta(table)
        if meta["status"] == "open":
            raise TableError("table/not_started")
        seeds = await self.node.lobby.seeds(table)
        recorder = Recorder(table, seeds.server_seed, seeds.client_seeds)
        state = State()
        try:
            entries = await self.node.storage.log.load(table)
        except StoreError as exc:
            raise TableError("table/damaged") from exc
        for n, entry in enumerate(entries, start=1):
            for e in entry.events:
                state = evolve(state, e)
            recorder.record(entry.seat, entry.command, entry.events, state)
            if n % YIELD_EVERY == 0:
                await asyncio.sleep(0)  # let the node's tables move meanwhile
        # The log is the truth: the metadata may have missed "over" (Redis away, or failing
        # over, as the last entry was appended), and is repaired here.
        if state.status is not Status.OVER:
            raise TableError("table/not_finished")
        if meta["status"] != "over":
            with contextlib.suppress(StoreError):
                await self.node.storage.directory.update(table, {"status": "over"})
        packed = codec.encode_value(recorder.transcript(state), m.SUBPROTOCOL_MSGPACK)
        assert isinstance(packed, bytes)
        record = make_record(table, meta, state, entries)
        release_at = self.node.archiver.release_at(record["ended"])
        with contextlib.suppress(StoreError):  # (not kept: the next request builds it again)
            await self.store.archive(table, packed, record, release_at)
        return packed

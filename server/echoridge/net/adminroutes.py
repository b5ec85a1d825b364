"""The admin API's routes (net/admin.py serves them over HTTP): what each does with the node
and the store, its checks and its JSON.  A handler takes the request and the path's arguments
and answers a ``Reply``, or raises ``Refusal`` (status, ``admin/<name>``, a sentence)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from echoridge.logs import get_logger
from echoridge.store import TableNotFound
from echoridge.store.keys import valid_table_id
from echoridge.store.moderation import KINDS, Ban, Report
from echoridge.tables.errors import TableError
from echoridge.tables.lobby import listed_mode
from echoridge_protocol import messages as m

MAX_LISTED = 1000  # lobby tables in GET /admin/tables (then "more": true)
LOBBY_PAGE = 100
MAX_TARGET = 256  # characters of a ban's target and of a reports' target
MAX_REASON = 500  # characters of a ban's reason
MAX_BAN_SECONDS = 10 * 365 * 86400
REPORTS_LIMIT, MAX_REPORTS = 50, 500
AUDIT_LIMIT, MAX_AUDIT = 100, 1000
SAFE_INT = 2**53 - 1
_STATUS = {"open": "waiting", "playing": "playing", "over": "over"}  # others keep their name
_BAN_ID = re.compile(r"b-[0-9a-f]{1,64}")
_BAN_FIELDS = frozenset({"kind", "target", "seconds", "reason"})

log = get_logger("echoridge.admin")


class Refusal(Exception):
    """An error answer: ``status``, ``admin/<name>`` and an English sentence."""

    def __init__(self, status: int, name: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = f"admin/{name}"
        self.message = message


@dataclass(frozen=True)
class Reply:
    status: int
    body: Any = None  # JSON; None: no body (204)
    headers: tuple[tuple[str, str], ...] = ()


def refusal_reply(refusal: Refusal, headers: tuple[tuple[str, str], ...] = ()) -> Reply:
    return Reply(refusal.status, {"code": refusal.code, "message": refusal.message}, headers)


@dataclass
class Request:
    method: str = ""
    path: str = ""  # as sent, without the query
    query: dict[str, str] = field(default_factory=dict)
    by: str = ""  # the acting admin's name, once the token is checked
    body: bytes = b""


Handler = Callable[[Request, tuple[str, ...]], Awaitable[Reply]]


def _now() -> int:
    return int(time.time() * 1000)


class Routes:
    """The handlers of the admin API's routes, on one node and its storage."""

    def __init__(self, node: Any, storage: Any) -> None:
        self.node = node  # tables.Node
        self.storage = storage  # store.Storage

    async def tables(self, request: Request, args: tuple[str, ...]) -> Reply:
        """The lobby's listed tables (public: waiting, or playing and watchable), at most
        ``MAX_LISTED``, and every table this node runs (private ones too)."""
        rows: dict[str, dict[str, Any]] = {}
        cursor: str | None = None
        more = False
        for _ in range(MAX_LISTED // LOBBY_PAGE + 2):
            page, cursor = await self.node.lobby.list(
                min(LOBBY_PAGE, MAX_LISTED - len(rows)), cursor=cursor
            )
            for info in page:
                rows.setdefault(info.table, _info_row(info))
            if cursor is None or not page:
                break
            if len(rows) >= MAX_LISTED:
                more = True
                break
        for table, runner in list(self.node.runners.items()):
            if runner.closed:
                continue
            if table in rows:
                rows[table]["here"] = True
                continue
            try:
                meta = await self.storage.directory.meta(table)
            except TableNotFound:
                continue
            rows[table] = _meta_row(table, meta)
        return Reply(200, {"tables": list(rows.values()), "more": more})

    async def close(self, request: Request, args: tuple[str, ...]) -> Reply:
        """Close a table: one whose game has not started as its creator may (``closed``); a
        game being played is stopped (``stopped``: over with no winner, archived, not rated,
        ``Node.stop_game``)."""
        table = args[0]
        if not valid_table_id(table):
            raise Refusal(404, "not_found", "No such table: a table id is like t-0123456789.")
        outcome = await self.storage.directory.close(table)
        if outcome == "ok":
            await self.node.closed_here(table)
            await self.storage.moderation.audit(request.by, "close_table", {"table": table}, _now())
            log.info("table closed by an admin", table=table, by=request.by)
            return Reply(200, {"table": table, "status": "closed"})
        if outcome == "missing" and not await self.storage.archive.archived(table):
            raise Refusal(404, "not_found", f"There is no table {table}.")
        if outcome == "started":
            return await self._stop(request, table)
        if outcome == "missing":
            raise Refusal(409, "over", f"The game at {table} is over already.")
        if outcome == "closed":
            raise Refusal(409, "conflict", f"The table {table} is closed already.")
        raise Refusal(409, "conflict", f"The table {table} is damaged: it cannot be closed.")

    async def _stop(self, request: Request, table: str) -> Reply:
        stopped = await self.node.stop_game(table, "operator")
        if stopped.outcome == "accepted":
            details = {"table": table, "version": str(stopped.version)}
            await self.storage.moderation.audit(request.by, "stop_game", details, _now())
            log.info("game stopped by an admin", table=table, by=request.by)
            return Reply(200, {"table": table, "status": "stopped", "version": stopped.version})
        if stopped.outcome == "duplicate" or stopped.code == "rules/game_over":
            raise Refusal(409, "over", f"The game at {table} is over already.")
        raise Refusal(409, "conflict", f"The game at {table} could not be stopped; try again.")

    async def bans(self, request: Request, args: tuple[str, ...]) -> Reply:
        bans: list[Ban] = await self.storage.moderation.bans(_now())
        handles = await self._handles([b.target for b in bans if b.kind == "identity"])
        return Reply(200, {"bans": [_ban_row(ban, handles) for ban in bans]})

    async def ban(self, request: Request, args: tuple[str, ...]) -> Reply:
        data = _json_object(request.body)
        unknown = sorted(set(data) - _BAN_FIELDS)
        if unknown:
            raise bad(f"A ban has no field {', '.join(unknown)[:100]}.")
        kind = data.get("kind")
        if kind not in KINDS:
            raise bad('A ban\'s kind is "identity" or "network".')
        target = data.get("target")
        if not isinstance(target, str) or not 0 < len(target.strip()) <= MAX_TARGET:
            raise bad(f"A ban's target is an identity or a network, at most {MAX_TARGET} long.")
        target = target.strip()
        reason = data.get("reason")
        if not isinstance(reason, str) or not reason.strip() or len(reason) > MAX_REASON:
            raise bad(f"A ban has a reason: text of at most {MAX_REASON} characters.")
        if not reason.isprintable():
            raise bad("A ban's reason is one line of printable text.")
        seconds = data.get("seconds")
        if seconds is not None and (
            not isinstance(seconds, int)
            or isinstance(seconds, bool)
            or not 0 < seconds <= MAX_BAN_SECONDS
        ):
            raise bad(
                f"A ban's seconds is a whole number from 1 to {MAX_BAN_SECONDS} (leave it out "
                "for a ban until lifted)."
            )
        if kind == "identity" and await self.storage.identities.get(target) is None:
            raise bad(f"There is no identity {target[:80]} on this server.")
        now = _now()
        until = None if seconds is None else now + seconds * 1000
        try:
            ban = await self.storage.moderation.ban(
                kind, target, until, reason.strip(), request.by, now
            )
        except ValueError as exc:
            raise bad(_sentence(str(exc))) from None
        log.info("banned", ban=ban.id, kind=ban.kind, target=ban.target, until=until, by=ban.by)
        handles = await self._handles([ban.target] if ban.kind == "identity" else [])
        return Reply(201, _ban_row(ban, handles), (("location", f"/admin/bans/{ban.id}"),))

    async def lift(self, request: Request, args: tuple[str, ...]) -> Reply:
        ban = args[0]
        if _BAN_ID.fullmatch(ban) and await self.storage.moderation.lift(ban, request.by, _now()):
            log.info("ban lifted", ban=ban, by=request.by)
            return Reply(204)
        raise Refusal(
            404, "not_found", "No such ban is in force (never made, lifted before, or over)."
        )

    async def reports(self, request: Request, args: tuple[str, ...]) -> Reply:
        """Reports newest first (``target``: against one identity; ``before``: older than that
        ms; ``limit``), each with the path of its moment's replay; ``next``: the ``before`` of
        the next page (null: none)."""
        limit = _int(request.query, "limit", REPORTS_LIMIT, 1, MAX_REPORTS)
        before = _int(request.query, "before", None, 0, SAFE_INT)
        target = request.query.get("target")
        if target is not None and not 0 < len(target) <= MAX_TARGET:
            raise bad("target is an identity.")
        reports: list[Report] = await self.storage.moderation.reports(limit, before, target)
        handles = await self._handles(
            list({who for r in reports for who in (r.reporter, r.target)})
        )
        seats: dict[tuple[str, str], int | None] = {}
        rows = []
        for report in reports:
            key = (report.table, report.target)
            if key not in seats:
                seats[key] = await self._seat(report.table, report.target)
            rows.append(_report_row(report, handles, seats[key]))
        after = reports[-1].at if len(reports) >= limit else None
        return Reply(200, {"reports": rows, "next": after})

    async def _seat(self, table: str, identity: str) -> int | None:
        """The seat ``identity`` held at ``table``: from the archived record, else from the
        live metadata; None when neither says."""
        if not valid_table_id(table):
            return None
        record = await self.storage.archive.record(table)
        if record is not None:
            seat = _seat_in_record(record, identity)
            if seat is not None:
                return seat
        try:
            meta = await self.node.lobby.meta(table)
        except TableError:
            return None
        return _seat_in_meta(meta, identity)

    async def audit(self, request: Request, args: tuple[str, ...]) -> Reply:
        limit = _int(request.query, "limit", AUDIT_LIMIT, 1, MAX_AUDIT)
        entries = await self.storage.moderation.audit_log(limit)
        for entry in entries:
            for name in ("at", "until"):
                if entry.get(name, "").isdigit():
                    entry[name] = int(entry[name])
        return Reply(200, {"entries": entries})

    async def _handles(self, identities: list[str]) -> dict[str, str]:
        if not identities:
            return {}
        found: dict[str, str] = await self.storage.identities.handles(identities)
        return found


def bad(message: str) -> Refusal:
    return Refusal(400, "bad_request", message)


def _json_object(body: bytes) -> dict[str, Any]:
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise bad("The body is not JSON.") from None
    if not isinstance(data, dict):
        raise bad("The body is a JSON object.")
    return data


def _int(query: dict[str, str], name: str, default: int | None, low: int, high: int) -> Any:
    text = query.get(name)
    if text is None or text == "":
        return default
    if not text.isdigit() or not low <= int(text) <= high:
        raise bad(f"{name} is a whole number from {low} to {high}.")
    return int(text)


def _sentence(text: str) -> str:
    text = text.strip()
    return (text[:1].upper() + text[1:]).rstrip(".") + "."


def _info_row(info: m.TableInfo) -> dict[str, Any]:
    """A listed table's row."""
    return {
        "table": info.table,
        "status": info.status,
        "mode": info.mode or "competitive",
        "public": info.public,
        "seats": info.seats,
        "taken": info.taken,
        "created": info.created,
        "here": False,
        "players": [
            {"seat": p.seat, "name": p.name, "bot": p.bot, "identity": p.identity}
            for p in info.players
        ],
    }


def _meta_row(table: str, meta: dict[str, str]) -> dict[str, Any]:
    """The row of a table this node runs (listed or not), from its metadata."""
    seats = int(meta.get("seats", "0") or 0)
    status = meta.get("status", "")
    return {
        "table": table,
        "status": _STATUS.get(status, status),
        "mode": listed_mode(meta),
        "public": meta.get("public") == "1",
        "seats": seats,
        "taken": int(meta.get("taken", "0") or 0),
        "created": int(meta.get("created", "0") or 0),
        "here": True,
        "players": [
            {
                "seat": i,
                "name": meta[f"name:{i}"],
                "bot": meta.get(f"bot:{i}") or None,
                "identity": meta.get(f"identity:{i}") or None,
            }
            for i in range(seats)
            if f"name:{i}" in meta
        ],
    }


def _ban_row(ban: Ban, handles: dict[str, str]) -> dict[str, Any]:
    row = asdict(ban)
    if ban.kind == "identity":
        row["handle"] = handles.get(ban.target)
    return row


def _report_row(report: Report, handles: dict[str, str], seat: int | None) -> dict[str, Any]:
    replay = f"/#/replay/{report.table}?v={report.version}"
    if seat is not None:
        replay += f"&seat={seat}"
    row = asdict(report)
    row |= {
        "reporter_handle": handles.get(report.reporter),
        "target_handle": handles.get(report.target),
        "seat": seat,
        "replay": replay,
    }
    return row


def _seat_in_record(record: dict[str, Any], identity: str) -> int | None:
    players = record.get("players")
    if not isinstance(players, list):
        return None
    for i, player in enumerate(players):
        if isinstance(player, dict) and player.get("identity") == identity:
            seat = player.get("seat", i)
            return seat if isinstance(seat, int) and not isinstance(seat, bool) else i
    return None


def _seat_in_meta(meta: dict[str, str], identity: str) -> int | None:
    for name, value in meta.items():
        if name.startswith("identity:") and value == identity and name[9:].isdigit():
            return int(name[9:])
    return None

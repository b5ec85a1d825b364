"""Clocks, absence and handover in the terminal client (SPEC.md §6.6): one line per seat with
its running clocks (the turn, a decision, "handover in m:ss" for an away player) counted down
from this machine's clock, its time bank when the table has a turn clock, and its markers in
words: "away since 14:03" (``presence``) and "played by the server (reason)"
(``players[i].auto``, or the rest of a turn that timed out).  The game screen redraws it when
its text changes (every second while a clock runs)."""

from __future__ import annotations

import math
import time
from typing import Any

from rich.text import Text

from echoridge_terminal.describe import my_seat, who
from echoridge_terminal.i18n import t
from echoridge_terminal.render import seat_style

#: Why the server plays a seat (``p.auto``): ``clocks.served``'s ``reason``.
AUTO_REASONS = ("away", "strikes", "vote", "self")


def countdown(seconds: float) -> str:
    """Seconds left as m:ss (h:mm:ss past an hour, "N d h:mm:ss" past a day)."""
    total = max(0, math.ceil(seconds))
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days} d {hours}:{minutes:02}:{secs:02}"
    if hours:
        return f"{hours}:{minutes:02}:{secs:02}"
    return f"{minutes}:{secs:02}"


def played_by_server(view: dict[str, Any], seat: int | None) -> bool:
    players = view.get("players") or []
    if seat is None or not 0 <= seat < len(players):
        return False
    turn = view.get("turn") or {}
    timed_out = turn.get("seat") == seat and bool(turn.get("timed_out"))
    return bool(players[seat].get("auto")) or timed_out


def seats(session: Any, now: float | None = None) -> Text:
    """The seats' clocks and markers, one line each ("" before and after the game)."""
    view: dict[str, Any] = session.view or {}
    if view.get("status") not in ("playing", "accusing"):
        return Text("")
    now = time.time() if now is None else now
    me = my_seat(view)
    players = view.get("players") or []
    presence = getattr(session, "presence", None)
    message = getattr(session, "clocks", None)
    running = list(message.clocks) if message is not None else []
    turn_clock = any(c.kind == "turn" for c in running) or any(p.get("bank") for p in players)
    turn = view.get("turn") or {}
    out = Text(t("clocks.title"), style="bold")
    for p in players:
        seat = int(p["seat"])
        out.append(who(seat, me, view), style=seat_style(seat))
        parts: list[tuple[str, str]] = []
        if p.get("bot"):
            parts.append((t("clocks.bot"), "dim"))
        here = next((s for s in getattr(presence, "seats", None) or () if s.seat == seat), None)
        if here is not None and not here.connected and not p.get("bot"):
            since = time.strftime("%H:%M", time.localtime(here.since / 1000))
            parts.append((t("clocks.away", since=since), "bold red"))
        if p.get("auto"):
            reason = str(p["auto"])
            if seat == me and reason == "self":  # said to you, about you
                reason = "you"
            parts.append((t("clocks.served", reason=reason), "bold yellow"))
        elif turn.get("seat") == seat and turn.get("timed_out"):
            parts.append((t("clocks.timed_out"), "bold yellow"))
        for c in running:
            if c.seat == seat:
                left = countdown(c.at / 1000 - now)
                parts.append((t("clocks.clock", kind=str(c.kind), left=left), "bold"))
        if turn_clock and not p.get("bot"):
            parts.append((t("clocks.bank", left=countdown(int(p.get("bank") or 0))), "dim"))
        if p.get("votes"):
            voters = ", ".join(who(v, me, view) for v in p["votes"])
            parts.append((t("clocks.votes", names=voters), ""))
        for text, style in parts:
            out.append(" · ")
            out.append(text, style=style)
        out.append("\n")
    return out


def control_for(session: Any, kind: str) -> dict[str, Any] | None:
    """The first map of ``you.controls`` of that type (a vote: for a seat that is away)."""
    view = session.view or {}
    controls = list((view.get("you") or {}).get("controls") or [])
    presence = getattr(session, "presence", None)
    away = {s.seat for s in getattr(presence, "seats", None) or () if not s.connected}
    for c in controls:
        if c.get("type") == kind and (kind != "vote_handover" or c.get("target") in away):
            return dict(c)
    return None

"""The log's wording, rendered in Python from the same shared file the pages read
(``echoridge_client/logtext.en.json``, following its "about" rules), as an oracle for what the
browser's log panel must show; and the log entries a page received, read from its frames."""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

from echoridge.rules.data import SUSPECTS

SEAT_FIELDS = {"seat", "target", "resolver"}
SEATS_FIELDS = {"contributors", "winners"}


@cache
def logtext() -> dict[str, Any]:
    text = resources.files("echoridge_client").joinpath("logtext.en.json").read_text("utf-8")
    return dict(json.loads(text))


def seat_name(players: list[dict[str, Any]], seat: int | None) -> str:
    if seat is None:
        return "nobody"
    p = players[seat] if 0 <= seat < len(players) else {}
    name = p.get("name") or f"P{seat + 1}"
    return f"{name} (bot)" if p.get("bot") else str(name)


def _block(b: Any) -> str:
    return "(" + ",".join(str(x) for x in b) + ")" if isinstance(b, list) else str(b)


def _field(name: str, value: Any, players: list[dict[str, Any]]) -> str:
    if value is None:
        return ""
    if name in SEAT_FIELDS:
        return seat_name(players, value)
    if name in SEATS_FIELDS:
        names = [seat_name(players, s) for s in (value if isinstance(value, list) else [value])]
        return ", ".join(names) if names else "nobody"
    if name == "block":
        return _block(value)
    if name == "path":
        return " → ".join(_block(b) for b in value)
    words = logtext()["values"].get(name)
    if words is not None:
        key = str(value).lower() if isinstance(value, bool) else value
        if isinstance(key, str) and key in words:
            return str(words[key])
    if isinstance(value, str) and value in SUSPECTS:
        return SUSPECTS[value].name
    if isinstance(value, list):
        return ", ".join(_field(name, v, players) or str(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def key_for(entry: dict[str, Any], seat: int | None, whole: bool = False) -> str | None:
    entries = logtext()["entries"]
    kind = entry["kind"]
    to = entry.get("to")
    if isinstance(to, list) and not whole and seat not in to and f"{kind}.others" in entries:
        return f"{kind}.others"
    if isinstance(entry.get("success"), bool):
        yn = f"{kind}.{'yes' if entry['success'] else 'no'}"
        if yn in entries:
            return yn
    return kind if kind in entries else None


def render(
    entry: dict[str, Any], players: list[dict[str, Any]], seat: int | None, whole: bool = False
) -> str | None:
    """The line the page shows for ``entry`` (None: not shown), with the private mark;
    ``whole``: the entry is in its whole form for everyone (the version that ended the game)."""
    text = logtext()
    if entry["kind"] in text["hidden"]:
        return None
    key = key_for(entry, seat, whole)
    if key is None:
        return None
    line = re.sub(
        r"\{([a-z_]+)\}", lambda m: _field(m[1], entry.get(m[1]), players), text["entries"][key]
    )
    line = " ".join(line.split())  # as the page shows it (an empty field leaves no blank)
    to = entry.get("to")
    if isinstance(to, list) and to and seat in to and not whole:
        line += " " + text["private_mark"]
    return line


def delta_logs(frames: list[str]) -> dict[int, list[dict[str, Any]]]:
    """version -> the log entries of that version's delta, from a page's received frames."""
    out: dict[int, list[dict[str, Any]]] = {}
    for frame in frames:
        message = json.loads(frame)
        if message.get("type") == "delta" and message.get("log"):
            out[int(message["version"])] = list(message["log"])
    return out


def results(sent: list[str], received: list[str]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(command, its last result) for every command a session sent, in order."""
    commands = {}
    for frame in sent:
        message = json.loads(frame)
        if message.get("type") == "command":
            commands[message["id"]] = message["command"]
    answers: dict[str, dict[str, Any]] = {}
    for frame in received:
        message = json.loads(frame)
        if message.get("type") == "result" and message.get("id") in commands:
            answers[message["id"]] = message
    return [(commands[i], answers[i]) for i in commands if i in answers]


def panel_lines(page: Any, version: int) -> list[str]:
    return list(page.locator(f'#log li[data-version="{version}"]').all_inner_texts())


def expected_lines(person: Any, version: int) -> list[str]:
    """What ``person``'s log panel must show for ``version``: its entries, in its words."""
    frames = [f for s in person.table_sockets() for f in list(s.received)]
    view = person.synced_mirror().view or {}
    you = view.get("you") or {}
    seat = you.get("seat") if isinstance(you, dict) else None
    entries = delta_logs(frames).get(version, [])
    whole = any(e["kind"] == "game_ended" for e in entries)
    lines = [render(e, view.get("players") or [], seat, whole) for e in entries]
    return [line for line in lines if line is not None]


def wait_panel(person: Any, version: int, timeout: float = 10.0) -> list[str]:
    """Waits until the panel shows exactly the expected lines of ``version``; returns them."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        person.wait_version(version)
        want = expected_lines(person, version)
        got = [" ".join(t.split()) for t in panel_lines(person.page, version)]
        if got == want:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"{person.name}'s log at {version}: {got} != {want}")
        person.page.wait_for_timeout(50)

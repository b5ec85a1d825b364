"""The log's wording as the browser's log panel must show it: the terminal client's renderer
(``echoridge_client.logtext``, over the same shared ``logtext.en.json``) is the oracle; and the
log entries a page received, read from its frames."""

from __future__ import annotations

import json
from typing import Any

from echoridge_client import logtext as words


def seat_name(players: list[dict[str, Any]], seat: int | None) -> str:
    return words.seat_name(words.seat_names(players), seat)


def action_words(language: str = "en") -> dict[str, str]:
    """The words of each action (the catalog's ``values.action``)."""
    return dict(words.catalog(language).values["action"])


def render(
    entry: dict[str, Any],
    players: list[dict[str, Any]],
    seat: int | None,
    whole: bool = False,
    coop: bool = False,
    blocks: list[str] | None = None,
    language: str = "en",
) -> str | None:
    """The line the page shows for ``entry`` (None: not shown), with the private or the team
    mark; ``whole``: the entry is in its whole form for everyone (the version that ended the
    game); ``coop``: a co-op game (the view's ``mode``); ``blocks``: the city's block names
    (``block_names(view)``), as the page words blocks; ``language``: the page's.
    The terminal client's renderer (echoridge_client.logtext) is the oracle: both clients read
    the same wording and must word an entry alike."""
    if words.catalog(language).is_hidden(entry):
        return None
    line = words.render(
        entry, words.seat_names(players), seat, whole=whole, coop=coop, blocks=blocks or (),
        language=language,
    )  # fmt: skip
    return " ".join(line.split())  # as the page shows it (an empty field leaves no blank)


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
    coop = view.get("mode") == "cooperative"
    blocks = words.block_names(view)
    language = getattr(person, "language", "en")  # the page's (pilot.Person)
    lines = [
        render(e, view.get("players") or [], seat, whole, coop, blocks, language) for e in entries
    ]
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

"""The terminal client's decision clock (SPEC.md §6.5) from the session's latest deadline."""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

from echoridge_protocol import messages as m
from echoridge_terminal.game import clock_text


def session(version: int, deadline: m.Deadline | None, status: str = "accusing") -> Any:
    view = {"status": status, "you": {"seat": 0},
            "players": [{"seat": 0, "name": "Ana", "bot": None},
                        {"seat": 1, "name": "Greedy 2", "bot": "greedy"}]}  # fmt: skip
    return SimpleNamespace(view=view, version=version, deadline=deadline)


def test_the_clock_shows_whom_the_server_answers_for_and_when() -> None:
    at = int((time.time() + 30) * 1000)
    clock = m.Deadline("t", 7, (0, 1), at)
    assert clock_text(session(7, clock)) in (
        "Ana (you), Greedy 2 (bot): 30 s to answer",
        "Ana (you), Greedy 2 (bot): 29 s to answer",
    )
    assert clock_text(session(8, clock)) == ""  # the table moved on
    assert clock_text(session(7, None)) == ""
    assert clock_text(session(7, clock, "over")) == ""
    late = m.Deadline("t", 7, (1,), int((time.time() - 5) * 1000))
    assert clock_text(session(7, late)) == "Greedy 2 (bot): 0 s to answer"

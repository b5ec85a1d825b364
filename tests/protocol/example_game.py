"""The game SPEC.md's examples come from: a real 2-seat game at table ``t-7f3a9c``, dealt from
the seeds the examples show (server seed bytes 0x00..0x1f, whose commitment is in ``created``,
and the two client seeds of the ``transcript``), seats "Ada" and "Ben" playing random legal
commands (a fixed chooser) but for seat 0's Drive at version 12 (``command``, ``delta``).

``python -m tests.protocol.example_game`` rewrites the examples SPEC.md takes from it (the
``welcome-seat``, ``welcome-spectator``, ``command`` and ``delta`` blocks) and the whole
transcript published beside it (``protocol/examples/transcript.json``); then
``python tests/protocol/test_golden.py`` makes the golden files anew.  A test checks that SPEC
and the published file still say what this game says.
"""

from __future__ import annotations

import json
import pathlib
import random
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from echoridge.transcript import Recorder
from echoridge_protocol import diff
from echoridge_rules import SPECTATOR, Seat, State, Status, decide, evolve, legal_actions, view
from echoridge_rules.commands import Command, Drive, StartGame
from echoridge_rules.data import RULES_VERSION
from echoridge_rules.events import Event
from echoridge_rules.log import entries_for, told

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPEC = ROOT / "protocol" / "SPEC.md"
PUBLISHED = ROOT / "protocol" / "examples" / "transcript.json"
PUBLISHED_REPLAY = ROOT / "protocol" / "examples" / "replay.json"

TABLE = "t-7f3a9c"
REPLAY = {"type": "replay", "id": "r8", "table": TABLE, "seat": 1, "start": 12, "limit": 4}
SERVER_SEED = bytes(range(32))
CLIENT_SEEDS = (
    bytes.fromhex("5be1c9a07d3f2e8641a0b9c7d2e5f813"),
    bytes.fromhex("c2a4f3e1d0b9a8776655443322110f0e"),
)
AT = 12  # the welcome's version; seat 0's Drive makes version 13
DRIVE = Drive(0, ((5, 4), (5, 3)))
WELCOME = {
    "type": "welcome",
    "protocol": "echoridge.v2",
    "server": "echo-ridge/0.1.0",
    "features": ["lobby", "resume", "spectate", "bots", "transcripts"],
    "limits": {
        "max_frame_bytes": 65536, "commands_per_second": 10, "handshake_seconds": 10,
        "idle_seconds": 60,
    },
}  # fmt: skip


@dataclass
class Game:
    states: list[State] = field(default_factory=lambda: [State()])
    commands: list[Command] = field(default_factory=list)
    events: list[list[Event]] = field(default_factory=list)
    transcript: dict[str, Any] = field(default_factory=dict)


@cache
def play() -> Game:
    game = Game()
    recorder = Recorder(TABLE, SERVER_SEED, CLIENT_SEEDS)
    rng = recorder.rng
    chooser = random.Random(14)
    command: Command = StartGame(2, ("Ada", "Ben"), ("", ""), (), rules=RULES_VERSION)
    state = game.states[0]
    while True:
        events = decide(state, command, rng)
        for e in events:
            state = evolve(state, e)
        seat = None if isinstance(command, StartGame) else getattr(command, "seat", None)
        recorder.record(seat, command, events, state)
        game.states.append(state)
        game.commands.append(command)
        game.events.append(events)
        if state.status is Status.OVER:
            break
        waiting = [d.seat for d in state.pending] or ([state.turn.seat] if state.turn else [])
        if len(game.states) == AT + 1:
            assert DRIVE in legal_actions(state, 0) and waiting == [0]
            command = DRIVE
        else:
            command = chooser.choice(legal_actions(state, waiting[0]))
    game.transcript = recorder.transcript(state)
    return game


def examples() -> dict[str, dict[str, Any]]:
    """The SPEC examples this game gives, by name."""
    game = play()
    log = [e for v in range(1, AT + 1) for e in entries_for(_told(game, v), Seat(0))]
    seat = {
        **WELCOME, "session": "seat", "resumed": False, "table": TABLE, "seat": 0, "epoch": 1,
        "version": AT, "view": view(game.states[AT], Seat(0)), "log": log,
    }  # fmt: skip
    spectator = {
        **WELCOME, "session": "spectator", "resumed": False, "table": TABLE, "epoch": 1,
        "version": 0, "view": view(State(), SPECTATOR),
    }  # fmt: skip
    command = {
        "type": "command", "id": "c-0012", "expected": AT,
        "command": {"type": "drive", "seat": 0, "path": [list(b) for b in DRIVE.path]},
    }  # fmt: skip
    ops = diff(view(game.states[AT], Seat(0)), view(game.states[AT + 1], Seat(0)))
    delta = {"type": "delta", "table": TABLE, "epoch": 1, "version": AT + 1, "ops": ops}
    delta["log"] = entries_for(_told(game, AT + 1), Seat(0))
    return {
        "welcome-seat": seat, "welcome-spectator": spectator, "command": command,
        "delta": delta,
    }  # fmt: skip


def transcript_reply() -> dict[str, Any]:
    """The ``transcript`` reply of this game, published whole as protocol/examples/."""
    return {"type": "transcript", "id": "r7", "table": TABLE, "transcript": play().transcript}


def replay_reply() -> dict[str, Any]:
    """The reply to SPEC's ``replay-request`` (``REPLAY``) in this game, published whole as
    protocol/examples/: seat 1's versions 12 to 16, seat 0's Drive among them."""
    from echoridge.tables import replays
    from echoridge_protocol import codec
    from echoridge_protocol import messages as m

    request = codec.decode(json.dumps(REPLAY), m.SUBPROTOCOL_JSON, sender="client")
    assert isinstance(request, m.GetReplay)
    game = replays.done(replays.rebuild(play().transcript))
    reply = replays.done(replays.page(game, request))
    return dict(json.loads(codec.encode(reply, m.SUBPROTOCOL_JSON)))


def _told(game: Game, version: int) -> Any:
    return told(game.states[version], game.commands[version - 1], game.events[version - 1])


def dump(value: Any, indent: int = 0, width: int = 150) -> str:
    """JSON as SPEC writes it: what fits in ``width`` on one line, else one item a line."""
    flat = json.dumps(value, ensure_ascii=False)
    pad = " " * indent
    if len(pad) + len(flat) <= width or not isinstance(value, dict | list) or not value:
        return flat
    inner = " " * (indent + 2)
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k)}: {dump(v, indent + 2, width)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    items = [inner + dump(v, indent + 2, width) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + pad + "]"


def write() -> None:
    """Rewrite SPEC.md's examples from this game, and the published transcript."""
    text = SPEC.read_text(encoding="utf-8")
    for name, message in examples().items():
        head = rf"(^Example: `{re.escape(name)}`\n\n```json\n)"
        block = re.compile(head + r"(.*?)(\n```$)", re.M | re.S)
        body = dump(message)
        text, n = block.subn(lambda found, body=body: found.group(1) + body + found.group(3), text)
        assert n == 1, name
    SPEC.write_text(text, encoding="utf-8")
    PUBLISHED.parent.mkdir(parents=True, exist_ok=True)
    PUBLISHED.write_text(dump(transcript_reply()) + "\n", encoding="utf-8")
    PUBLISHED_REPLAY.write_text(dump(replay_reply()) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write()

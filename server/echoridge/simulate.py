"""``echo-ridge simulate``: play many games in-process with seats that pick uniformly among their
legal actions, and report what happened as one JSON line.

``mode`` is ``"competitive"`` (the default; one player is Solo) or ``"cooperative"`` (rules.md
§14, 2-4 players).  The report gives the mode and the win rate of random play: the share of
games that anybody won (in co-op, the team, whose ``winners`` is then every seat).

Everything is deterministic: the game seed and the seats' choices both come from HMAC draws keyed
by the ``--seed`` argument, so the same arguments give the same digest on every machine.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from echoridge.transcript import Recorder
from echoridge_protocol import fairness
from echoridge_rules import State, Status, decide, evolve, legal_actions
from echoridge_rules.commands import Command, StartGame
from echoridge_rules.events import Event
from echoridge_rules.legal import nothing_to_play
from echoridge_rules.rng import Rng
from echoridge_rules.serial import digest

MAX_COMMANDS = 20_000  # a game that has not ended by then counts as failed
COMPETITIVE, COOPERATIVE = "competitive", "cooperative"
MODES = (COMPETITIVE, COOPERATIVE)


def start_command(players: int, mode: str = COMPETITIVE) -> StartGame:
    """The game's first command.  A competitive game starts as it always has (no mode given),
    so its events, states and digests are those of the games before co-op existed."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")
    return StartGame(players) if mode == COMPETITIVE else StartGame(players, mode=mode)


def game_seed(seed: int, game: int) -> bytes:
    """A 32-byte seed for one game of a run (for tests and benchmarks that need any seed)."""
    return hashlib.sha256(f"echo-ridge/simulate/{seed}/{game}".encode()).digest()


@dataclass(frozen=True)
class Seeds:
    """A simulated table's seeds, made the way a real table's are (SPEC.md, Fairness)."""

    table: str
    server_seed: bytes
    client_seeds: tuple[bytes, ...]

    @property
    def game_seed(self) -> bytes:
        return fairness.game_seed(self.server_seed, self.table, list(self.client_seeds))


def table_seeds(seed: int, game: int, players: int) -> Seeds:
    base = f"echo-ridge/simulate/{seed}/{game}"
    return Seeds(
        table=f"sim-{seed}-{game}",
        server_seed=hashlib.sha256(f"{base}/server".encode()).digest(),
        client_seeds=tuple(
            hashlib.sha256(f"{base}/client/{i}".encode()).digest()[:16] for i in range(players)
        ),
    )


def acting_seat(state: State) -> int | None:
    """Who the game waits for: the first owed decision, else the active player."""
    if state.pending:
        return state.pending[0].seat
    if state.turn is not None and state.status is Status.PLAYING:
        return state.turn.seat
    return None


@dataclass
class Game:
    state: State
    commands: list[Command] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)


def play_random(
    players: int, seed: bytes, table: str = "sim", mode: str = COMPETITIVE
) -> Iterator[tuple[Command, list[Event], State]]:
    """Yield (command, events, state after) for one game of uniformly random legal commands."""
    rng = Rng(seed, table)
    chooser = Rng(hashlib.sha256(b"seats" + seed).digest(), table)
    state = State()
    cmd: Command = start_command(players, mode)
    n = 0
    while True:
        events = decide(state, cmd, rng)
        for e in events:
            state = evolve(state, e)
        yield cmd, events, state
        seat = acting_seat(state)
        if seat is None:
            return
        options = legal_actions(state, seat)
        if not options:
            raise RuntimeError(f"seat {seat} owes a move but has no legal action")
        cmd = options[chooser.below(n, len(options))]
        n += 1


def simulate(
    games: int,
    players: int,
    seed: int,
    transcripts: Path | None = None,
    mode: str = COMPETITIVE,
) -> dict[str, Any]:
    """Play ``games`` random games of ``mode``; with ``transcripts``, write each finished game's
    public transcript there as ``<table>.json``."""
    start_command(players, mode)  # an unknown mode fails here, not once per game
    started = time.perf_counter()
    winners: Counter[str] = Counter()
    total = hashlib.sha256()
    finished = errors = commands = events = won = passes = 0
    first_error: str | None = None
    for g in range(games):
        state = State()
        seeds = table_seeds(seed, g, players)
        recorder = (
            Recorder(seeds.table, seeds.server_seed, seeds.client_seeds) if transcripts else None
        )
        try:
            steps = play_random(players, seeds.game_seed, seeds.table, mode)
            for n, (cmd, evs, after) in enumerate(steps):
                commands += 1
                passes += nothing_to_play(state) is not None  # the server's, for auto_pass
                events += len(evs)
                state = after
                if recorder is not None:
                    recorder.record(getattr(cmd, "seat", None), cmd, evs, after)
                if n > MAX_COMMANDS:
                    raise RuntimeError("game did not end")
            if recorder is not None and transcripts is not None:
                path = transcripts / f"{seeds.table}.json"
                path.write_text(json.dumps(recorder.transcript(state), separators=(",", ":")))
        except Exception as exc:  # any failure of a game is counted, never hidden
            errors += 1
            first_error = first_error or f"game {g}: {type(exc).__name__}: {exc}"
            continue
        if state.status is Status.OVER:
            finished += 1
            key = ",".join(str(s) for s in state.winners) or "none"
            winners[key] += 1
            won += bool(state.winners)
        total.update(digest(state).encode())
    report: dict[str, Any] = {
        "games": games,
        "mode": mode,
        "players": players,
        "seed": seed,
        "finished": finished,
        "errors": errors,
        "commands": commands,
        # a finished game's commands, and those a seat sends itself when every seat's
        # auto_pass is on (the server proceeds for it in windows with nothing to play)
        "commands_per_game": round(commands / finished, 1) if finished else 0.0,
        "empty_windows_per_game": round(passes / finished, 1) if finished else 0.0,
        "seat_commands_per_game": round((commands - passes) / finished, 1) if finished else 0.0,
        "events": events,
        "winners": dict(sorted(winners.items())),
        "win_rate": round(won / finished, 4) if finished else 0.0,
        "seconds": round(time.perf_counter() - started, 3),
        "digest": total.hexdigest(),
    }
    if first_error:
        report["first_error"] = first_error
    return report

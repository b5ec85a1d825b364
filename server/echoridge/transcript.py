"""A finished game's public transcript, and its check by replay through the engine.

``Recorder`` collects what each command did in public: the command, its draws and the delta of
the spectator view; ``transcript()`` adds the seeds and, after the game, the full reveal.  The
format is checked without the engine by ``echoridge_protocol.verify.verify_transcript``;
``replay`` also runs the commands through the engine and requires every draw, every public view
(each delta applied) and the final reveal to come out the same.  A transcript recorded before a
view key was added (SPEC.md §8: keys may be added within v2) lacks it; where the engine's value
of such a key is nil or empty, as the co-op keys are in every other game, it is not asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from echoridge_protocol.delta import apply, diff
from echoridge_protocol.fairness import game_seed, server_seed_commit
from echoridge_protocol.verify import FORMAT, Report, verify_transcript
from echoridge_rules import (
    EVERYONE,
    SPECTATOR,
    RuleViolation,
    State,
    ViewCache,
    decide,
    evolve,
    view,
)
from echoridge_rules.commands import Command
from echoridge_rules.events import Drawn, Event
from echoridge_rules.rng import Rng
from echoridge_rules.serial import load, to_plain


@dataclass
class Recorder:
    """Builds a table's public transcript as its commands are applied."""

    table: str
    server_seed: bytes
    client_seeds: Sequence[bytes]
    initial: dict[str, Any] = field(default_factory=lambda: view(State(), SPECTATOR))
    entries: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._public = self.initial
        self._views = ViewCache()  # consecutive public views share subtrees: cheap diffs

    @property
    def rng(self) -> Rng:
        return Rng(game_seed(self.server_seed, self.table, list(self.client_seeds)), self.table)

    def record(
        self, seat: int | None, command: Command, events: Sequence[Event], after: State
    ) -> None:
        public = view(after, SPECTATOR, self._views)
        self.entries.append(
            {
                "version": len(self.entries) + 1,
                "seat": seat,
                "command": to_plain(command),
                "draws": [[e.index, e.bound, e.value] for e in events if isinstance(e, Drawn)],
                "delta": diff(self._public, public),
            }
        )
        self._public = public

    def transcript(self, final: State) -> dict[str, Any]:
        """The whole transcript; ``final`` must be the state after the game."""
        return {
            "format": FORMAT,
            "table": self.table,
            "players": len(final.players),
            "server_seed_commit": server_seed_commit(self.server_seed).hex(),
            "server_seed": self.server_seed.hex(),
            "client_seeds": [s.hex() for s in self.client_seeds],
            "initial": self.initial,
            "entries": self.entries,
            "final": view(final, EVERYONE),
        }


def replay(transcript: dict[str, Any]) -> Report:
    """Verify a transcript (protocol checks first), then replay it through the engine: every
    command must be legal and give the recorded draws and a public delta that brings the view to
    the engine's (the ops themselves may differ: which ops say a change is the server's choice,
    SPEC.md 6.2), and the final reveal must be the engine's."""
    report = verify_transcript(transcript)
    if not report.ok:
        return report
    table = transcript["table"]
    seeds = [bytes.fromhex(s) for s in transcript["client_seeds"]]
    rng = Rng(game_seed(bytes.fromhex(transcript["server_seed"]), table, seeds), table)
    state = State()
    public = view(state, SPECTATOR)
    for entry in transcript["entries"]:
        where = f"version {entry['version']}"
        try:
            command = load(entry["command"])
            events = decide(state, command, rng)
        except RuleViolation as exc:
            return _fail(report, f"{where}: the engine refuses the command ({exc.code})")
        except (KeyError, TypeError, ValueError) as exc:
            return _fail(report, f"{where}: the command is malformed ({exc})")
        draws = [[e.index, e.bound, e.value] for e in events if isinstance(e, Drawn)]
        if draws != entry["draws"]:
            return _fail(report, f"{where}: the engine draws differently")
        for e in events:
            state = evolve(state, e)
        now = view(state, SPECTATOR)
        if not _same(apply(public, entry["delta"]), now):  # the same view, whatever ops say it
            return _fail(report, f"{where}: the public view comes out differently")
        public = now
    if not _same(transcript["final"], to_plain(view(state, EVERYONE))):
        return _fail(report, "the final reveal is not the engine's")
    return report


def _same(recorded: Any, engine: Any) -> bool:
    """Whether a recorded view is the engine's, but for keys the recording lacks where the
    engine's value is nil or empty (keys added to the view since it was recorded)."""
    return not diff(recorded, engine) or not diff(recorded, _as_recorded(engine, recorded))


def _as_recorded(engine: Any, recorded: Any) -> Any:
    """``engine`` without the nil or empty map entries that ``recorded`` does not have."""
    if isinstance(engine, dict) and isinstance(recorded, dict):
        return {
            k: _as_recorded(v, recorded[k]) if k in recorded else v
            for k, v in engine.items()
            if k in recorded or v not in (None, [], {})
        }
    if isinstance(engine, list) and isinstance(recorded, list) and len(engine) == len(recorded):
        return [_as_recorded(v, r) for v, r in zip(engine, recorded, strict=True)]
    return engine


def _fail(report: Report, problem: str) -> Report:
    report.problem = problem
    report.code = "verify/replay"
    return report

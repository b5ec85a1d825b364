"""Checking a finished game's public transcript without the rules engine.

A transcript (format ``echoridge.transcript.v1``, see SPEC.md "Fairness") holds the table id,
the server seed with the commitment published when the table was created, every seat's client
seed, the public view before the first command, and per command: its version, seat, the command,
the random draws it used and the delta of the public view.  After the game it also holds the
full reveal (every committed item with its salt).

``verify_transcript`` checks, with hashlib, hmac and the delta rules only:

1. the server seed opens its commitment, and the game seed follows from the seeds;
2. every recorded draw is the generator's value for its index and bound, indices 0, 1, 2, ...
   with none missing;
3. every delta applies to the public view, versions run 1, 2, 3, ..., and the commitments
   published at setup never change;
4. every committed item is revealed after the game, with the salt derived from the game seed,
   and opens its commitment; every item revealed publicly during the game (a flipped token)
   opened its commitment with the same value;
5. the result names the revealed murderer.

Whether the draws were *used* as the rules say needs the engine: ``echo-ridge verify`` also
replays the commands and compares every public delta.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from echoridge_protocol.delta import DeltaError, apply
from echoridge_protocol.errors import ProtocolError
from echoridge_protocol.fairness import (
    commit,
    draw_below,
    game_seed,
    salt,
    server_seed_commit,
)

FORMAT = "echoridge.transcript.v1"


class VerificationError(ProtocolError):
    """A transcript that does not verify; ``code`` is ``verify/...``."""

    code = "verify/failed"


@dataclass
class Report:
    """What was checked, and the first discrepancy (None when the transcript verifies)."""

    commands: int = 0
    draws: int = 0
    deltas: int = 0
    commitments: int = 0
    public_reveals: int = 0
    problem: str | None = None
    code: str | None = None
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.problem is None


def _bytes(value: Any, what: str) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        try:
            return bytes.fromhex(value)
        except ValueError:
            pass
    raise VerificationError(f"{what} is not hex", "verify/malformed")


def verify_transcript(transcript: Mapping[str, Any]) -> Report:
    """Check a transcript; the report says what was checked and the first discrepancy."""
    report = Report()
    try:
        _verify(transcript, report)
    except VerificationError as exc:
        report.problem, report.code = exc.message, exc.code
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        report.problem = f"the transcript is malformed: {type(exc).__name__}: {exc}"
        report.code = "verify/malformed"
    return report


def _verify(t: Mapping[str, Any], report: Report) -> None:
    if t.get("format") != FORMAT:
        raise VerificationError(f"not a {FORMAT} transcript", "verify/malformed")
    table = t["table"]
    server_seed = _bytes(t["server_seed"], "server_seed")
    if server_seed_commit(server_seed) != _bytes(t["server_seed_commit"], "server_seed_commit"):
        raise VerificationError("the server seed does not open its commitment", "verify/seed")
    seed = game_seed(server_seed, table, [_bytes(s, "client seed") for s in t["client_seeds"]])

    view: Any = t["initial"]
    setup_commitments: dict[str, str] | None = None
    revealed: dict[str, str] = {}
    next_draw = 0
    for n, entry in enumerate(t["entries"], start=1):
        if entry["version"] != n:
            raise VerificationError(f"entry {n} has version {entry['version']}", "verify/version")
        for index, bound, value in entry["draws"]:
            if index != next_draw:
                raise VerificationError(
                    f"version {n}: draw {index} where draw {next_draw} was due", "verify/draw"
                )
            if draw_below(seed, table, index, bound) != value:
                raise VerificationError(
                    f"version {n}: draw {index} (bound {bound}) is not {value}", "verify/draw"
                )
            next_draw += 1
            report.draws += 1
        try:
            view = apply(view, entry["delta"])
        except DeltaError as exc:
            raise VerificationError(f"version {n}: {exc.message}", "verify/delta") from exc
        report.deltas += 1
        report.commands += 1
        commitments = view.get("commitments") or {}
        if setup_commitments is None and commitments:
            setup_commitments = dict(commitments)
        elif setup_commitments is not None and commitments != setup_commitments:
            raise VerificationError(f"version {n}: the commitments changed", "verify/commitment")
        for proof in view.get("proofs") or []:
            label = proof["label"]
            if label not in revealed:
                _open(seed, table, setup_commitments or {}, proof, f"version {n}")
                revealed[label] = proof["value"]
                report.public_reveals += 1

    if setup_commitments is None:
        raise VerificationError("no commitments were published", "verify/commitment")
    final = t["final"]
    proofs = {p["label"]: p for p in final["secrets"]["proofs"]}
    missing = sorted(set(setup_commitments) - set(proofs))
    if missing:
        raise VerificationError(f"items never revealed: {missing[:5]}", "verify/commitment")
    for label, proof in proofs.items():
        _open(seed, table, setup_commitments, proof, "the final reveal")
        if label in revealed and revealed[label] != proof["value"]:
            raise VerificationError(
                f"{label} was shown as {revealed[label]} but revealed as {proof['value']}",
                "verify/commitment",
            )
        report.commitments += 1
    murderer = proofs["murderer"]["value"]
    shown = (final["result"]["murderer"], (view.get("result") or {}).get("murderer"))
    if shown != (murderer, murderer):
        raise VerificationError("the result names another murderer", "verify/result")
    report.counts = {
        "commands": report.commands,
        "draws": report.draws,
        "deltas": report.deltas,
        "commitments": report.commitments,
        "public_reveals": report.public_reveals,
    }


def _open(
    seed: bytes, table: str, commitments: Mapping[str, str], proof: Mapping[str, Any], where: str
) -> None:
    label = proof["label"]
    if label not in commitments:
        raise VerificationError(f"{where}: {label} was never committed", "verify/commitment")
    expected_salt = salt(seed, table, label)
    if _bytes(proof["salt"], "salt") != expected_salt:
        raise VerificationError(f"{where}: the salt of {label} is wrong", "verify/salt")
    if commit(label, proof["value"], expected_salt).hex() != commitments[label]:
        raise VerificationError(
            f"{where}: {label} = {proof['value']} does not open its commitment",
            "verify/commitment",
        )

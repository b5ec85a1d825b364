"""The game commands a client sends in ``command.command`` (SPEC.md §5.4), as data.

A client's command is checked like every other map a client sends (SPEC.md §2.2, §5.2): its
``type`` must name one of ``CLIENT_COMMANDS`` (``protocol/bad_field`` otherwise: the server's
own commands ``start_game``, ``apply_default``, ``time_out`` and ``hand_over`` included), every
required field must be there (``protocol/missing_field``), no other field may be
(``protocol/unknown_field``), and each value must be of its kind (``protocol/bad_field``).
What passes is exactly what the JSON Schema's ``ClientCommand`` accepts; whether the rules allow
it now is the engine's question (``rules/...`` in a ``result``).  The engine's command records
(``echoridge_rules.commands``) have the same fields, and a test keeps the two in step.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from echoridge_protocol.kinds import MAX_SEATS, Choice, Flag, Int

FORCE_CARDS: Final = (
    "code_three", "radio_car", "judges_signature", "tip_line", "checkpoint", "double_shift",
    "rubber_stamp", "telephoto", "squad_wagon", "jailhouse_deal",
)  # fmt: skip
EVIDENCE: Final = ("rank", "gang", "forensics", "getaway", "weapon")
SUSPECTS: Final = tuple(f"S{n:02d}" for n in range(1, 17))
SERVER_COMMANDS: Final = ("start_game", "apply_default", "time_out", "hand_over", "stop_game")
"""The server's own commands: in transcripts, never accepted from a client."""

@dataclass(frozen=True, slots=True)
class Block:
    """A block: ``[column, row]``, both integers 1..5."""


@dataclass(frozen=True, slots=True)
class Path:
    """A Drive's path: a list of at least one block (at most 256, as every list, SPEC.md §2.3)."""


@dataclass(frozen=True, slots=True)
class Nullable:
    """A value of ``kind``, or nil."""

    kind: Int | Block


CommandKind = Int | Flag | Choice | Block | Path | Nullable


@dataclass(frozen=True, slots=True)
class CommandField:
    name: str
    kind: CommandKind
    required: bool = True


SEAT: Final = Int(0, MAX_SEATS - 1)
_SEAT: Final = CommandField("seat", SEAT)
_NIGHT_SHIFT: Final = CommandField("night_shift", Flag(), required=False)
_CARD: Final = CommandField("card", Choice(FORCE_CARDS))

CLIENT_COMMANDS: Final[Mapping[str, tuple[CommandField, ...]]] = MappingProxyType(
    {
        "drive": (_SEAT, CommandField("path", Path())),
        "play_force": (_SEAT, _CARD, CommandField("block", Nullable(Block()), required=False)),
        "arrest": (_SEAT,),
        "coffee_break": (_SEAT,),
        "call_for_backup": (_SEAT, CommandField("risk", Int(1, 6)), _NIGHT_SHIFT),
        "catch_informant": (_SEAT, _NIGHT_SHIFT),
        "catch_witness": (_SEAT, _NIGHT_SHIFT),
        "search_scene": (_SEAT, _NIGHT_SHIFT),
        "stakeout": (_SEAT, CommandField("risk", Int(1, 5)), _NIGHT_SHIFT),
        "hold_mobster": (_SEAT,),
        "book_mobster": (_SEAT,),
        "resolve_event": (_SEAT, CommandField("slot", Int(1, 3)), _NIGHT_SHIFT),
        "proceed": (_SEAT,),
        "gain_suspect": (_SEAT, CommandField("look_at", Nullable(SEAT), required=False)),
        "interrogate": (_SEAT, CommandField("target", Nullable(SEAT))),
        "pick_slot": (_SEAT, CommandField("slot", Int(1, 64))),
        "discard_force": (_SEAT, _CARD),
        "take_from_pool": (_SEAT, _CARD),
        "learn_trait": (_SEAT, CommandField("evidence", Choice(EVIDENCE))),
        "peek_token": (_SEAT, CommandField("block", Block())),
        "rest_case": (_SEAT, CommandField("rest", Flag())),
        "accuse": (_SEAT, CommandField("suspect", Choice(SUSPECTS))),
        "extend_time": (_SEAT,),
        "play_for_me": (_SEAT,),
        "take_back": (_SEAT,),
        "auto_pass": (_SEAT, CommandField("on", Flag())),
        "vote_handover": (_SEAT, CommandField("target", SEAT)),
    }
)
"""Every command a client may send, by ``type``: its fields in the order of SPEC.md §5.4."""


class Refusal(Exception):
    """Why a command map is refused: a ``protocol/...`` code, a sentence, and the path to the
    offending value inside the command."""

    def __init__(self, code: str, message: str, path: tuple[str | int, ...] = ()) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.path = path


def check_command(value: object) -> None:
    """Raise ``Refusal`` unless ``value`` is one of ``CLIENT_COMMANDS`` exactly."""
    if type(value) is not dict:
        raise Refusal("protocol/bad_field", "must be a map")
    tag = value.get("type")
    if tag is None:
        raise Refusal("protocol/missing_field", "missing", ("type",))
    table = CLIENT_COMMANDS.get(tag) if type(tag) is str else None
    if table is None:
        why = (
            "is one of the server's own commands"
            if tag in SERVER_COMMANDS
            else "must name a command of SPEC.md §5.4"
        )
        raise Refusal("protocol/bad_field", why, ("type",))
    names = {f.name for f in table}
    for key in value:
        if key != "type" and key not in names:
            raise Refusal("protocol/unknown_field", "unknown field", (key,))
    for f in table:
        if f.name not in value:
            if f.required:
                raise Refusal("protocol/missing_field", "missing", (f.name,))
            continue
        problem = _problem(f.kind, value[f.name])
        if problem is not None:
            raise Refusal("protocol/bad_field", problem, (f.name,))


def _problem(kind: CommandKind, value: object) -> str | None:
    """What is wrong with ``value`` as a ``kind``, or None."""
    if isinstance(kind, Nullable):
        return None if value is None else _problem(kind.kind, value)
    if isinstance(kind, Int):
        if type(value) is not int or not kind.lo <= value <= kind.hi:
            return f"must be an integer in {kind.lo}..{kind.hi}"
        return None
    if isinstance(kind, Flag):
        return None if type(value) is bool else "must be a boolean"
    if isinstance(kind, Choice):
        if type(value) is not str or value not in kind.options:
            return "must be one of " + ", ".join(kind.options)
        return None
    if isinstance(kind, Block):
        return None if _is_block(value) else "must be a block: [column, row], both 1..5"
    if type(value) is not list or not value or not all(_is_block(b) for b in value):
        return "must be a list of one or more blocks: [column, row], both 1..5"
    return None


def _is_block(value: object) -> bool:
    return (
        type(value) is list
        and len(value) == 2
        and all(type(x) is int and 1 <= x <= 5 for x in value)
    )

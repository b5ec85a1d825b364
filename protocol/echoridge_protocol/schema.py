"""The JSON Schema (draft 2020-12) of protocol v2's messages, generated from ``messages.py``.

``protocol/schema/echoridge.v2.schema.json`` is the machine-readable schema of the protocol
(SPEC.md §2.5).  Its message definitions (every client and server message, and the records
``Resume``, ``Limits``, ``SeatInfo``, ``SeatPresence``, ``TableInfo``) are made here from the
field annotations the codec decodes with, so the two cannot drift apart; the definitions of the
data inside messages (``View`` and its parts, ``Decision``, ``Command``, ``LogEntry``, ``Ops``,
``TranscriptDoc``) are written by hand in that file.  ``update(path)`` rewrites the generated
definitions of the file and keeps the others; a test checks that the checked-in file is current:

    python -m echoridge_protocol.schema protocol/schema/echoridge.v2.schema.json

The schema describes the JSON encoding (``echoridge.v2.json``): bytes are strings of lowercase
hex digits.  A msgpack frame validates once its bin values are written as hex.  What JSON Schema
cannot say is left to SPEC.md and the codec: *printable* and *visible* text (Unicode
categories, text.py), map keys and nesting limits, and a ``hello``'s combinations of fields.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import sys
import types
import typing
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from echoridge_protocol import messages as m

DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID = "https://echoridge.invalid/protocol/echoridge.v2.schema.json"

# Opaque fields of messages (``AnyMap``) are given their hand-written definitions here.
_OPAQUE: dict[tuple[str, str], str] = {
    ("Welcome", "view"): "View",
    ("Welcome", "log"): "LogEntry",
    ("Delta", "log"): "LogEntry",
    ("Transcript", "transcript"): "TranscriptDoc",
    ("Replay", "view"): "View",
    ("Replay", "log"): "LogEntry",
    ("ReplayStep", "log"): "LogEntry",
}
# Names of the definitions of the client messages whose wire type the server uses too.
_CLIENT_NAMES = {
    "bye": "ClientBye", "transcript": "GetTranscript", "rematch": "AskRematch",
    "replay": "GetReplay",
}


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/$defs/{name}"}


def _kind(kind: m.Kind, owner: str, field: str) -> dict[str, Any]:
    match kind:
        case m.Text(
            min_len=lo, max_len=hi, pattern=pattern, printable=printable, trimmed=trim, visible=seen
        ):
            out: dict[str, Any] = {"type": "string", "minLength": lo, "maxLength": hi}
            if pattern is not None:
                out["pattern"] = f"^(?:{pattern})$"
            elif trim:
                out["pattern"] = r"^\S(?:.*\S)?$"
            if seen:
                out["description"] = "visible printable text (SPEC.md §2.2)"
            elif printable:
                out["description"] = "printable text (SPEC.md §2.2)"
            return out
        case m.Int(lo=lo, hi=hi):
            return {"type": "integer", "minimum": lo, "maximum": hi}
        case m.Flag():
            return {"type": "boolean"}
        case m.Blob(min_len=lo, max_len=hi):
            return {
                "type": "string",
                "minLength": 2 * lo,
                "maxLength": 2 * hi,
                "pattern": "^(?:[0-9a-f]{2})*$",
                "description": "bytes, as lowercase hex",
            }
        case m.Choice(options=options):
            return {"enum": list(options)}
        case m.Items(item=item, max_items=most, min_items=least):
            if isinstance(item, type):
                inner = _ref(item.__name__)
            elif isinstance(item, m.AnyMap):
                inner = _ref(_OPAQUE[(owner, field)])
            else:
                inner = _kind(item, owner, field)
            bounds = {"minItems": least} if least else {}
            return {"type": "array", **bounds, "maxItems": most, "items": inner}
        case m.AnyMap():
            return _ref(_OPAQUE[(owner, field)])
        case m.CommandMap():
            return _ref("ClientCommand")
        case m.OpList():
            return _ref("Ops")
    raise TypeError(f"no schema for {kind!r}")  # pragma: no cover


def _field(hint: Any, owner: str, field: str) -> tuple[dict[str, Any], bool]:
    """The schema of one field and whether it is optional (``X | None``)."""
    optional = False
    if get_origin(hint) in (Union, types.UnionType):
        options = [a for a in get_args(hint) if a is not type(None)]
        optional = len(options) < len(get_args(hint))
        (hint,) = options
    if get_origin(hint) is Annotated:
        _, *extras = get_args(hint)
        kinds = [e for e in extras if isinstance(e, m.Kind)]
        return _kind(kinds[0], owner, field), optional
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _ref(hint.__name__), optional
    if get_origin(hint) is Literal:  # pragma: no cover - every Literal is Annotated with Choice
        return {"enum": list(get_args(hint))}, optional
    raise TypeError(f"{owner}.{field}: no schema for {hint!r}")  # pragma: no cover


def _record(cls: type, name: str) -> dict[str, Any]:
    hints = typing.get_type_hints(cls, include_extras=True)
    props: dict[str, Any] = {}
    required: list[str] = []
    type_tag = getattr(cls, "TYPE", None)
    if type_tag is not None:
        props["type"] = {"const": type_tag}
        required.append("type")
    for f in dataclasses.fields(cls):
        schema, optional = _field(hints[f.name], cls.__name__, f.name)
        props[f.name] = schema
        if not optional:
            required.append(f.name)
    out: dict[str, Any] = {"type": "object"}
    doc = (cls.__doc__ or "").strip()
    if doc:
        out["description"] = " ".join(doc.split())
    out.update(properties=props, required=required, additionalProperties=False)
    return out


def _name(cls: type, client: bool) -> str:
    tag = cls.TYPE  # type: ignore[attr-defined]
    return _CLIENT_NAMES.get(tag, cls.__name__) if client else cls.__name__


def generated() -> dict[str, Any]:
    """The generated definitions: every message and record, and the two unions."""
    defs: dict[str, Any] = {}
    for rec in m.RECORDS:
        defs[rec.__name__] = _record(rec, rec.__name__)
    client = [_name(c, True) for c in m.CLIENT_MESSAGES.values()]
    server = [_name(c, False) for c in m.SERVER_MESSAGES.values()]
    classes: list[type] = [*m.CLIENT_MESSAGES.values(), *m.SERVER_MESSAGES.values()]
    for cls, name in zip(classes, client + server, strict=True):
        defs[name] = _record(cls, name)
    defs["ClientMessage"] = {
        "description": "Any message a client sends (SPEC.md §3-5).",
        "oneOf": [_ref(n) for n in client],
    }
    defs["ServerMessage"] = {
        "description": "Any message the server sends (SPEC.md §3-7).",
        "oneOf": [_ref(n) for n in server],
    }
    return defs


def generated_names() -> set[str]:
    return set(generated())


def build(hand_written: dict[str, Any]) -> dict[str, Any]:
    """The whole schema: the generated definitions and the ``hand_written`` ones."""
    made = generated()
    same = set(hand_written) & set(made)
    if same:  # (a message named like a hand-written definition would replace it)
        raise ValueError(f"generated definitions hide hand-written ones: {sorted(same)}")
    defs = {**hand_written, **made}
    return {
        "$schema": DIALECT,
        "$id": SCHEMA_ID,
        "title": f"Echo Ridge protocol {m.PROTOCOL} (JSON encoding)",
        "description": (
            "Every message of the Echo Ridge protocol v2 as sent in the echoridge.v2.json "
            "subprotocol (bytes as lowercase hex), with the view, decision, command, log entry, "
            "delta op and transcript types.  protocol/SPEC.md is the specification; the message "
            "definitions are generated from echoridge_protocol/messages.py."
        ),
        "anyOf": [_ref("ClientMessage"), _ref("ServerMessage")],
        "$defs": dict(sorted(defs.items())),
    }


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def update(path: pathlib.Path) -> str:
    """The text of ``path`` with its generated definitions made anew (hand-written kept)."""
    current = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    names = generated_names()
    hand = {k: v for k, v in current.get("$defs", {}).items() if k not in names}
    return render(build(hand))


def main(argv: list[str]) -> int:
    path = pathlib.Path(argv[0])
    path.write_text(update(path), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

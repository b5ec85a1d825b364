"""Frames checked against protocol/schema/echoridge.v2.schema.json, fast.

The tests validate thousands of frames (every frame of simulated and real games).  Python's
``jsonschema`` takes about 50 ms for a delta (the views' and log entries' ``oneOf``s), which
made the schema tests a third of ``make test``; ``jsonschema-rs`` (a Rust implementation of
the same drafts) takes microseconds.  So ``errors`` asks the fast one first and ``jsonschema``
only for a frame it refuses, to say why in words.  The two must agree: the schema tests run
the golden files and the mutated frames through both (``both``).
"""

from __future__ import annotations

import json
import pathlib
from functools import cache
from typing import Any

import jsonschema
import jsonschema_rs

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCHEMA_FILE = ROOT / "protocol" / "schema" / "echoridge.v2.schema.json"
SCHEMA: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


class Checker:
    """One schema (the whole file, or one of its definitions) in both validators."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.fast = jsonschema_rs.Draft202012Validator(schema)
        self.slow = jsonschema.Draft202012Validator(schema)

    def errors(self, frame: Any) -> list[str]:
        """What is wrong with ``frame`` (empty: valid), each as "path: message"."""
        if self.fast.is_valid(frame):
            return []
        found = [
            f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}"
            for e in self.slow.iter_errors(frame)
        ]
        return found or ["refused by jsonschema-rs alone"]

    def both(self, frame: Any) -> tuple[bool, bool]:
        """(valid for jsonschema-rs, valid for jsonschema): the tests assert they agree."""
        return self.fast.is_valid(frame), self.slow.is_valid(frame)


@cache
def checker(name: str | None = None) -> Checker:
    """The whole schema's checker, or that of the definition ``name`` (e.g. ``Delta``,
    ``ServerMessage``)."""
    if name is None:
        return Checker(SCHEMA)
    return Checker({"$ref": f"#/$defs/{name}", "$defs": SCHEMA["$defs"]})

"""Every message example in SPEC.md is a golden file, in both encodings, and the codec agrees.

An example in SPEC.md is a ```json block right after a line ``Example: `<name>` ``; its golden
files are ``tests/golden/messages/<name>.json`` (the canonical JSON frame and a newline) and
``<name>.msgpack`` (the canonical msgpack frame).  SPEC.md is the source: after editing an
example, regenerate the files with ``python tests/protocol/test_golden.py`` and review the diff.
"""

from __future__ import annotations

import contextlib
import json
import pathlib
import re
import sys
from typing import Any

import pytest

from echoridge_protocol import codec
from echoridge_protocol import messages as m
from echoridge_protocol.errors import DecodeError

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPEC = ROOT / "protocol" / "SPEC.md"
GOLDEN = ROOT / "tests" / "golden" / "messages"
EXAMPLE = re.compile(r"^Example: `([a-z0-9_-]+)`\n\n```json\n(.*?)\n```$", re.M | re.S)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), f"duplicate keys in {keys}"
    return dict(pairs)


def spec_examples() -> dict[str, Any]:
    text = SPEC.read_text(encoding="utf-8")
    found = EXAMPLE.findall(text)
    names = [name for name, _ in found]
    assert len(names) == len(set(names)), "two SPEC examples share a name"
    return {name: json.loads(block, object_pairs_hook=_no_duplicates) for name, block in found}


EXAMPLES = spec_examples()
NAMES = sorted(EXAMPLES)


def decode_either(frame: bytes | str, sub: str) -> tuple[m.Message, codec.Sender]:
    """Decode a golden frame as whichever side sends it; exactly one side must accept it."""
    decoded: list[tuple[m.Message, codec.Sender]] = []
    for sender in ("client", "server"):
        with contextlib.suppress(DecodeError):
            decoded.append((codec.decode(frame, sub, sender=sender), sender))
    assert len(decoded) == 1, f"decodes as {len(decoded)} messages"
    return decoded[0]


def read_json(name: str) -> str:
    text = (GOLDEN / f"{name}.json").read_text(encoding="utf-8")
    assert text.endswith("\n") and not text.endswith("\n\n")
    return text[:-1]


def read_msgpack(name: str) -> bytes:
    return (GOLDEN / f"{name}.msgpack").read_bytes()


def test_every_json_block_of_the_spec_is_a_named_example() -> None:
    text = SPEC.read_text(encoding="utf-8")
    assert text.count("```json\n") == len(EXAMPLES) > 0


def test_golden_files_are_exactly_the_spec_examples() -> None:
    files = {p.name for p in GOLDEN.iterdir()}
    assert files == {f"{n}.json" for n in NAMES} | {f"{n}.msgpack" for n in NAMES}


@pytest.mark.parametrize("name", NAMES)
def test_spec_example_equals_its_golden_json(name: str) -> None:
    assert json.loads(read_json(name), object_pairs_hook=_no_duplicates) == EXAMPLES[name]


@pytest.mark.parametrize("name", NAMES)
def test_golden_files_decode_and_reencode_byte_identically(name: str) -> None:
    text, binary = read_json(name), read_msgpack(name)
    from_json, sender = decode_either(text, m.SUBPROTOCOL_JSON)
    from_msgpack, sender2 = decode_either(binary, m.SUBPROTOCOL_MSGPACK)
    assert from_json == from_msgpack and sender == sender2
    assert codec.encode(from_json, m.SUBPROTOCOL_JSON) == text
    assert codec.encode(from_msgpack, m.SUBPROTOCOL_MSGPACK) == binary


PUBLISHED = sorted((ROOT / "protocol" / "examples").glob("*.json"))


def test_every_message_type_has_a_golden_file_or_a_published_example() -> None:
    """Each message is shown in SPEC.md or, too long for it (a whole transcript), in a file
    published beside it (protocol/examples/, tests/protocol/test_examples.py)."""
    covered = {type(decode_either(read_msgpack(n), m.SUBPROTOCOL_MSGPACK)[0]) for n in NAMES}
    for path in PUBLISHED:
        covered.add(type(decode_either(path.read_text("utf-8"), m.SUBPROTOCOL_JSON)[0]))
    every = {*m.CLIENT_MESSAGES.values(), *m.SERVER_MESSAGES.values()}
    assert every - covered == set()


def test_examples_cover_the_variants_the_spec_describes() -> None:
    messages = [decode_either(read_msgpack(n), m.SUBPROTOCOL_MSGPACK)[0] for n in NAMES]
    hellos = [x for x in messages if isinstance(x, m.Hello)]
    assert {h.session_kind() for h in hellos} == {"lobby", "seat", "spectator"}
    assert any(h.resume is not None for h in hellos)
    welcomes = [x for x in messages if isinstance(x, m.Welcome)]
    assert {w.session for w in welcomes} == {"lobby", "seat", "spectator"}
    assert any(w.resumed for w in welcomes)
    results = [x for x in messages if isinstance(x, m.Result)]
    assert {r.outcome for r in results} == {"accepted", "rejected", "duplicate"}
    ops = {op[0] for x in messages if isinstance(x, m.Delta) for op in x.ops}
    assert ops == {"set", "del", "push", "trim"}
    assert any(isinstance(x, m.Delta) and not x.ops for x in messages)


def test_every_code_in_the_examples_is_registered() -> None:
    from echoridge_protocol.codes import ALL_CODES

    for name in NAMES:
        message = decode_either(read_msgpack(name), m.SUBPROTOCOL_MSGPACK)[0]
        code = getattr(message, "code", None)
        if isinstance(code, str):
            assert code in ALL_CODES, name


def write_golden() -> None:
    """Regenerate every golden file from the SPEC.md examples (through the codec)."""
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for old in GOLDEN.iterdir():
        old.unlink()
    for name, data in EXAMPLES.items():
        message, _ = decode_either(json.dumps(data, ensure_ascii=False), m.SUBPROTOCOL_JSON)
        (GOLDEN / f"{name}.json").write_text(codec.encode_json(message) + "\n", encoding="utf-8")
        (GOLDEN / f"{name}.msgpack").write_bytes(codec.encode_msgpack(message))
    print(f"wrote {2 * len(EXAMPLES)} files to {GOLDEN.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    write_golden()

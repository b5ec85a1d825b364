"""SPEC.md's examples are real, whole and valid (issue 24.8): every example in SPEC validates
against the schema as it stands there; the ones taken from a game say what that game says
(example_game.py); the whole transcript published beside SPEC (protocol/examples/) is that
game's, validates, and verifies with the protocol package alone and with the engine."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import jsonschema
import pytest

from echoridge.transcript import replay
from echoridge_protocol import codec
from echoridge_protocol import messages as m
from echoridge_protocol.verify import verify_transcript
from tests.protocol.example_game import (
    PUBLISHED,
    PUBLISHED_REPLAY,
    REPLAY,
    examples,
    replay_reply,
    transcript_reply,
)
from tests.protocol.test_golden import EXAMPLES

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "protocol/schema/echoridge.v2.schema.json").read_text("utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def errors(frame: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:160]}"
            for e in VALIDATOR.iter_errors(frame)]  # fmt: skip


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_example_in_the_spec_validates_against_the_schema(name: str) -> None:
    assert errors(EXAMPLES[name]) == []


@pytest.mark.parametrize("name", sorted(examples()))
def test_the_examples_from_the_game_are_what_the_game_says(name: str) -> None:
    """If the engine changes what this game does: ``python -m tests.protocol.example_game``,
    then ``python tests/protocol/test_golden.py``, and read the diff."""
    assert EXAMPLES[name] == json.loads(json.dumps(examples()[name]))


def test_the_published_transcript_is_the_game_s_and_verifies() -> None:
    published = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    assert published == json.loads(json.dumps(transcript_reply()))
    assert errors(published) == []
    message = codec.decode(json.dumps(published), m.SUBPROTOCOL_JSON, sender="server")
    assert isinstance(message, m.Transcript)
    verify_transcript(published["transcript"])  # the protocol package alone
    report = replay(published["transcript"])  # and the rules engine
    assert report.ok, report
    versions = [e["version"] for e in published["transcript"]["entries"]]
    assert versions == list(range(1, len(versions) + 1)) and len(versions) > 13


def test_the_published_replay_answers_the_spec_request_and_agrees_with_the_transcript() -> None:
    """protocol/examples/replay.json is this game's reply to SPEC's ``replay-request``, and it
    passes the check SPEC 4.7 describes against the published transcript."""
    published = json.loads(PUBLISHED_REPLAY.read_text(encoding="utf-8"))
    assert published == json.loads(json.dumps(replay_reply()))
    assert EXAMPLES["replay-request"] == REPLAY
    assert errors(published) == []
    message = codec.decode(json.dumps(published), m.SUBPROTOCOL_JSON, sender="server")
    assert isinstance(message, m.Replay)
    from echoridge_client.replay import check_against_transcript, page_views

    transcript = json.loads(PUBLISHED.read_text(encoding="utf-8"))["transcript"]
    check_against_transcript(page_views(published), transcript, 1)

"""The error-code registry and SPEC.md list the same codes, each once."""

from __future__ import annotations

import pathlib
import re

from echoridge_protocol.codes import ALL_CODES, RULE_CODES

SPEC = pathlib.Path(__file__).resolve().parents[2] / "protocol" / "SPEC.md"


def test_every_code_is_documented_once_and_only_registered_codes_are() -> None:
    documented = re.findall(r"^\| `([a-z]+/[a-z_]+)` \|", SPEC.read_text(), flags=re.M)
    assert len(documented) == len(set(documented))
    assert set(documented) == set(ALL_CODES)


def test_codes_are_well_formed_and_explained() -> None:
    assert set(RULE_CODES) <= set(ALL_CODES)
    for code, meaning in ALL_CODES.items():
        assert re.fullmatch(r"[a-z]+/[a-z_]+", code)  # rules, protocol, auth, table, ...
        assert meaning[0].isupper() and meaning.endswith(".")

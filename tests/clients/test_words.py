"""echoridge_client.words: durations in a person's words."""

from __future__ import annotations

import pytest

from echoridge_client.words import duration


@pytest.mark.parametrize(
    ("ms", "words"),
    [
        (0, "1 second"),
        (1500, "2 seconds"),  # rounded up: never less than what is left
        (61_000, "1 minute 1 second"),
        (3_600_000, "1 hour"),
        (7_140_000, "1 hour 59 minutes"),  # not "1 hour" for nearly two
        (90_061_000, "1 day 1 hour"),
        (86_430_000, "1 day"),  # the two largest units: 1 day 0 hours 0 minutes 30 seconds
    ],
)
def test_a_duration_in_its_two_largest_units(ms: int, words: str) -> None:
    assert duration(ms) == words

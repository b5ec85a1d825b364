"""Replays (issue 27, SPEC 4.7): a finished game rebuilt from its transcript gives, for every
viewer and every version, the view and the log entries the game sent that viewer, page after
page; the SDK's transcript check accepts them and refuses a tampered one; bad requests are
refused with ``protocol/bad_field``."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from echoridge.simulate import COOPERATIVE, play_random, table_seeds
from echoridge.tables import replays
from echoridge.tables.errors import TableError
from echoridge.tables.viewers import SPECTATORS, log_viewer, viewer_view
from echoridge.transcript import Recorder
from echoridge_client.replay import ReplayError, check_against_transcript
from echoridge_protocol import apply
from echoridge_protocol import messages as m
from echoridge_rules import ViewCache
from echoridge_rules.log import entries_for, told


def played(players: int, game: int, mode: str = "competitive") -> tuple[dict[str, Any], Any]:
    """One random game: its transcript, and what each viewer was sent at every version."""
    seeds = table_seeds(27, game, players)
    recorder = Recorder(seeds.table, seeds.server_seed, seeds.client_seeds)
    keys = [*range(players), SPECTATORS]
    caches = {k: ViewCache() for k in keys}
    sent: dict[Any, list[tuple[dict[str, Any], tuple[Any, ...]]]] = {k: [] for k in keys}
    from echoridge_rules import State

    for k in keys:
        sent[k].append((viewer_view(State(), k, caches[k]), ()))
    for command, events, after in play_random(players, seeds.game_seed, seeds.table, mode):
        recorder.record(None, command, events, after)
        said = told(after, command, events)
        for k in keys:
            shown = viewer_view(after, k, caches[k])
            sent[k].append((shown, tuple(entries_for(said, log_viewer(after, k)))))
        final = after
    return recorder.transcript(final), sent


def pages(game: replays.Game, table: str, **asked: Any) -> list[tuple[int, dict[str, Any], Any]]:
    """Every version of one viewer's replay, read in pages of 17."""
    out: list[tuple[int, dict[str, Any], Any]] = []
    start: int | None = 0
    while start is not None:
        request = m.GetReplay(id="r", table=table, start=start, limit=17, **asked)
        page = replays.done(replays.page(game, request))
        view = dict(page.view)
        if not out:
            out.append((page.start, view, tuple(page.log or ())))
        else:
            assert view == out[-1][1], "a page starts from the view the last one ended at"
        for step in page.steps:
            view = apply(view, step.ops)
            out.append((step.version, view, tuple(step.log or ())))
        start = page.next
    return out


@pytest.mark.parametrize(
    ("players", "game", "mode"),
    [(2, 0, "competitive"), (4, 1, "competitive"), (1, 2, "competitive"), (3, 3, COOPERATIVE)],
)
def test_every_viewer_replays_what_it_was_sent(players: int, game: int, mode: str) -> None:
    transcript, sent = played(players, game, mode)
    rebuilt = replays.done(replays.rebuild(transcript))
    assert rebuilt.last == len(transcript["entries"])
    table = transcript["table"]
    for key in [*range(players), SPECTATORS]:
        seat = None if key == SPECTATORS else key
        got = pages(rebuilt, table, seat=seat)
        assert [v for v, _, _ in got] == list(range(rebuilt.last + 1))
        assert [(view, log) for _, view, log in got] == sent[key]
        check_against_transcript([(v, view) for v, view, _ in got], transcript, seat)
    everyone = pages(rebuilt, table, everyone=True)
    assert everyone[-1][1] == transcript["final"]
    assert everyone[len(everyone) // 2][1]["secrets"] is not None  # revealed mid-game too
    check_against_transcript([(v, view) for v, view, _ in everyone], transcript, everyone=True)
    # everything told, unredacted: every entry any viewer was told is in everyone's log
    told_everyone = [e for _, _, log in everyone for e in log]
    assert len(told_everyone) >= max(len([e for s in sent[k] for e in s[1]]) for k in sent)


def test_the_transcript_check_refuses_a_view_the_game_did_not_show() -> None:
    transcript, sent = played(2, 4)
    views = [(v, view) for v, (view, _) in enumerate(sent[0])]
    check_against_transcript(views, transcript, 0)
    middle = len(views) // 2
    for change in ("public", "other seat", "token"):
        tampered = copy.deepcopy(views)
        view = tampered[middle][1]
        if change == "public":
            view["track"] = {**view["track"], "hour": view["track"].get("hour", 0) + 1}
        elif change == "other seat":
            tampered = copy.deepcopy([(v, view) for v, (view, _) in enumerate(sent[1])])
        else:  # a face-down token shown with a value it does not have
            blocks = view["city"]["blocks"]
            i = next(i for i, b in enumerate(blocks) if b["clue"] and b["clue"]["value"] is None)
            clue = blocks[i]["clue"]
            blocks[i] = {**blocks[i], "clue": {**clue, "value": 99}}
        with pytest.raises(ReplayError):
            check_against_transcript(tampered, transcript, 0)


def test_bad_requests_are_refused_with_bad_field() -> None:
    transcript, _ = played(2, 5)
    rebuilt = replays.done(replays.rebuild(transcript))
    table = transcript["table"]
    for asked in ({"seat": 2}, {"seat": 0, "everyone": True}, {"start": rebuilt.last + 1}):
        with pytest.raises(TableError) as refused:
            replays.done(replays.page(rebuilt, m.GetReplay(id="r", table=table, **asked)))
        assert refused.value.code == "protocol/bad_field"
    last = replays.done(replays.page(rebuilt, m.GetReplay(id="r", table=table, start=rebuilt.last)))
    assert last.steps == () and last.next is None and last.last == rebuilt.last


def test_a_damaged_transcript_is_table_damaged() -> None:
    transcript, _ = played(2, 6)
    for broken in (
        {**transcript, "server_seed": "not hex"},
        {k: v for k, v in transcript.items() if k != "client_seeds"},
        {**transcript, "entries": [{"command": {"type": "drive"}}]},
    ):
        with pytest.raises(TableError) as refused:
            replays.done(replays.rebuild(broken))
        assert refused.value.code == "table/damaged"

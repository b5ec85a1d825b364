"""Moderation (store/moderation.py) on a real redis-server: one report per reporter, target and
table, listed newest first, by target and by page; blocks, capped; bans of identities and
networks, until a time or until lifted; the audit log of bans, lifts and other admin actions.

The redis-server is the session's: every test makes identities of its own, filters what it lists
by them, and lifts the network bans it made."""

from __future__ import annotations

import secrets
import uuid

import pytest

from echoridge.store import Storage
from echoridge.store.moderation import MAX_BLOCKS, Moderation, TooMany, network


def pid() -> str:
    return "p-" + uuid.uuid4().hex[:16]


def tid() -> str:
    return "t-" + uuid.uuid4().hex[:10]


@pytest.fixture
def mod(storage: Storage) -> Moderation:
    return Moderation(storage.redis)


async def test_one_report_per_reporter_target_and_table(mod: Moderation) -> None:
    reporter, target, table = pid(), pid(), tid()
    first = await mod.report(reporter, target, table, 12, "abuse", "rude in chat", 1_000)
    assert first is not None and first.id.startswith("r-")
    assert (first.reporter, first.target, first.table) == (reporter, target, table)
    assert (first.version, first.reason, first.text, first.at) == (
        12,
        "abuse",
        "rude in chat",
        1_000,
    )
    assert await mod.report(reporter, target, table, 13, "spam", None, 2_000) is None
    elsewhere = await mod.report(reporter, target, tid(), 3, "cheating", None, 3_000)
    assert elsewhere is not None and elsewhere.text is None
    by_other = await mod.report(pid(), target, table, 12, "abuse", None, 4_000)
    assert by_other is not None
    assert await mod.reports(target=target) == [by_other, elsewhere, first]


async def test_a_report_has_a_known_reason_and_is_not_against_oneself(mod: Moderation) -> None:
    target = pid()
    with pytest.raises(ValueError):
        await mod.report(pid(), target, tid(), 1, "rudeness", None, 1_000)
    with pytest.raises(ValueError):
        await mod.report(target, target, tid(), 1, "other", None, 1_000)
    assert await mod.reports(target=target) == []  # nothing was stored


async def test_reports_are_listed_newest_first_and_by_target(mod: Moderation) -> None:
    base = 10**12 + secrets.randbelow(10**12)  # a window of time of this test's own
    target, other = pid(), pid()
    made = []
    for i, whom in enumerate([target, other, target, other, target]):
        report = await mod.report(pid(), whom, tid(), i, "name", f"#{i}", base + i)
        assert report is not None
        made.append(report)
    newest = await mod.reports(limit=3, before=base + 100)
    assert newest == [made[4], made[3], made[2]]
    assert await mod.reports(target=target) == [made[4], made[2], made[0]]
    assert await mod.reports(target=other) == [made[3], made[1]]
    assert await mod.reports(target=pid()) == []


async def test_reports_page_by_time_without_losing_a_millisecond(mod: Moderation) -> None:
    target = pid()
    times = [1_000, 2_000, 2_000, 2_000, 3_000, 4_000]
    made = []
    for at in times:
        report = await mod.report(pid(), target, tid(), 1, "other", None, at)
        assert report is not None
        made.append(report)
    first = await mod.reports(limit=2, target=target)
    assert [r.at for r in first] == [4_000, 3_000]
    second = await mod.reports(limit=2, before=first[-1].at, target=target)
    # Two would end inside 2 000 ms: the page holds all three of that millisecond.
    assert [r.at for r in second] == [2_000, 2_000, 2_000]
    third = await mod.reports(limit=2, before=second[-1].at, target=target)
    assert third == [made[0]]
    assert await mod.reports(limit=2, before=third[-1].at, target=target) == []
    seen = [r.id for page in (first, second, third) for r in page]
    assert sorted(seen) == sorted(r.id for r in made)  # each once
    with pytest.raises(ValueError):
        await mod.reports(limit=0)


async def test_block_unblock_and_blocked(mod: Moderation) -> None:
    ada, bob, cy = pid(), pid(), pid()
    assert await mod.blocked(ada) == set()
    await mod.block(ada, bob)
    await mod.block(ada, cy)
    await mod.block(ada, bob)  # again: nothing changes
    assert await mod.blocked(ada) == {bob, cy}
    assert await mod.blocked(bob) == set()  # blocks go one way
    assert await mod.unblock(ada, bob) is True
    assert await mod.unblock(ada, bob) is False
    assert await mod.blocked(ada) == {cy}
    with pytest.raises(ValueError):
        await mod.block(ada, ada)
    assert await mod.blocked(ada) == {cy}


async def test_blocks_are_capped(mod: Moderation) -> None:
    who = pid()
    blocked = [pid() for _ in range(MAX_BLOCKS)]
    for whom in blocked:
        await mod.block(who, whom)
    assert await mod.blocked(who) == set(blocked)
    with pytest.raises(TooMany) as refused:
        await mod.block(who, pid())
    assert isinstance(refused.value, ValueError)
    await mod.block(who, blocked[0])  # one blocked already: still fine at the cap
    assert len(await mod.blocked(who)) == MAX_BLOCKS
    await mod.unblock(who, blocked[0])
    await mod.block(who, pid())  # room again
    assert len(await mod.blocked(who)) == MAX_BLOCKS


async def test_an_identity_banned_until_a_time(mod: Moderation) -> None:
    cheat, admin = pid(), pid()
    ban = await mod.ban("identity", cheat, 2_000, "cheating", admin, 1_000)
    assert (ban.kind, ban.target, ban.until, ban.by, ban.at) == (
        "identity",
        cheat,
        2_000,
        admin,
        1_000,
    )
    assert await mod.banned(cheat, None, 1_000) == ban
    assert await mod.banned(cheat, "192.0.2.1", 1_999) == ban
    assert await mod.banned(cheat, None, 2_000) is None  # over (the end is exclusive)
    assert await mod.banned(cheat, None, 5_000) is None
    assert await mod.banned(pid(), None, 1_500) is None  # somebody else
    assert await mod.banned(None, None, 1_500) is None
    with pytest.raises(ValueError):
        await mod.ban("identity", cheat, 1_000, "an end before its start", admin, 1_000)


async def test_a_ban_without_an_end_holds_until_lifted(mod: Moderation) -> None:
    cheat, admin = pid(), pid()
    ban = await mod.ban("identity", cheat, None, "abuse", admin, 1_000)
    assert ban.until is None
    assert await mod.banned(cheat, None, 10**13) == ban
    assert await mod.lift(ban.id, admin, 5_000) is True
    assert await mod.banned(cheat, None, 5_000) is None
    assert await mod.lift(ban.id, admin, 6_000) is False  # lifted before


async def test_lifting_an_unknown_ban(mod: Moderation) -> None:
    assert await mod.lift("b-" + secrets.token_hex(8), pid(), 1_000) is False


async def test_a_banned_network_holds_the_addresses_inside_it(mod: Moderation) -> None:
    admin = pid()
    ban = await mod.ban("network", "203.0.113.77/24", None, "a spam farm", admin, 1_000)
    try:
        assert ban.target == "203.0.113.0/24"
        assert await mod.banned(None, "203.0.113.9", 2_000) == ban
        assert await mod.banned(pid(), "203.0.113.255", 2_000) == ban  # anyone from there
        assert await mod.banned(None, "::ffff:203.0.113.9", 2_000) == ban  # IPv4-mapped
        assert await mod.banned(None, "203.0.114.9", 2_000) is None
        assert await mod.banned(None, "198.51.100.7", 2_000) is None
        assert await mod.banned(None, "a Unix socket", 2_000) is None
    finally:
        assert await mod.lift(ban.id, admin, 3_000) is True
    assert await mod.banned(None, "203.0.113.9", 4_000) is None


async def test_a_banned_ipv6_network(mod: Moderation) -> None:
    admin = pid()
    net, sub = secrets.randbelow(0x10000), secrets.randbelow(0x10000)
    prefix = f"2001:db8:{net:x}:{sub:x}"
    ban = await mod.ban("network", f"{prefix}::1/64", 9_000, "abuse", admin, 1_000)
    try:
        assert ban.target == f"{prefix}::/64"
        assert await mod.banned(None, f"{prefix}:abcd:1:2:3", 2_000) == ban
        assert await mod.banned(None, f"[{prefix}::5]", 2_000) == ban
        next_door = f"2001:db8:{net:x}:{(sub + 1) % 0x10000:x}::5"  # the next /64
        assert await mod.banned(None, next_door, 2_000) is None
        assert await mod.banned(None, f"{prefix}::5", 9_000) is None  # over
    finally:
        await mod.lift(ban.id, admin, 3_000)


async def test_networks_are_normalized_and_not_too_wide(mod: Moderation) -> None:
    assert network("203.0.113.7") == "203.0.113.7/32"
    assert network("2001:db8::7") == "2001:db8::7/128"
    assert network("10.1.2.3/8") == "10.0.0.0/8"
    assert network("2001:db8:1::/32") == "2001:db8::/32"
    for wide in ("10.0.0.0/7", "0.0.0.0/0", "2001:db8::/31", "::/0"):
        with pytest.raises(ValueError, match="too wide"):
            network(wide)
    for bad in ("10.0.0.0/7", "2001::/16", "not an address", "10.0.0.0/33"):
        with pytest.raises(ValueError):
            await mod.ban("network", bad, None, "abuse", pid(), 1_000)


async def test_bans_lists_those_in_force(mod: Moderation) -> None:
    admin = pid()
    timed = await mod.ban("identity", pid(), 2_000, "spam", admin, 1_000)
    forever = await mod.ban("identity", pid(), None, "abuse", admin, 1_100)
    lifted = await mod.ban("identity", pid(), None, "name", admin, 1_200)
    await mod.lift(lifted.id, admin, 1_300)
    ours = {timed.id, forever.id, lifted.id}
    early = [b for b in await mod.bans(1_500) if b.id in ours]
    assert early == [forever, timed]  # newest first
    late = [b for b in await mod.bans(3_000) if b.id in ours]
    assert late == [forever]
    # The ban that was over has been removed, and lifting it is no more possible.
    assert [b for b in await mod.bans(1_500) if b.id in ours] == [forever]
    assert await mod.lift(timed.id, admin, 1_500) is False
    await mod.lift(forever.id, admin, 3_000)


async def test_the_audit_log_has_every_ban_and_lift_in_order(mod: Moderation) -> None:
    admin, other_admin, cheat = pid(), pid(), pid()
    ban = await mod.ban("identity", cheat, 9_000, "cheating", admin, 1_000)
    assert await mod.lift(ban.id, other_admin, 2_000) is True
    table = tid()
    await mod.audit(admin, "close-table", {"table": table}, 3_000)
    log = await mod.audit_log(1_000)
    ours = [e for e in log if e.get("ban") == ban.id or e.get("table") == table]
    about = {"ban": ban.id, "kind": "identity", "target": cheat, "reason": "cheating"}
    assert ours == [
        {"at": "3000", "by": admin, "action": "close-table", "table": table},
        {"at": "2000", "by": other_admin, "action": "lift", **about, "until": "9000"},
        {"at": "1000", "by": admin, "action": "ban", **about, "until": "9000"},
    ]
    assert log[: len(ours)] == ours  # the newest (the test server runs one test at a time)
    assert len(await mod.audit_log(2)) == 2
    assert await mod.lift(ban.id, other_admin, 2_500) is False  # no second lift, no entry
    assert len([e for e in await mod.audit_log(1_000) if e.get("ban") == ban.id]) == 2
    with pytest.raises(ValueError):
        await mod.audit(admin, "close-table", {"by": "somebody else"}, 3_000)

"""The bounded outbox: queuing never waits, a connection that falls behind is told to resync."""

from __future__ import annotations

from echoridge.net.outbox import RESYNC, Outbox


async def test_frames_come_out_in_order_then_the_close() -> None:
    box = Outbox(limit=10)
    for i in range(3):
        box.put(f"f{i}")
    box.close(1000, "bye")
    box.put("late")  # ignored once closing
    assert [await box.get() for _ in range(4)] == ["f0", "f1", "f2", (1000, "bye", True)]
    assert len(box) == 0


async def test_overflow_drops_the_backlog_and_asks_for_a_resync() -> None:
    box = Outbox(limit=3)
    assert [box.put(f"f{i}") for i in range(3)] == [False, False, False]
    assert box.put("f3")  # the fourth frame while three wait: too far behind
    assert box.closing == (RESYNC, "resync: too far behind", True)
    assert await box.get() == (RESYNC, "resync: too far behind", True)
    assert not box.put("f4")  # (overflowed once: it is closing)
    assert len(box) == 0


async def test_a_drop_close_replaces_the_queue_and_a_second_close_is_ignored() -> None:
    box = Outbox(limit=10)
    box.put("a")
    box.close(4004, "table/damaged", drop=True)
    box.close(1000, "bye")
    assert await box.get() == (4004, "table/damaged", True)
    assert len(box) == 0


async def test_the_answer_to_a_client_s_bye_is_not_announced() -> None:
    box = Outbox(limit=10)
    box.put("a")
    box.close(1000, "bye", announce=False)
    assert [await box.get() for _ in range(2)] == ["a", (1000, "bye", False)]

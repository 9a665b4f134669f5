"""CollectorPolicy: the full pass every FULL_EVERY turn ends waits for a quiet moment (no turn
running), and runs anyway once turns have kept coming for MAX_POSTPONED turn ends."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable, Iterator

import pytest

from acp_tui.ui.collector import CollectorPolicy


@pytest.fixture(autouse=True)
def unfrozen() -> Iterator[None]:
    yield
    gc.unfreeze()


async def until(condition: Callable[[], bool], within: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while not condition():
        assert loop.time() < deadline, "condition not reached"
        await asyncio.sleep(0.005)


def policy(busy: list[bool]) -> CollectorPolicy:
    made = CollectorPolicy(full_every=3, idle_delay=0.01, max_postponed=2)
    made.busy = lambda: busy[0]
    return made


async def test_the_full_pass_waits_until_after_the_turn_end_then_runs_when_quiet() -> None:
    busy = [False]
    collector = policy(busy)
    collector.turn_ended()
    collector.turn_ended()
    collector.turn_ended()  # the third: due, but not now
    assert collector.full_passes == 0
    assert gc.get_freeze_count() > 0  # the young generation was still frozen away
    await until(lambda: collector.full_passes == 1)


async def test_a_turn_running_at_the_quiet_moment_postpones_it_to_a_later_turn_end() -> None:
    busy = [True]
    collector = policy(busy)
    for _ in range(3):
        collector.turn_ended()
    loop = asyncio.get_running_loop()
    waited = loop.create_future()
    loop.call_later(0.05, waited.set_result, None)  # well past the quiet moment (0.01 s)
    await waited
    assert collector.full_passes == 0  # a turn was running
    busy[0] = False
    collector.turn_ended()  # the next turn end looks for a quiet moment again
    await until(lambda: collector.full_passes == 1)


async def test_turns_that_never_pause_get_the_full_pass_at_a_turn_end() -> None:
    busy = [True]
    collector = policy(busy)
    for _ in range(4):  # due at the third, postponed there and at the fourth (the limit, 2)
        collector.turn_ended()
    assert collector.full_passes == 0
    collector.turn_ended()  # the limit: at once
    assert collector.full_passes == 1


def test_without_an_event_loop_the_full_pass_runs_at_the_turn_end() -> None:
    collector = policy([True])
    for _ in range(3):
        collector.turn_ended()
    assert collector.full_passes == 1


def test_a_disabled_policy_leaves_the_collector_alone() -> None:
    collector = CollectorPolicy(enabled=False, full_every=1)
    frozen = gc.get_freeze_count()
    collector.turn_ended()
    assert collector.full_passes == 0 and gc.get_freeze_count() == frozen

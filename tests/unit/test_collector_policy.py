"""CollectorPolicy: at a turn end the turn's garbage is collected (cycles that reached the
oldest generation included) before what survives is frozen, and the permanent generation is
never released for a full pass over everything."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from acp_tui.ui.collector import MAX_POSTPONED, CollectorPolicy


@pytest.fixture(autouse=True)
def unfrozen() -> Iterator[None]:
    gc.collect()
    yield
    gc.unfreeze()


class Node:
    """A cycle: only a collection frees it."""

    def __init__(self) -> None:
        self.me = self


def old_garbage() -> weakref.ref[Node]:
    """A cycle that lived through the turn's automatic collections (it is in the oldest
    generation, as most of a streaming turn's objects are by its end), then died."""
    node = Node()
    gc.collect(1)  # (survivors of the two young generations move to the oldest)
    return weakref.ref(node)


def test_the_garbage_of_a_finished_turn_is_collected_not_frozen() -> None:
    collector = CollectorPolicy()
    dead = old_garbage()
    assert dead() is not None  # (garbage no collection has reached yet)
    collector.turn_ended()
    assert dead() is None
    assert collector.collected > 0


def test_what_survives_the_turn_is_frozen() -> None:
    collector = CollectorPolicy()
    kept = [Node() for _ in range(100)]
    collector.turn_ended()
    walked = {id(obj) for obj in gc.get_objects()}  # (what collections still walk)
    assert not any(id(node) in walked for node in kept)
    assert gc.get_freeze_count() >= len(kept)


def test_the_permanent_generation_is_never_released(monkeypatch: pytest.MonkeyPatch) -> None:
    released: list[int] = []
    monkeypatch.setattr(gc, "unfreeze", lambda: released.append(gc.get_freeze_count()))
    collector = CollectorPolicy()
    for _ in range(80):  # (a full pass over everything took 200-900 ms in a long session)
        collector.turn_ended()
    assert released == []


def test_a_disabled_policy_leaves_the_collector_alone() -> None:
    collector = CollectorPolicy(enabled=False)
    dead = old_garbage()
    frozen = gc.get_freeze_count()
    collector.turn_ended()
    assert dead() is not None and gc.get_freeze_count() == frozen
    assert collector.turns == 0


class Session:
    def __init__(self) -> None:
        self.turn_running = False


def test_a_turn_end_while_another_turn_already_runs_freezes_nothing_until_all_are_idle() -> None:
    """The collection comes a few frames after the turn end: a queued prompt (or another tab)
    has started a turn by then, and its streaming message, frozen while alive, would die later
    in the permanent generation with every line it drew (about 0.3 MB a turn)."""
    collector = CollectorPolicy()
    first, second = Session(), Session()
    collector.watch(first)
    collector.watch(second)
    second.turn_running = True
    live = Node()
    frozen = gc.get_freeze_count()
    collector.turn_ended()
    assert gc.get_freeze_count() == frozen  # (nothing frozen: the running turn's objects live)
    assert id(live) in {id(obj) for obj in gc.get_objects()}
    second.turn_running = False
    collector.turn_ended()
    assert gc.get_freeze_count() > frozen
    assert collector.turns == 2 and collector.postponed == 1


def test_turns_back_to_back_freeze_at_every_few_turn_ends_all_the_same() -> None:
    """Never a quiet moment (prompts sent back to back): the unfrozen objects, which every full
    collection walks, would grow with the history; the turn end after `MAX_POSTPONED` in a
    row freezes anyway."""
    collector = CollectorPolicy()
    busy = Session()
    busy.turn_running = True
    collector.watch(busy)
    frozen = gc.get_freeze_count()
    for _ in range(MAX_POSTPONED):
        collector.turn_ended()
    assert gc.get_freeze_count() == frozen
    Node()
    collector.turn_ended()
    assert gc.get_freeze_count() > frozen
    assert collector.postponed == MAX_POSTPONED

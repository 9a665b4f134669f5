"""CollectorPolicy: at a turn end the turn's garbage is collected (cycles that reached the
oldest generation included); what survives is frozen only once it is many objects (and no turn
runs, unless it is too many); the permanent generation is never released for a full pass."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from acp_tui.ui import runtime
from acp_tui.ui.runtime import CollectorPolicy


@pytest.fixture(autouse=True)
def unfrozen() -> Iterator[None]:
    gc.collect()
    yield
    gc.unfreeze()


@pytest.fixture
def few(monkeypatch: pytest.MonkeyPatch) -> None:
    """What survives counts as few (this process has more objects than the app between turns)."""
    monkeypatch.setattr(runtime, "FREEZE_AT", len(gc.get_objects()) + 10_000, raising=False)
    monkeypatch.setattr(runtime, "MAX_UNFROZEN", len(gc.get_objects()) + 20_000, raising=False)


def unfrozen_now() -> set[int]:
    return {id(obj) for obj in gc.get_objects()}  # (what collections still walk)


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


def test_what_survives_the_turn_is_frozen_once_it_is_many(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(runtime, "FREEZE_AT", 0, raising=False)
    collector = CollectorPolicy()
    kept = [Node() for _ in range(100)]
    collector.turn_ended()
    walked = unfrozen_now()
    assert not any(id(node) in walked for node in kept)
    assert gc.get_freeze_count() >= len(kept)
    assert collector.freezes == 1


def test_a_few_survivors_stay_unfrozen_so_what_a_later_turn_replaces_is_collected(
    few: None,
) -> None:
    """Freezing at every turn end froze what the next turn replaces (the footer's keys, a
    restyled widget's component styles), each then garbage no collection reaches (0.4 MB a turn
    with turns back to back)."""
    collector = CollectorPolicy()
    replaced_later = Node()
    frozen = gc.get_freeze_count()
    collector.turn_ended()
    assert gc.get_freeze_count() == frozen and collector.freezes == 0
    dead = weakref.ref(replaced_later)
    del replaced_later
    collector.turn_ended()
    assert dead() is None


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


def test_a_turn_end_while_another_turn_already_runs_freezes_nothing_until_all_are_idle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The collection comes a few frames after the turn end: a queued prompt (or another tab)
    may have started a turn by then, and its streaming message, frozen while alive, would die
    later in the permanent generation with every line it drew."""
    monkeypatch.setattr(runtime, "FREEZE_AT", 0, raising=False)
    monkeypatch.setattr(runtime, "MAX_UNFROZEN", 10**9, raising=False)
    collector = CollectorPolicy()
    first, second = Session(), Session()
    collector.watch(first)
    collector.watch(second)
    second.turn_running = True
    live = Node()
    frozen = gc.get_freeze_count()
    collector.turn_ended()
    assert gc.get_freeze_count() == frozen  # (nothing frozen: the running turn's objects live)
    assert id(live) in unfrozen_now()
    second.turn_running = False
    collector.turn_ended()
    assert gc.get_freeze_count() > frozen
    assert collector.turns == 2 and collector.postponed == 1


def test_turns_back_to_back_freeze_nothing_until_the_survivors_are_too_many(few: None) -> None:
    """Never a quiet moment (prompts sent back to back): each turn end collects and freezes
    nothing (a freeze every third turn end, as before, froze a running turn's widgets each time),
    until the unfrozen objects, which every full collection walks, pass `MAX_UNFROZEN`."""
    collector = CollectorPolicy()
    busy = Session()
    busy.turn_running = True
    collector.watch(busy)
    frozen = gc.get_freeze_count()
    for _ in range(10):
        collector.turn_ended()
    assert gc.get_freeze_count() == frozen
    assert collector.postponed == 10
    many = [Node() for _ in range(runtime.MAX_UNFROZEN - len(gc.get_objects()) + 1)]
    collector.turn_ended()
    assert gc.get_freeze_count() >= frozen + len(many)


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[CollectorPolicy]:
    """A fresh process policy, its full-collection hook installed (removed after)."""
    policy = CollectorPolicy()
    monkeypatch.setattr(runtime, "collection", policy)
    undo = runtime.bound_full_collections()
    yield policy
    undo()


def test_a_full_collection_between_turn_ends_freezes_its_survivors_past_the_bound(
    installed: CollectorPolicy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `session/load` replays a whole conversation between two turn ends: each automatic full
    collection walked everything built so far (240 ms for 300 turns). Past `MAX_UNFROZEN`
    survivors, a full collection freezes them: the next one does not walk them again."""
    monkeypatch.setattr(runtime, "MAX_UNFROZEN", len(gc.get_objects()) // 2, raising=False)
    kept = [Node() for _ in range(100)]
    dead = old_garbage()
    gc.collect()  # (a full collection: the hook runs as after an automatic one)
    assert dead() is None  # (collected first: garbage is never what gets frozen)
    walked = unfrozen_now()
    assert not any(id(node) in walked for node in kept)
    assert installed.bulk_freezes == 1


def test_a_full_collection_with_few_survivors_freezes_nothing(
    installed: CollectorPolicy, few: None
) -> None:
    live = Node()
    frozen = gc.get_freeze_count()
    gc.collect()
    assert gc.get_freeze_count() == frozen and installed.bulk_freezes == 0
    assert id(live) in unfrozen_now()


def test_the_turn_ends_own_collection_is_left_to_the_turn_end(
    installed: CollectorPolicy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A quiet turn end with fewer survivors than `FREEZE_AT` freezes nothing, even when they are
    more than the bound for collections between turn ends."""
    monkeypatch.setattr(runtime, "FREEZE_AT", 10**9, raising=False)
    monkeypatch.setattr(runtime, "MAX_UNFROZEN", 0, raising=False)
    frozen = gc.get_freeze_count()
    installed.turn_ended()
    assert gc.get_freeze_count() == frozen
    assert installed.bulk_freezes == 0 and installed.postponed == 1


def test_the_hook_is_removed_with_the_app(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime, "collection", CollectorPolicy())
    monkeypatch.setattr(runtime, "MAX_UNFROZEN", 0, raising=False)
    undo = runtime.bound_full_collections()
    undo()
    frozen = gc.get_freeze_count()
    gc.collect()
    assert gc.get_freeze_count() == frozen


def test_a_drawn_replay_collects_its_garbage_then_freezes_what_survives(
    installed: CollectorPolicy, few: None
) -> None:
    """A `session/load` replay left its conversation unfrozen for the first turn end to walk
    (46,000 objects after 300 turns, headless): drawn, it is collected and frozen at once, its
    garbage freed rather than kept for good in the permanent generation."""
    kept = [Node() for _ in range(100)]
    dead = old_garbage()
    installed.replay_drawn()
    assert dead() is None
    walked = unfrozen_now()
    assert not any(id(node) in walked for node in kept)
    assert installed.replays == 1 and installed.bulk_freezes == 0  # (not counted twice)


def test_a_disabled_policy_leaves_a_drawn_replay_alone() -> None:
    collector = CollectorPolicy(enabled=False)
    dead = old_garbage()
    frozen = gc.get_freeze_count()
    collector.replay_drawn()
    assert dead() is not None and gc.get_freeze_count() == frozen and collector.replays == 0


def test_full_collections_come_more_often_while_sessions_open_until_the_last_is_open() -> None:
    """A `session/load` replays a whole conversation before any turn end: its full collections
    come after `FULL_EVERY_WHILE_OPENING` middle ones, not 10 (one walked 76,000 objects)."""
    collector = CollectorPolicy()
    before = gc.get_threshold()
    try:
        first = collector.opening()
        second = collector.opening()
        assert gc.get_threshold() == (*before[:2], runtime.FULL_EVERY_WHILE_OPENING)
        first()
        first()  # (once only)
        assert gc.get_threshold()[2] == runtime.FULL_EVERY_WHILE_OPENING
        second()
        assert gc.get_threshold() == before
    finally:
        gc.set_threshold(*before)


def test_a_disabled_policy_keeps_the_interpreters_thresholds() -> None:
    before = gc.get_threshold()
    CollectorPolicy(enabled=False).opening()
    assert gc.get_threshold() == before

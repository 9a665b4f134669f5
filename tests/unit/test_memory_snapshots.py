"""Memory snapshots a benchmark asks for by the environment: written at the chosen turn ends
only, into acp-tui's own files (never a change of the session)."""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tui.host import memory_snapshots
from acp_tui.host.own_files import OwnFiles


@pytest.fixture
def restored() -> Iterator[None]:
    yield
    memory_snapshots.active = None
    tracemalloc.stop()
    gc.unfreeze()


def test_nothing_is_installed_without_the_environment(
    monkeypatch: pytest.MonkeyPatch, restored: None
) -> None:
    monkeypatch.delenv(memory_snapshots.ENV, raising=False)
    assert memory_snapshots.install_from_env() is None
    memory_snapshots.turn_ended()
    assert not tracemalloc.is_tracing()


def test_the_chosen_turn_ends_are_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, restored: None
) -> None:
    monkeypatch.setenv(memory_snapshots.ENV, str(tmp_path))
    monkeypatch.setenv(memory_snapshots.TURNS_ENV, "2")
    assert memory_snapshots.install_from_env() is not None
    memory_snapshots.turn_ended()
    assert list(tmp_path.iterdir()) == []
    memory_snapshots.turn_ended()
    names = sorted(path.name for path in tmp_path.iterdir())
    assert names == ["turn-2.live", "turn-2.tracemalloc", "turn-2.types"]
    assert tracemalloc.Snapshot.load(str(tmp_path / "turn-2.tracemalloc")).traces
    count, _, name = (tmp_path / "turn-2.types").read_text().splitlines()[0].partition(" ")
    assert int(count) > 0 and name
    own = OwnFiles()
    own.add_diagnostics()
    assert tmp_path / "turn-2.types" in own


def test_the_live_counts_are_taken_before_the_apps_hooks_freeze_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, restored: None
) -> None:
    """The app's bound on full collections (`runtime.bound_full_collections`) froze what
    survived the snapshot's own collection before it was counted: ``turn-N.live`` listed a
    handful of objects, so the types minus the live counts (the garbage) read as everything."""

    def freeze_after_full_collections(phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info["generation"] == 2:
            gc.freeze()

    monkeypatch.setenv(memory_snapshots.ENV, str(tmp_path))
    monkeypatch.setenv(memory_snapshots.TURNS_ENV, "1")
    assert memory_snapshots.install_from_env() is not None
    gc.callbacks.append(freeze_after_full_collections)
    try:
        memory_snapshots.turn_ended()
        assert freeze_after_full_collections in gc.callbacks  # (the app's hooks given back)
    finally:
        gc.callbacks.remove(freeze_after_full_collections)
    _, *lines = (tmp_path / "turn-1.live").read_text().splitlines()
    live = sum(int(line.partition(" ")[0]) for line in lines)
    assert live > 10_000  # (this test process's modules, functions, dicts...)

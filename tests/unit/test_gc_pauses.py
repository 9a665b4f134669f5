"""The collection-pause log a benchmark asks for by the environment."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from acp_tui.host import gc_pauses


def test_nothing_is_installed_without_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(gc_pauses.ENV, raising=False)
    before = list(gc.callbacks)
    assert gc_pauses.install_from_env() is None
    assert gc.callbacks == before


def test_each_collection_is_logged_with_its_generation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "gc.log"
    monkeypatch.setenv(gc_pauses.ENV, str(path))
    log = gc_pauses.install_from_env()
    assert log is not None
    try:
        gc.collect(2)
    finally:
        gc.callbacks.remove(log)
        log.out.close()
    lines = [line.split() for line in path.read_text().splitlines()]
    assert lines and lines[-1][0] == "2" and len(lines[-1]) == 3
    assert float(lines[-1][1]) >= 0.0 and float(lines[-1][2]) >= 0.0


def test_an_unwritable_path_installs_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(gc_pauses.ENV, str(tmp_path / "missing" / "gc.log"))
    before = list(gc.callbacks)
    assert gc_pauses.install_from_env() is None
    assert gc.callbacks == before

"""Snapshot tests (pytest-textual-snapshot) keep their SVG baselines in `<repo>/snapshots/`.

The plugin's `snap_compare` fixture stores one SVG per test under `__snapshots__/` beside the
test file (syrupy's default). Here every test in `tests/snapshot/` instead reads and writes
`snapshots/<test module>/<test name>.svg` at the repository root, so baselines sit in one place.

Write a snapshot test as usual:

    def test_something(snap_compare):
        assert snap_compare(MyApp(), terminal_size=(80, 24), press=["tab"])

Create or refresh baselines with `uv run pytest tests/snapshot --snapshot-update`, then look
at them (`rsvg-convert snapshots/<module>/<name>.svg -o /tmp/x.png`) before committing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import pytest_textual_snapshot
from syrupy.location import PyTestLocation

SNAPSHOT_ROOT = Path(__file__).resolve().parents[2] / "snapshots"


class RepoSVGImageExtension(pytest_textual_snapshot.SVGImageExtension):  # type: ignore[misc]
    """The plugin's SVG extension with its directory moved to `<repo>/snapshots/<module>/`."""

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(SNAPSHOT_ROOT / test_location.basename)


@pytest.fixture(autouse=True)
def _snapshots_in_repo_folder(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # snap_compare looks the extension class up in its module at call time
    monkeypatch.setattr(pytest_textual_snapshot, "SVGImageExtension", RepoSVGImageExtension)
    yield

"""How the traffic inspector looks: grouped rows, a paired error, marks, the summary panel."""

from __future__ import annotations

from typing import Any

from tests.ui.inspector_support import InspectorApp, sample_store


def test_inspector_on_a_marked_frame(snap_compare: Any) -> None:
    # the frames are from 1970: the frames/s counter is steadily 0
    assert snap_compare(InspectorApp(sample_store()), terminal_size=(140, 36), press=["x", "home"])

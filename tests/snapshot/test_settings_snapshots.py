"""How the Settings section and the choice picker look (config options with groups, a toggle)."""

from __future__ import annotations

from acp_tui.client.events import SessionState
from acp_tui.ui.screens.choice_picker import ChoicePicker
from tests.snapshot.test_app_snapshots import initialize, make_snapshot, until
from tests.ui.app_harness import SID
from tests.ui.test_settings_section import options

__all__ = ["make_snapshot"]  # the fixture, used by name


def steps() -> list[dict[str, object]]:
    return [initialize(), {"expect": "session/new",
                           "respond": {"sessionId": SID, "configOptions": options()}}]  # fmt: skip


def rows_placed(pilot) -> bool:
    """The three setting rows are mounted and laid out inside their section (on the screen, not
    only in the DOM)."""
    rows = pilot.app.screen.query("SettingRow")
    section = pilot.app.screen.query_one("SettingsSection").region
    placed = (row.region.height > 0 and section.contains_region(row.region) for row in rows)
    return len(rows) == 3 and all(placed)


def test_settings_section_in_the_sidebar(snap_compare, make_snapshot) -> None:
    snapshot = make_snapshot(steps())

    async def run(pilot) -> None:
        await until(pilot, lambda: snapshot.app.session.state is SessionState.READY)
        await until(pilot, lambda: rows_placed(pilot))
        await pilot.pause()

    assert snap_compare(snapshot.app, terminal_size=(120, 34), run_before=run)


def test_model_picker_with_groups(snap_compare, make_snapshot) -> None:
    snapshot = make_snapshot(steps())

    async def run(pilot) -> None:
        await until(pilot, lambda: snapshot.app.session.state is SessionState.READY)
        await until(pilot, lambda: rows_placed(pilot))
        await pilot.press("f6")
        await until(pilot, lambda: isinstance(pilot.app.screen, ChoicePicker))
        await pilot.pause()

    assert snap_compare(snapshot.app, terminal_size=(120, 30), run_before=run)

"""How the session picker looks: the agent's sessions of this directory, titles and times."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import OptionList

from acp_tui.client.events import SessionState
from acp_tui.ui.screens.session_picker import SessionPicker
from tests.snapshot.test_app_snapshots import AGENT_INFO, make_snapshot, until
from tests.ui.app_harness import SID
from tests.ui.test_session_history import ALL, listed

__all__ = ["make_snapshot"]  # the fixture, used by name


def steps() -> list[dict[str, Any]]:
    sessions = [
        listed("s-2", "Fix the parser", "2026-11-01T10:00:00Z"),
        listed("s-3", "Write the docs for [bold]config[/bold]", "2026-10-30T08:15:00Z"),
        listed("s-4", "Ancient history"),
    ]
    return [
        {"expect": "initialize",
         "respond": {"protocolVersion": 1, "agentInfo": AGENT_INFO, "authMethods": [],
                     "agentCapabilities": {"sessionCapabilities": ALL}}},
        {"expect": "session/new", "respond": {"sessionId": SID}},
        {"expect": "session/list", "respond": {"sessions": sessions, "nextCursor": "page-2"}},
    ]  # fmt: skip


def test_session_picker(snap_compare, make_snapshot) -> None:
    snapshot = make_snapshot(steps())

    async def run(pilot) -> None:
        await until(pilot, lambda: snapshot.app.session.state is SessionState.READY)
        snapshot.app.session.cwd = Path("/project")  # the title shows it: a fixed path
        await pilot.press("f5")
        await until(pilot, lambda: isinstance(pilot.app.screen, SessionPicker))
        options = pilot.app.screen.query_one(OptionList)
        await until(pilot, lambda: options.option_count >= 4)
        await pilot.pause()

    assert snap_compare(snapshot.app, terminal_size=(100, 24), run_before=run)

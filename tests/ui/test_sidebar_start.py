"""The sidebar's sections with nothing to show yet (no plan, notice or command: the session is
not open when the screen is built) are composed as their refresh would draw them, and not drawn
again once mounted: the plans' placeholder was mounted in a second pass on the way to ready, and
each section updated and restyled. A section that has something to show by the time the
sidebar is mounted (a screen built for a session already open) is drawn from the thread."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult

from acp_tui.protocol.models import AvailableCommandsUpdate, Plan
from acp_tui.thread.thread import Thread
from acp_tui.ui.widgets.notices_section import NoticesSection
from acp_tui.ui.widgets.plan_view import PlanView
from acp_tui.ui.widgets.sidebar import Sidebar
from tests.agents.scenarios import initialize_ok, new_session_ok, write_scenario
from tests.ui.app_harness import fixed_cwd, plain, run_app

REDRAWS = ("refresh_plans", "refresh_notices", "refresh_commands")


async def test_an_empty_sidebar_is_composed_once_not_drawn_again_at_mount(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    redrawn: list[str] = []
    for name in REDRAWS:
        redraw = getattr(Sidebar, name)

        def counted(sidebar: Sidebar, _name: str = name, _redraw: Any = redraw) -> None:
            redrawn.append(_name)
            _redraw(sidebar)

        monkeypatch.setattr(Sidebar, name, counted)
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.settle()
        sidebar = h.one(Sidebar)
        assert redrawn == []
        plans = list(sidebar.query_one("#plans").query(PlanView))
        assert [plain(view) for view in plans] == ["no plan yet"]
        assert plain(sidebar.query_one("#commands")) == "none"
        assert not sidebar.query_one("#notices-title").display
        assert not sidebar.query_one(NoticesSection).display


class OneSidebar(App[None]):
    def __init__(self, thread: Thread) -> None:
        super().__init__()
        self.thread = thread

    def compose(self) -> ComposeResult:
        yield Sidebar(self.thread, id="sidebar")


async def test_a_sidebar_built_for_an_open_session_shows_its_plan_and_commands() -> None:
    thread = Thread()
    thread.apply(
        AvailableCommandsUpdate.model_validate(
            {"availableCommands": [{"name": "tour", "description": "the tour"}]}
        )
    )
    thread.apply(
        Plan.model_validate(
            {"entries": [{"content": "read the code", "priority": "high", "status": "pending"}]}
        )
    )
    app = OneSidebar(thread)
    async with app.run_test(size=(60, 40)) as pilot:
        await pilot.pause()
        sidebar = app.query_one(Sidebar)
        assert "/tour" in plain(sidebar.query_one("#commands"))
        shown = [plain(view) for view in sidebar.query_one("#plans").query(PlanView)]
        assert len(shown) == 1 and "read the code" in shown[0]

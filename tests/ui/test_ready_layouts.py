"""The frame that says "ready" lays nothing out that did not change size: the MCP servers'
list drawn again when the session became ready (the same list, hidden when there is none) and
the empty conversation's hint (three lines for three) each asked for a layout of the whole
screen, the largest part of that frame. A hint that changes height still asks for one."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pytest
from textual.app import App, ComposeResult
from textual.widget import Widget

from acp_tui.client.events import SessionState
from acp_tui.client.session.facade import SessionFacade
from acp_tui.ui.widgets.empty_state import EmptyState
from acp_tui.ui.widgets.mcp_section import McpSection
from tests.agents.scenarios import initialize_ok, new_session_ok, write_scenario
from tests.ui.app_harness import fixed_cwd, plain, run_app


def record_layouts(monkeypatch: pytest.MonkeyPatch, kind: type[Widget]) -> list[Widget]:
    asked: list[Widget] = []
    refresh = Widget.refresh

    def recording(widget: Widget, *regions: Any, **kwargs: Any) -> Widget:
        if kwargs.get("layout") and isinstance(widget, kind):
            asked.append(widget)
        return refresh(widget, *regions, **kwargs)

    monkeypatch.setattr(Widget, "refresh", recording)
    return asked


async def test_the_mcp_list_asks_no_layout_when_the_session_is_ready_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.settle()
        section = h.one(McpSection)
        asked = record_layouts(monkeypatch, McpSection)
        h.app.session.state_changed.emit(SessionState.READY)  # (as each open, load, restart)
        await h.pilot.pause()
        assert asked == []
        assert plain(section) == "MCP servers" and not section.display


@dataclass
class Thread:
    entries: list[object] = field(default_factory=list)
    commands: list[object] = field(default_factory=list)


@dataclass
class Session:
    """What the hint reads of a session."""

    agent_name: str = "Agent"
    state: SessionState = SessionState.STARTING
    starting_since: float | None = None
    stderr: list[str] = field(default_factory=list)
    thread: Thread = field(default_factory=Thread)

    def stderr_tail(self, lines: int) -> list[str]:
        return self.stderr[-lines:]


class HintApp(App[None]):
    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        yield EmptyState(cast(SessionFacade, self.session), id="hint")


async def test_the_hint_asks_a_layout_only_when_its_height_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session = Session()
    app = HintApp(session)
    async with app.run_test(size=(100, 20)) as pilot:
        await pilot.pause()
        hint = app.query_one(EmptyState)
        asked = record_layouts(monkeypatch, EmptyState)
        session.state = SessionState.READY  # three lines for three
        hint.update_state()
        await pilot.pause()
        assert asked == [] and "Type a prompt and press enter" in plain(hint)
        session.state = SessionState.STARTING
        session.stderr = ["first line", "second line"]  # three lines more
        hint.update_state()
        await pilot.pause()
        assert asked and all(asked_by is hint for asked_by in asked)
        assert "second line" in plain(hint)
        assert hint.content_size.height == 6

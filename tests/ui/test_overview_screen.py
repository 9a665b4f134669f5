"""The overview screen, driven by keys over the real app: every session's row, the cursor on the
current one, Enter/Esc, live refresh, and the agent's text drawn inert."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import DataTable

from acp_tui.client.session.agent_session import AgentSession
from acp_tui.safe_text import is_safe
from acp_tui.ui.app import AcpApp
from acp_tui.ui.screens.overview_screen import KEY_HELP, OverviewScreen
from bench.headless import HeadlessUi
from tests.agents.hostile import shown_tag
from tests.ui.headless_app import headless_app, until
from tests.ui.workspace_sessions import PROJECT, WORKTREE, Workspace, say
from tests.unit.thread_support import Clock

SIZE = (150, 30)


async def opened(app: AcpApp, pilot: Pilot[Any], screen: OverviewScreen) -> list[int | None]:
    chosen: list[int | None] = []
    app.push_screen(screen, chosen.append)
    await until(pilot, lambda: app.screen is screen and screen.shown, "the overview")
    await pilot.pause()
    return chosen


def screen_text(app: AcpApp) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def plain_cells(screen: OverviewScreen) -> list[list[str]]:
    return [[cell.plain for cell in row] for row in screen.shown]


async def test_every_session_with_the_cursor_on_the_current_one_enter_opens() -> None:
    workspace = Workspace(Clock())
    async with headless_app(SIZE) as (app, pilot):
        screen = OverviewScreen(workspace.rows, current=1)
        chosen = await opened(app, pilot, screen)
        claude, evil, codex = plain_cells(screen)
        assert claude[1:] == [
            "claude-agent-acp",
            "/work/project",
            "working",
            "2m05s",
            "12.3k/200.0k $0.42",
            "2 +3 -2",
            "Running the tests now",
        ]
        assert evil[3] == "needs you: a permission question"
        branch, tail = codex[2].split("…")  # the path's end, as much as the column holds
        assert branch == "⎇ acp/codex-1 " and str(WORKTREE.path).endswith(tail) and tail
        assert codex[3:7] == ["finished unread", "2m05s", "3.4k EUR 1.50", "1 +2 -2"]
        assert screen.query_one(DataTable).cursor_row == 1
        assert KEY_HELP in screen_text(app)
        await pilot.press("down", "enter")
        await until(pilot, lambda: chosen, "the overview to close")
        assert chosen == [2] and app.screen is not screen


async def test_escape_closes_without_a_choice() -> None:
    workspace = Workspace(Clock())
    async with headless_app(SIZE) as (app, pilot):
        screen = OverviewScreen(workspace.rows, current=0)
        chosen = await opened(app, pilot, screen)
        await pilot.press("down", "escape")
        await until(pilot, lambda: chosen, "the overview to close")
        assert chosen == [None]


async def test_rows_follow_the_sessions_while_shown() -> None:
    clock = Clock()
    workspace = Workspace(clock)
    async with headless_app(SIZE) as (app, pilot):
        screen = OverviewScreen(workspace.rows, current=0)
        chosen = await opened(app, pilot, screen)
        claude = workspace.sessions[0]
        say(claude, "\nAll 42 tests pass")
        claude.thread.end_turn("end_turn")
        workspace.unread.add(0)
        clock.now += 1
        await until(pilot, lambda: screen.shown[0][7].plain == "All 42 tests pass", "new line")
        assert screen.shown[0][3].plain == "finished unread"
        assert screen.shown[0][4].plain == "2m06s"  # no turn: since the session started
        workspace.add(AgentSession(["gemini"], PROJECT, HeadlessUi()))
        await until(pilot, lambda: len(screen.shown) == 4, "the new session's row")
        assert screen.shown[3][1].plain == "gemini" and screen.shown[3][3].plain == "starting"
        assert screen.query_one(DataTable).row_count == 4
        await pilot.press("down", "down", "down", "down", "enter")
        await until(pilot, lambda: chosen, "the overview to close")
        assert chosen == [3]


async def test_the_agents_text_is_drawn_inert() -> None:
    workspace = Workspace(Clock())
    async with headless_app(SIZE) as (app, pilot):
        screen = OverviewScreen(workspace.rows, current=1)
        await opened(app, pilot, screen)
        assert all(isinstance(cell, Text) for row in screen.shown for cell in row)
        evil = screen.shown[1]
        assert evil[1].plain.startswith(shown_tag("agent")) and shown_tag("title") in evil[1].plain
        assert evil[7].plain.startswith(shown_tag("lastline"))
        assert "[bold red]red[/bold red] [link=https://evil.invalid]l[/link]" in evil[7].plain
        for strip in app.screen._compositor.render_strips():
            for segment in strip:
                assert is_safe(segment.text), segment.text
        text = screen_text(app)
        assert "<lastline>␛]0;PWNED␇␛[2J" in text
        assert "[bold]Done[/bold]" in text  # codex's markup, shown as written


async def test_no_sessions_says_so() -> None:
    async with headless_app(SIZE) as (app, pilot):
        chosen: list[int | None] = []
        screen = OverviewScreen(list, current=0)
        app.push_screen(screen, chosen.append)
        await until(pilot, lambda: app.screen is screen and screen.refreshes, "the overview")
        await pilot.pause()
        assert "No sessions." in screen_text(app) and not screen.query_one(DataTable).display
        await pilot.press("enter", "escape")
        await until(pilot, lambda: chosen, "the overview to close")
        assert chosen == [None]


async def test_a_wider_terminal_gives_the_room_to_the_shared_columns() -> None:
    workspace = Workspace(Clock())
    async with headless_app(SIZE) as (app, pilot):
        screen = OverviewScreen(workspace.rows, current=2)
        chosen = await opened(app, pilot, screen)
        narrow, where = list(screen.widths), screen.shown[2][2].plain
        await pilot.resize_terminal(200, 30)
        await until(pilot, lambda: screen.widths != narrow, "the columns to widen")
        await until(pilot, lambda: screen.shown, "the rows again")
        assert screen.widths[7] > narrow[7] and screen.widths[3] == narrow[3]
        wider = screen.shown[2][2].plain
        assert len(wider) == screen.widths[2] and len(wider) > len(where)
        assert str(WORKTREE.path).endswith(wider.split("…")[1])
        await pilot.press("enter")
        await until(pilot, lambda: chosen, "the overview to close")
        assert chosen == [2]


async def test_at_80_columns_columns_are_left_out_rather_than_scrolled_to() -> None:
    """At 80x24 the table fits its frame (nothing to scroll sideways to): the columns that do
    not fit are left out, the title says which, and a wider terminal brings them back."""
    workspace = Workspace(Clock())
    async with headless_app((80, 24)) as (app, pilot):
        screen = OverviewScreen(workspace.rows, current=0)
        await opened(app, pilot, screen)
        await pilot.pause()
        table = screen.query_one(DataTable)
        assert table.virtual_size.width <= table.scrollable_content_region.width
        assert table.max_scroll_x == 0
        labels = [column.label.plain for column in table.columns.values()]
        assert labels[:4] == ["#", "agent", "where", "state"] and "last line" not in labels
        assert "not shown at this width: tokens · cost, last line" in screen_text(app)
        await pilot.resize_terminal(160, 30)
        await until(pilot, lambda: len(table.columns) == 8, "every column back")
        await until(pilot, lambda: "not shown" not in screen_text(app), "the title as it was")

"""The compare screen, driven by keys over the real app: two sessions' changes matched file by
file, side by side or stacked, 1/2 picks the side to apply, and names/paths drawn inert."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from acp_tui.client.session.agent_session import AgentSession
from acp_tui.client.session.overview import NamedChanges, named_changes
from acp_tui.safe_text import is_safe
from acp_tui.thread.diff import compute_diff
from acp_tui.ui.app import AcpApp
from acp_tui.ui.screens.compare_screen import KEY_HELP, CompareScreen, Side
from acp_tui.ui.widgets.diff_view import DiffView
from bench.headless import HeadlessUi
from tests.agents.hostile import PAYLOAD, hostile, shown_tag
from tests.ui.headless_app import headless_app, until
from tests.ui.workspace_sessions import PROJECT, SHOP_CLAUDE, SHOP_CODEX, WORKTREE, Workspace
from tests.unit.thread_support import Clock

WIDE = (170, 36)
NARROW = (110, 40)


def claude_and_codex() -> tuple[NamedChanges, NamedChanges]:
    claude, _, codex = Workspace(Clock()).sessions
    return named_changes(claude), named_changes(codex)


async def opened(app: AcpApp, pilot: Pilot[Any], screen: CompareScreen) -> list[Side | None]:
    chosen: list[Side | None] = []
    app.push_screen(screen, chosen.append)
    await until(pilot, lambda: app.screen is screen and screen.shows, "the compare screen")
    await pilot.pause()
    return chosen


def screen_text(app: AcpApp) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def panes(screen: CompareScreen) -> list[Any]:
    return list(screen.query(".compare-side"))


async def test_files_matched_across_roots_and_both_diffs_side_by_side() -> None:
    left, right = claude_and_codex()
    assert left.root == PROJECT and right.root == WORKTREE.path
    async with headless_app(WIDE) as (app, pilot):
        screen = CompareScreen(left, right)
        chosen = await opened(app, pilot, screen)
        files = screen.query_one(OptionList)
        labels = [str(files.get_option_at_index(i).prompt) for i in range(files.option_count)]
        assert labels == ["L   +2 -2  R   +2 -2  shop.py", "L   +1 -0  R     -  notes.md"]
        first, second = panes(screen)
        assert first.region.y == second.region.y and second.region.x > first.region.x
        diffs = [view.diff for view in screen.query(DiffView)]
        assert [d.new_text for d in diffs] == [SHOP_CLAUDE, SHOP_CODEX]
        assert diffs[0].old_text == diffs[1].old_text  # the same base
        # each side's path relative to its own root: the same file, named the same
        headers = [view.header_text(60).plain for view in screen.query(DiffView)]
        assert [h.split("  ")[0] for h in headers] == [" shop.py", " shop.py"], headers
        text = screen_text(app)
        assert KEY_HELP in text and "claude-agent-acp  +2 -2" in text
        await pilot.press("down")
        await until(pilot, lambda: screen.shows == 2, "the second file")
        assert [view.diff.path for view in screen.query(DiffView)] == [str(PROJECT / "notes.md")]
        assert "codex-acp did not change this file." in screen_text(app)
        await pilot.press("2")
        await until(pilot, lambda: chosen, "the compare screen to close")
        assert chosen == ["right"] and app.screen is not screen


async def test_narrow_stacks_the_diffs_and_1_applies_the_left() -> None:
    async with headless_app(NARROW) as (app, pilot):
        screen = CompareScreen(*claude_and_codex())
        chosen = await opened(app, pilot, screen)
        first, second = panes(screen)
        assert first.region.x == second.region.x and second.region.y > first.region.y
        await pilot.press("down")  # notes.md: only the left changed it
        await until(pilot, lambda: screen.shows == 2, "the second file")
        await pilot.pause()
        first, second = panes(screen)
        assert second.region.height == 4 and first.region.height > 20  # the diff gets the room
        await pilot.press("1")
        await until(pilot, lambda: chosen, "the compare screen to close")
        assert chosen == ["left"]


async def test_escape_closes_and_a_side_with_nothing_cannot_be_applied(tmp_path: Path) -> None:
    left, _ = claude_and_codex()
    empty = named_changes(AgentSession(["gemini"], tmp_path, HeadlessUi()))
    async with headless_app(WIDE) as (app, pilot):
        screen = CompareScreen(left, empty)
        chosen = await opened(app, pilot, screen)
        await pilot.press("2")
        toast = "gemini changed no files: nothing to apply."
        await until(pilot, lambda: [n for n in app._notifications if n.message == toast], toast)
        assert app.screen is screen and not chosen
        await pilot.press("escape")
        await until(pilot, lambda: chosen, "the compare screen to close")
        assert chosen == [None]


async def test_neither_side_changed_anything(tmp_path: Path) -> None:
    nothing = NamedChanges("a", [], tmp_path)
    async with headless_app(WIDE) as (app, pilot):
        screen = CompareScreen(nothing, NamedChanges("b", [], tmp_path))
        chosen: list[Side | None] = []
        app.push_screen(screen, chosen.append)
        await until(pilot, lambda: app.screen is screen, "the compare screen")
        await pilot.pause()
        assert screen.query_one("#compare-empty", Static).display
        assert "Neither session changed a file." in screen_text(app)
        await pilot.press("q")
        await until(pilot, lambda: chosen, "the compare screen to close")
        assert chosen == [None]


async def test_names_and_paths_from_outside_are_drawn_inert(tmp_path: Path) -> None:
    name = "w[/]\x1b]0;T\x07\u202eout.txt"
    left = NamedChanges(
        hostile("left"), [compute_diff(str(tmp_path / name), "a\n", PAYLOAD + "\n")], tmp_path
    )
    right = NamedChanges("[bold red]right[/bold red]", [], tmp_path)
    async with headless_app(WIDE) as (app, pilot):
        screen = CompareScreen(left, right)
        await opened(app, pilot, screen)
        for strip in app.screen._compositor.render_strips():
            for segment in strip:
                assert is_safe(segment.text), segment.text
        text = screen_text(app)
        assert shown_tag("left") in text and "[bold red]right[/bold red]" in text
        assert "w[/]␛]0;T␇�out.txt" in text

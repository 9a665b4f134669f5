"""The sidebar hides on a narrow screen (as the skeleton drew it) unless the user chose."""

from __future__ import annotations

from pathlib import Path

from acp_tui.ui.first_frame import SIDEBAR_WIDTH, shows_sidebar
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.sidebar import Sidebar
from tests.agents.scenarios import initialize_ok, new_session_ok, write_scenario
from tests.ui.app_harness import AppHarness, fixed_cwd, run_app

NARROW, WIDE = SIDEBAR_WIDTH + 12, 120


def shown(h: AppHarness) -> bool:
    return bool(h.one(Sidebar).display)


async def test_a_narrow_screen_hides_the_sidebar_and_a_wider_one_shows_it(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    assert not shows_sidebar(NARROW) and shows_sidebar(WIDE)
    async with run_app(agent.argv, fixed_cwd(tmp_path), size=(NARROW, 20)) as h:
        assert not shown(h)  # from the first frame on, as the skeleton drew it
        assert h.one(ConversationView).size.width >= NARROW - 2  # the whole width, not a strip
        await h.pilot.resize_terminal(WIDE, 20)
        await h.until(lambda: shown(h), "the sidebar shown on a wide screen")
        await h.pilot.resize_terminal(NARROW, 20)
        await h.until(lambda: not shown(h), "the sidebar hidden again")


async def test_the_users_choice_holds_whatever_the_width(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    async with run_app(agent.argv, fixed_cwd(tmp_path), size=(WIDE, 20)) as h:
        assert shown(h)
        await h.pilot.press("ctrl+b")
        await h.until(lambda: not shown(h), "hidden by ctrl+b")
        await h.pilot.resize_terminal(NARROW, 20)
        await h.pilot.resize_terminal(WIDE, 20)
        await h.pilot.pause()
        assert not shown(h)  # a resize does not bring it back
        await h.pilot.resize_terminal(NARROW, 20)
        await h.pilot.press("ctrl+b")
        await h.until(lambda: shown(h), "shown by ctrl+b on a narrow screen")
        await h.pilot.resize_terminal(NARROW - 2, 20)
        await h.pilot.pause()
        assert shown(h)

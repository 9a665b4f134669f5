"""Several sessions in one app, through keys: ctrl+t opens one, alt+N and ctrl+pageup/down
switch, the tab bar names each with its state, ctrl+w closes (asking while a turn runs), a crash
stays in its tab, and quitting leaves no agent process of any session."""

from __future__ import annotations

import functools
import os
from pathlib import Path

from acp_tui.client.events import SessionState
from acp_tui.ui.screens.main import MainScreen
from acp_tui.ui.screens.question import QuestionScreen
from acp_tui.ui.widgets.crash_banner import CrashBanner
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.workspace.tab import SessionTab
from tests.ui.app_harness import AppHarness
from tests.ui.workspace_support import bar, open_tab, states, workspace_app


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def pid_of(session: object) -> int:
    process = session.connector.process  # type: ignore[attr-defined]
    assert process is not None
    return int(process.pid)


async def test_ctrl_t_enter_opens_the_same_agent_and_keys_switch(tmp_path: Path) -> None:
    async with workspace_app(tmp_path) as h:
        first = h.app.tabs[0]
        assert not bar(h).display, "one session: no tab bar"
        second = await open_tab(h)
        assert len(h.app.tabs) == 2 and h.app.current_tab is second
        assert second.session is not first.session
        assert pid_of(second.session) != pid_of(first.session), "one agent process each"
        assert second.spec.argv == first.spec.argv and second.spec.cwd == first.spec.cwd
        assert isinstance(h.app.screen, MainScreen) and h.app.screen.session is second.session
        await h.until(lambda: bar(h).display, "the tab bar")
        assert [label.current for label in bar(h).labels] == [False, True]

        await h.pilot.press("alt+1")
        await h.until(lambda: h.app.current_tab is first, "alt+1")
        assert isinstance(h.app.screen, MainScreen) and h.app.screen.session is first.session
        await h.pilot.press("alt+2")
        await h.until(lambda: h.app.current_tab is second, "alt+2")
        await h.pilot.press("ctrl+pagedown")  # round: after the last, the first
        await h.until(lambda: h.app.current_tab is first, "ctrl+pagedown")
        await h.pilot.press("ctrl+pageup")
        await h.until(lambda: h.app.current_tab is second, "ctrl+pageup")
        await h.pilot.press("alt+9")  # no ninth tab: nothing happens
        await h.pilot.pause()
        assert h.app.current_tab is second

        # a prompt typed here goes to this tab's agent only
        await h.type_prompt("/help")
        await h.until(lambda: second.session.thread.entries, "the second session's turn")
        await h.until(lambda: not second.session.thread.turn_running, "the turn to end")
        assert not first.session.thread.entries


async def test_quit_with_two_sessions_leaves_no_agent_process(tmp_path: Path) -> None:
    async with workspace_app(tmp_path) as h:
        second = await open_tab(h)
        pids = [pid_of(h.app.tabs[0].session), pid_of(second.session)]
        assert all(alive(pid) for pid in pids)
        await h.pilot.press("ctrl+q")
        await h.until(lambda: not any(alive(pid) for pid in pids), "every agent to end")
        assert h.app.tabs[0].session.state is SessionState.CLOSED
        assert second.session.state is SessionState.CLOSED


async def test_a_crash_stays_in_its_tab_and_the_other_works(tmp_path: Path) -> None:
    async with workspace_app(tmp_path) as h:
        first = h.app.tabs[0]
        second = await open_tab(h)
        await h.type_prompt("/crash")
        await h.until(lambda: second.session.state is SessionState.CRASHED, "the crash")
        await h.until(lambda: h.app.screen.query_one(CrashBanner).display, "the banner")
        assert states(h) == ["idle", "crashed"]
        assert first.session.state is SessionState.READY

        await h.pilot.press("alt+1")
        await h.until(lambda: h.app.current_tab is first, "alt+1")
        assert not h.app.screen.query_one(CrashBanner).display, "no banner in the other tab"
        await h.prompt("/help")
        assert first.session.thread.entries and first.session.state is SessionState.READY
        labels = bar(h).labels
        assert [label.state for label in labels] == ["idle", "crashed"]

        await h.pilot.press("alt+2", "ctrl+r")  # restart there
        await h.until(lambda: second.session.state is SessionState.READY, "the restart")


async def test_a_turn_ending_in_the_background_is_finished_unread(tmp_path: Path) -> None:
    async with workspace_app(tmp_path, app_kwargs={}) as h:
        first = h.app.tabs[0]
        second = await open_tab(h)
        await h.type_prompt("/edit")  # the demo asks permission, then waits
        await h.until(lambda: states(h)[1] == "needs you", "the question")
        await h.pilot.press("alt+1")
        await h.until(lambda: h.app.current_tab is first, "alt+1")
        assert [label.state for label in bar(h).labels] == ["idle", "needs you"]
        await second.session.cancel()  # the turn ends while its tab is in the background
        await h.until(lambda: states(h)[1] == "finished unread", "finished unread")
        await h.until(lambda: bar(h).labels[1].state == "finished unread", "the bar to say so")
        await h.pilot.press("alt+2")
        await h.until(lambda: states(h)[1] == "idle", "read once shown")


async def test_ctrl_w_asks_while_a_turn_runs_and_the_last_one_quits(tmp_path: Path) -> None:
    async with workspace_app(tmp_path) as h:
        first = h.app.tabs[0]
        second = await open_tab(h)
        await h.type_prompt("/edit")
        await h.until(lambda: second.session.thread.turn_running, "the turn")
        await h.pilot.press("ctrl+w")
        await h.until(lambda: isinstance(h.app.screen, QuestionScreen), "the question")
        await h.pilot.press("n")  # keep it
        await h.until(lambda: isinstance(h.app.screen, MainScreen), "back")
        assert second in h.app.tabs and second.session.state is not SessionState.CLOSED
        pid = pid_of(second.session)
        await h.pilot.press("ctrl+w")
        await h.until(lambda: isinstance(h.app.screen, QuestionScreen), "the question again")
        await h.pilot.press("y")
        await h.until(lambda: second not in h.app.tabs, "the tab to close")
        await h.until(lambda: not alive(pid), "its agent to end")
        assert h.app.current_tab is first and isinstance(h.app.screen, MainScreen)
        assert h.app.screen.session is first.session
        assert not bar(h).display, "one session left: no tab bar"
        await h.pilot.press("ctrl+w")  # the last one, idle: asked, since the app would quit
        await h.until(lambda: isinstance(h.app.screen, QuestionScreen), "the last one's question")
        assert isinstance(h.app.screen, QuestionScreen)
        assert "the last session: acp-tui quits" in h.app.screen.question.detail
        await h.pilot.press("n")
        await h.until(lambda: isinstance(h.app.screen, MainScreen), "kept")
        assert first.session.state is not SessionState.CLOSED
        await h.pilot.press("ctrl+w")
        await h.until(lambda: isinstance(h.app.screen, QuestionScreen), "asked again")
        await h.pilot.press("y")
        await h.until(lambda: first.session.state is SessionState.CLOSED, "the quit")


def shown(h: AppHarness, tab: SessionTab) -> bool:
    return h.app.current_tab is tab


async def test_alt_n_from_a_terminal_switches_tabs_and_types_nothing(tmp_path: Path) -> None:
    """tmux (and xterm with metaSendsEscape) send alt+2 as ESC 2: the terminal's bytes go
    through Textual's own parser, as the driver reads them, and reach the app."""
    from textual._xterm_parser import XTermParser  # the driver's reading of terminal bytes

    from acp_tui.ui import runtime

    runtime.read_terminal_keys()  # as the entry point does before it builds the app
    async with workspace_app(tmp_path) as h:
        first = h.app.tabs[0]
        second = await open_tab(h)
        for data, tab in (("\x1b1", first), ("\x1b2", second), ("\x1b1", first)):
            for event in XTermParser().feed(data):
                h.app.post_message(event)
            await h.until(functools.partial(shown, h, tab), f"the tab of {data!r}")
        prompt = h.app.screen.query_one(PromptInput)
        assert prompt.text == "", "nothing typed into the prompt"

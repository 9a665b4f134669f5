"""The app's lifecycle owns the session: however the app ends, the session closes; a listener
that raises anywhere is shown once on screen and does not stop the others."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from acp_tui.client.events import SessionState
from acp_tui.client.session.agent_session import AgentSession
from acp_tui.ui.app import AcpApp
from acp_tui.ui.screen_ui import ScreenUi
from tests.agents.scenarios import end_turn, expect_prompt, initialize_ok, new_session_ok
from tests.ui.app_harness import SIZE, TIMEOUT, agent_runs, fixed_cwd, run_app

LINGER: dict[str, Any] = {"sleep": 60}  # stays alive until acp-tui ends it


async def test_exit_from_anywhere_closes_the_session_and_ends_the_agent(tmp_path: Path) -> None:
    argv = agent_runs(tmp_path, [initialize_ok(), new_session_ok("s-1"), LINGER])
    states: list[SessionState] = []

    def factory(bridge: ScreenUi) -> AgentSession:
        session = AgentSession(argv, fixed_cwd(tmp_path), bridge)
        session.state_changed.subscribe(states.append)
        return session

    app = AcpApp(factory)
    async with app.run_test(size=SIZE) as pilot:
        async with asyncio.timeout(TIMEOUT):
            while app.session.state is not SessionState.READY:
                await pilot.pause(0.02)
        process = app.session._process
        assert process is not None and process.exit is None
        app.exit(0)  # not the quit action: nothing but the app's lifecycle closes the session
    assert states[-1] is SessionState.CLOSED
    assert states.count(SessionState.CLOSED) == 1
    assert process.exit is not None  # the agent was ended, not left running


async def test_a_raising_listener_is_shown_once_and_the_others_still_run(tmp_path: Path) -> None:
    turn = [expect_prompt(), end_turn()]
    argv = agent_runs(tmp_path, [initialize_ok(), new_session_ok("s-1"), *turn, *turn])
    async with run_app(argv, fixed_cwd(tmp_path)) as h:
        seen: list[SessionState] = []

        def broken_listener(state: SessionState) -> None:
            raise RuntimeError(f"cannot show {state}")

        h.session.state_changed.subscribe(broken_listener)
        h.session.state_changed.subscribe(seen.append)
        await h.prompt("one")
        await h.prompt("two")
        assert seen.count(SessionState.RUNNING) == 2  # the emit went on past the failure
        shown = [text for text in h.notified if "broken_listener" in text]
        assert len(shown) == 1, h.notified
        assert "failed on session state: RuntimeError: cannot show running" in shown[0]
        assert any("broken_listener" in line for line in h.logged_errors)

"""Closing a session with hundreds of permission questions queued: they are cancelled without
the screen following each cancellation (each was a card redrawn and a look-up of every prompt on
the screen: quitting with 500 queued took 6-9 s)."""

from __future__ import annotations

from pathlib import Path

from acp_tui.thread import thread_changes
from acp_tui.ui.screens.main import MainScreen
from tests.agents.hostile import permission_flood
from tests.agents.scenarios import expect_prompt, initialize_ok, new_session_ok, write_scenario
from tests.ui.app_harness import SID, fixed_cwd, run_app


async def test_closing_with_many_questions_queued_tells_the_screen_nothing(
    tmp_path: Path,
) -> None:
    count = 120
    steps = [initialize_ok(), new_session_ok(SID), expect_prompt(), *permission_flood(count)]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("go")
        thread = h.session.thread
        await h.until(lambda: len(thread.permission_queue) == count, "every question queued")
        screen = h.app.screen
        assert isinstance(screen, MainScreen)
        heard: list[thread_changes.Change] = []
        thread.subscribe(heard.append)
        looked_up = 0
        open_prompts = screen.open_prompts

        def counted() -> list:  # type: ignore[type-arg]
            nonlocal looked_up
            looked_up += 1
            return open_prompts()

        screen.open_prompts = counted  # type: ignore[method-assign]
        await h.session.close()
        assert len(thread.permission_queue) == 0  # every question cancelled
        assert all(not ask.open for e in thread.tool_calls.values() for ask in e.permissions)
        assert heard == [] and looked_up == 0

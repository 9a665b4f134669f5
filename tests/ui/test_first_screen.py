"""The first screen says whom you talk to and how: the agent's name (the preset's or the demo's
while it starts, never a module path), how to send, `/` and `@`, the help key, and `/tour` when
the agent offers it; the hint goes once the conversation has something."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp_tui.ui.widgets.empty_state import EmptyState
from acp_tui.ui.widgets.status_bar import StatusBar
from tests.agents.scenarios import initialize_ok
from tests.ui.app_harness import agent_runs, demo_argv, demo_env, fixed_cwd, plain, run_app


async def test_a_starting_agent_is_named_as_launched(tmp_path: Path) -> None:
    hang: list[dict[str, Any]] = [{"sleep": 60}]  # never answers initialize
    argv = agent_runs(tmp_path, hang)
    kwargs = {"name": "Claude Code"}
    async with run_app(argv, fixed_cwd(tmp_path), wait_ready=False, session_kwargs=kwargs) as h:
        status = h.one(StatusBar)
        await h.until(lambda: "● starting" in status.render().plain, "the status bar")
        assert status.render().plain.strip().startswith("Claude Code"), status.render().plain
        assert "Starting Claude Code…" in plain(h.one(EmptyState))


async def test_the_empty_conversation_says_how_to_begin_and_goes_with_the_first_prompt(
    tmp_path: Path,
) -> None:
    async with run_app(demo_argv(), fixed_cwd(tmp_path), env=demo_env()) as h:
        hint = h.one(EmptyState)
        await h.until(lambda: "/tour" in plain(hint), "the agent's /tour in the hint")
        text = plain(hint)
        assert "acp-tui demo agent" in text and "enter" in text
        assert "/ commands" in text and "@ attach a file" in text and "f1 help" in text
        await h.type_prompt("/help")
        await h.until(lambda: not hint.display, "the hint gone")


async def test_a_scripted_agent_without_a_tour_gets_no_tour_hint(tmp_path: Path) -> None:
    argv = agent_runs(tmp_path, [initialize_ok(), {"expect": "session/new", "respond": {
        "sessionId": "s"}}, {"sleep": 60}])  # fmt: skip
    async with run_app(argv, fixed_cwd(tmp_path)) as h:
        text = plain(h.one(EmptyState))
        assert "/ commands" in text and "/tour" not in text


async def test_the_file_index_finishing_as_the_app_closes_raises_nothing(tmp_path: Path) -> None:
    """The composer's file index is built in a thread that calls back on the loop: one that
    ended while the app closed (the completion list already removed) raised NoMatches, a
    failed worker that ended a test run."""
    from acp_tui.ui.widgets.completion_list import CompletionList
    from acp_tui.ui.widgets.composer import Composer

    async with run_app(demo_argv(), fixed_cwd(tmp_path), env=demo_env()) as h:
        composer = h.one(Composer)
        await composer.query_one(CompletionList).remove()
        composer._index_built()  # the thread's callback, as it lands during the close
        composer._index_changed(None)

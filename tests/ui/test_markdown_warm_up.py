"""The Markdown renderer's one-time costs (markdown-it, pygments lexers) are paid once the
session is open, in a thread: never before the prompt is usable, never holding a key."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from acp_tui.client.events import SessionState
from acp_tui.ui.app import AcpApp
from acp_tui.ui.markdown import highlight, warm_up
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.agents.scenarios import initialize_ok, write_scenario
from tests.ui.app_harness import fixed_cwd, run_app, session_with_modes


async def test_the_warm_up_starts_once_the_prompt_is_usable_and_idle_and_never_holds_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    running, release = threading.Event(), threading.Event()
    states: list[SessionState] = []

    def held_warm() -> None:  # a warm-up that lasts until the test is done typing
        running.set()
        release.wait(60)

    monkeypatch.setattr(warm_up, "_started", threading.Event())
    monkeypatch.setattr(warm_up, "warm", held_warm)
    monkeypatch.setattr(warm_up, "AFTER", 0.2)
    apps: list[AcpApp] = []
    mount = AcpApp.on_mount

    async def recording_mount(app: AcpApp) -> None:
        apps.append(app)
        await mount(app)

    start = warm_up.start_if_idle

    def recording_start(turn_running: bool) -> threading.Thread | None:
        states.append(apps[0].session.state)
        return start(turn_running)

    monkeypatch.setattr(AcpApp, "on_mount", recording_mount)
    monkeypatch.setattr(warm_up, "start_if_idle", recording_start)
    agent = write_scenario(tmp_path, [initialize_ok(), session_with_modes()])
    try:
        async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
            await h.ready()
            await h.until(running.is_set, "the warm-up running")
            assert states == [SessionState.READY]
            await h.type_prompt("typed while it warms", send=False)
            assert h.one(PromptInput).text == "typed while it warms"
            assert not release.is_set()  # (the warm-up was still running)
    finally:
        release.set()


def test_no_warm_up_while_a_turn_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A turn already running when the warm-up is due builds what it uses itself: the warm-up
    never adds to the work of a reply."""
    monkeypatch.setattr(warm_up, "_started", threading.Event())
    assert warm_up.start_if_idle(turn_running=True) is None
    assert not warm_up._started.is_set()


def test_warming_builds_the_parser_and_the_lexers_a_message_then_reuses() -> None:
    warm_up.warm()
    assert "markdown_it" in sys.modules
    lexers = [highlight.lexer_for(language) for language in warm_up.LANGUAGES]
    assert all(lexer is not None for lexer in lexers)
    hits = highlight.lexer_for.cache_info().hits
    highlight.lexer_for("python")
    assert highlight.lexer_for.cache_info().hits == hits + 1  # built once, by the warm-up


def test_warming_combines_the_root_rules_of_the_languages_it_warms() -> None:
    from acp_tui.ui.markdown import state_rules

    python = highlight.lexer_for("python")
    assert python is not None
    key = (type(python), "root")
    state_rules._ready.pop(key, None)  # (another test in this process may have built it)
    assert state_rules.matcher_for(*key) is None
    warm_up.warm()
    assert state_rules.matcher_for(*key) is not None

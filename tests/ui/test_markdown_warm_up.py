"""The Markdown renderer's one-time costs (markdown-it, pygments lexers) are paid once the
session is open, in a thread: never before the prompt is usable, never holding a key."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from acp_tui.client.events import SessionState
from acp_tui.ui.app import AcpApp
from acp_tui.ui.early_prompt import EarlyPrompt
from acp_tui.ui.markdown import highlight, warm_up
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.agents.scenarios import (
    end_turn,
    expect_prompt,
    initialize_ok,
    new_session_ok,
    update,
    write_scenario,
)
from tests.ui.app_harness import SID, fixed_cwd, run_app, session_with_modes, text


def mounted_apps(monkeypatch: pytest.MonkeyPatch) -> list[AcpApp]:
    """The apps mounted from now on (the test reads its session from the warm-up's thread)."""
    apps: list[AcpApp] = []
    mount = AcpApp.on_mount

    async def recording_mount(app: AcpApp) -> None:
        apps.append(app)
        await mount(app)

    monkeypatch.setattr(AcpApp, "on_mount", recording_mount)
    return apps


async def test_the_warm_up_starts_once_the_prompt_is_usable_and_idle_and_never_holds_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    running, release = threading.Event(), threading.Event()
    states: list[SessionState] = []

    def held_warm(quiet: Callable[[], bool]) -> None:  # lasts until the test is done typing
        running.set()
        release.wait(60)

    monkeypatch.setattr(warm_up, "_started", threading.Event())
    monkeypatch.setattr(warm_up, "_finished", threading.Event())
    monkeypatch.setattr(warm_up, "warm", held_warm)
    monkeypatch.setattr(warm_up, "AFTER", 0.2)
    apps = mounted_apps(monkeypatch)
    start = warm_up.start_if_quiet

    def recording_start(streaming: Callable[[], bool]) -> threading.Thread | None:
        states.append(apps[0].session.state)
        return start(streaming)

    monkeypatch.setattr(warm_up, "start_if_quiet", recording_start)
    agent = write_scenario(tmp_path, [initialize_ok(), session_with_modes()])
    try:
        async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
            await h.ready()
            await h.until(running.is_set, "the warm-up running")
            assert states[0] is SessionState.READY
            await h.type_prompt("typed while it warms", send=False)
            assert h.one(PromptInput).text == "typed while it warms"
            assert not release.is_set()  # (the warm-up was still running)
    finally:
        release.set()


def test_no_warm_up_while_text_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    """A message streaming when the warm-up is due builds what it uses itself: the warm-up
    never adds to the work of a reply."""
    monkeypatch.setattr(warm_up, "_started", threading.Event())
    assert warm_up.start_if_quiet(lambda: True) is None
    assert not warm_up._started.is_set()


def test_the_warm_up_stops_before_its_next_step_once_text_streams_and_goes_on_later(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    done: list[int] = []
    streaming = False

    def step(number: int) -> Callable[[], object]:
        def run() -> None:
            nonlocal streaming
            done.append(number)
            streaming = number == 1 and done.count(1) == 1  # text streams during step 1

        return run

    monkeypatch.setattr(warm_up, "_started", threading.Event())
    monkeypatch.setattr(warm_up, "_finished", threading.Event())
    monkeypatch.setattr(warm_up, "steps", lambda: [step(0), step(1), step(2), step(3)])
    thread = warm_up.start_if_quiet(lambda: streaming)
    assert thread is not None
    thread.join(10)
    assert done == [0, 1]  # (step 1 was under way: it finished)
    assert not warm_up.finished()
    assert warm_up.start_if_quiet(lambda: streaming) is None  # still streaming
    streaming = False
    thread = warm_up.start_if_quiet(lambda: streaming)
    assert thread is not None
    thread.join(10)
    assert done == [0, 1, 0, 1, 2, 3]  # (a step done before is cheap again: kept by its cache)
    assert warm_up.finished()


async def test_the_warm_up_runs_while_the_agent_thinks_over_a_prompt_sent_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A prompt sent as the session opens (typed before the app was drawn) left the first reply
    to pay for the renderer: the warm-up waited for no turn to run. It now runs while no text
    streams, so it is done while the agent thinks."""
    warmed = threading.Event()
    turn_running: list[bool] = []
    apps = mounted_apps(monkeypatch)

    def recording_warm(quiet: Callable[[], bool]) -> None:
        turn_running.append(apps[0].session.turn_running)
        warmed.set()

    monkeypatch.setattr(warm_up, "_started", threading.Event())
    monkeypatch.setattr(warm_up, "_finished", threading.Event())
    monkeypatch.setattr(warm_up, "warm", recording_warm)
    monkeypatch.setattr(warm_up, "AFTER", 0.05)
    steps = [
        initialize_ok(),
        new_session_ok(),
        expect_prompt(),
        {"wait_file": str(tmp_path / "go")},  # the agent thinks until the test lets it answer
        update(SID, {"sessionUpdate": "agent_message_chunk", "content": text("Done.")}),
        end_turn(),
    ]
    agent = write_scenario(tmp_path, steps)
    early = EarlyPrompt()
    early.feed(b"go\r")  # typed before the app was drawn: sent as the session opens
    early.finish()
    kwargs = {"early_prompt": early}
    async with run_app(agent.argv, fixed_cwd(tmp_path), wait_ready=False, app_kwargs=kwargs) as h:
        await h.until(lambda: h.session.turn_running, "the turn running")
        await h.until(warmed.is_set, "the warm-up while the agent thinks")
        assert turn_running == [True]
        (tmp_path / "go").write_text("")
        await h.until(lambda: not h.session.turn_running, "the turn's end")


def test_warming_builds_the_parser_and_the_lexers_a_message_then_reuses() -> None:
    warm_up.warm()
    assert "markdown_it" in sys.modules
    lexers = [highlight.lexer_for(language) for language in warm_up.LANGUAGES]
    assert all(lexer is not None for lexer in lexers)
    assert all(highlight.lexer_ready(language) for language in warm_up.LANGUAGES)
    assert highlight.lexer_for("python") is lexers[0]  # built once, by the warm-up


def test_warming_combines_the_root_rules_of_the_languages_it_warms() -> None:
    from acp_tui.ui.markdown import state_rules

    python = highlight.lexer_for("python")
    assert python is not None
    key = (type(python), "root")
    state_rules._ready.pop(key, None)  # (another test in this process may have built it)
    assert state_rules.matcher_for(*key) is None
    warm_up.warm()
    assert state_rules.matcher_for(*key) is not None

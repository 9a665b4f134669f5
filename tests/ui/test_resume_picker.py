"""`--resume` alone: the session picker comes once the agent is connected, before any session is
open. A prompt the user sent before goes to the session they pick (or to a new one when they
close the picker), never to a session opened before the pick; and keys typed as the picker
appears answer nothing in it (they go on into the composer)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp_tui.client.session.history import OpenRequest
from acp_tui.ui.key_guard import KeyGuard
from acp_tui.ui.screens.session_picker import SessionPicker
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.agents.scenarios import end_turn, initialize_ok, write_scenario
from tests.ui.app_harness import AppHarness, fixed_cwd, run_app
from tests.ui.test_session_history import listed, picker_rows
from tests.ui.test_typing_through_questions import ManualClock, main_prompt, type_keys

CAPS: dict[str, Any] = {"list": {}, "resume": {}, "close": {}}
LISTED = {
    "expect": "session/list",
    "respond": {
        "sessions": [
            listed("old-3", "Write docs", "2026-11-02T10:00:00Z"),
            listed("old-2", "Fix the parser", "2026-11-01T10:00:00Z"),
        ]
    },
}
PICKER_WAIT = 10.0  # (the old flow never showed it: a session/new nobody answers came first)


def scenario(tmp_path: Path, *after_list: dict[str, Any]) -> Any:
    """The agent answers `initialize` once the test lets it go (file `go`): before that the
    session is starting and what the user sends is queued."""
    steps = [{"wait_file": "go"}, initialize_ok(sessionCapabilities=CAPS), LISTED, *after_list]
    return write_scenario(tmp_path, steps)


def picking(**kwargs: Any) -> dict[str, Any]:
    return {"open_request": OpenRequest(pick=True), **kwargs}


async def picker_shown(h: AppHarness, cwd: Path) -> None:
    (cwd / "go").write_text("")
    shown = lambda: isinstance(h.app.screen, SessionPicker) and h.app.screen.is_mounted  # noqa: E731
    await h.until(shown, "the picker", PICKER_WAIT)
    await h.until(lambda: any("Fix the parser" in row for row in picker_rows(h)), "its rows")
    assert h.sent_methods("session/new") == [], "no session is opened before the pick"
    assert h.sent_methods("session/prompt") == []


def prompts(h: AppHarness) -> list[tuple[str, str]]:
    """(session id, text) of each prompt sent."""
    return [
        (frame["params"]["sessionId"], frame["params"]["prompt"][0]["text"])
        for frame in h.sent_methods("session/prompt")
    ]


async def test_a_prompt_sent_before_the_pick_goes_to_the_session_picked(tmp_path: Path) -> None:
    resume = {"expect": "session/resume", "match": {"sessionId": "old-2"}, "respond": {}}
    turn = {"expect": "session/prompt", "match": {"sessionId": "old-2"}, "save_as": "p"}
    agent = scenario(tmp_path, resume, turn, end_turn("p"))
    cwd = fixed_cwd(tmp_path)
    async with run_app(agent.argv, cwd, wait_ready=False, app_kwargs=picking()) as h:
        await h.type_prompt("fix the tests")
        await h.until(lambda: len(h.session.queue) == 1, "the prompt queued while starting")
        await picker_shown(h, cwd)

        await type_keys(h, "parser")
        await h.until(lambda: len(picker_rows(h)) == 1, "the search")
        await h.pilot.press("enter")
        await h.until(lambda: prompts(h), "the queued prompt sent")
        assert prompts(h) == [("old-2", "fix the tests")]
        assert h.session.session_id == "old-2"
        assert h.sent_methods("session/new") == []
        await h.settle()


async def test_closing_the_picker_sends_it_to_a_new_session(tmp_path: Path) -> None:
    new = {"expect": "session/new", "respond": {"sessionId": "sess-9"}}
    turn = {"expect": "session/prompt", "match": {"sessionId": "sess-9"}, "save_as": "p"}
    agent = scenario(tmp_path, new, turn, end_turn("p"))
    cwd = fixed_cwd(tmp_path)
    async with run_app(agent.argv, cwd, wait_ready=False, app_kwargs=picking()) as h:
        await h.type_prompt("hello")
        await h.until(lambda: len(h.session.queue) == 1, "the prompt queued while starting")
        await picker_shown(h, cwd)
        await h.pilot.press("escape")
        await h.until(lambda: prompts(h), "the queued prompt sent")
        assert prompts(h) == [("sess-9", "hello")]
        assert h.sent_methods("session/resume") == []
        await h.settle()


async def test_keys_typed_as_the_picker_appears_answer_nothing_there(tmp_path: Path) -> None:
    resume = {"expect": "session/resume", "match": {"sessionId": "old-3"}, "respond": {}}
    turn = {"expect": "session/prompt", "match": {"sessionId": "old-3"}, "save_as": "p"}
    agent = scenario(tmp_path, resume, turn, end_turn("p"))
    cwd = fixed_cwd(tmp_path)
    clock = ManualClock()
    kwargs = picking(key_guard=KeyGuard(clock))
    async with run_app(agent.argv, cwd, wait_ready=False, app_kwargs=kwargs) as h:
        await h.type_prompt("update the", send=False)
        await picker_shown(h, cwd)
        screen = h.app.screen
        assert isinstance(screen, SessionPicker)
        picker: SessionPicker = screen
        # the user goes on typing their prompt: the picker appeared mid-word
        await type_keys(h, " docs")
        await h.pilot.press("enter", "down", "enter", "ctrl+f", "escape")
        await h.pilot.pause()
        assert h.app.screen is picker, "no key typed before it answered the picker"
        assert main_prompt(h).text == "update the docs", "the keys went on into the composer"
        assert h.sent_methods("session/resume") == [] and h.sent_methods("session/new") == []

        # the user stops to think: the picker still waits to be chosen (it came mid-word)
        clock.advance(2.5)
        await h.pilot.press("enter")
        await h.pilot.pause()
        assert h.app.screen is picker and not picker.taking_keys
        # f4: the user picks on purpose: the first row (the newest, old-3)
        await h.pilot.press("f4")
        await h.until(lambda: picker.taking_keys, "the picker to take keys")
        await h.pilot.press("enter")
        await h.until(lambda: h.session.session_id == "old-3", "the session picked")
        await h.until(lambda: not isinstance(h.app.screen, SessionPicker), "the picker gone")
        h.one(PromptInput).focus()
        await h.pilot.press("enter")
        await h.until(lambda: prompts(h), "the prompt sent")
        assert prompts(h) == [("old-3", "update the docs")]
        await h.settle()


async def test_the_picker_the_user_asked_for_does_not_say_needs_you(tmp_path: Path) -> None:
    """`--resume` alone is the user asking for the picker: its tab read "needs you", which is
    for the agent asking (a permission, a login it demands)."""
    from acp_tui.ui.workspace.tab import TabState

    new = {"expect": "session/new", "respond": {"sessionId": "sess-9"}}
    agent = scenario(tmp_path, new)
    cwd = fixed_cwd(tmp_path)
    async with run_app(agent.argv, cwd, wait_ready=False, app_kwargs=picking()) as h:
        await picker_shown(h, cwd)
        tab = h.app.current_tab
        assert tab.ui.pending == 0 and tab.state is not TabState.NEEDS_YOU
        await h.pilot.press("escape")
        await h.ready()

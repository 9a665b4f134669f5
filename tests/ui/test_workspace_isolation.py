"""A question of one session is answered only from that session.

Tab B's agent asks three things while B is in the background (a permission request, an
elicitation form, a write held for review). The user types in tab A (`a`, `y`, enter, …): none
of it reaches B, B's agent gets no answer, its tab says "needs you" and a notification goes out.
Switching to B shows its questions; keys typed just before the switch answer none of them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acp_tui.config import HoldWrites, Settings
from acp_tui.presets import Preset
from acp_tui.ui.key_guard import KeyGuard
from acp_tui.ui.screens.elicitation_screen import ElicitationScreen
from acp_tui.ui.screens.main import MainScreen
from acp_tui.ui.screens.review_screen import WriteReviewScreen
from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.workspace.spec import SessionSpec
from acp_tui.ui.workspace.tab import SessionTab
from tests.agents.scenarios import ScriptedAgent, expect_prompt, write_scenario
from tests.ui.app_harness import GATE_MODE, SID, AppHarness, gate, one_turn
from tests.ui.test_permission_focus import RISKY_FIRST
from tests.ui.test_typing_through_questions import FORM, ManualClock
from tests.ui.workspace_support import bar, open_tab, states, workspace_app

ASKS = {901: "session/request_permission", 902: "elicitation/create", 903: "fs/write_text_file"}


def raw_request(request_id: int, params: dict[str, Any]) -> dict[str, Any]:
    """A request sent without waiting for its answer (so all three are open at once)."""
    frame = {"jsonrpc": "2.0", "id": request_id, "method": ASKS[request_id], "params": params}
    return {"raw": json.dumps(frame) + "\n"}


def asking_agent(tmp_path: Path, cwd: Path) -> ScriptedAgent:
    call = {"toolCallId": "c1", "title": "Edit a.txt", "kind": "edit"}
    steps = one_turn([
        gate(),
        raw_request(901, {"sessionId": SID, "toolCall": call, "options": RISKY_FIRST}),
        raw_request(902, {"sessionId": SID, "mode": "form", "message": "Who?",
                          "requestedSchema": FORM}),
        raw_request(903, {"sessionId": SID, "path": str(cwd / "held.txt"), "content": "new\n"}),
        {**expect_prompt("never"), "timeout": 120},  # holds the turn open
    ])  # fmt: skip
    return write_scenario(tmp_path, steps, name="asking")


def answered(agent: ScriptedAgent) -> list[Any]:
    """The ids of B's questions the agent got an answer to."""
    return [f.get("id") for f in agent.transcript() if isinstance(f, dict) and f.get("id") in ASKS]


async def ask_in_background(h: AppHarness, agent: ScriptedAgent) -> SessionTab:
    """Open B (the scripted agent, second entry of the picker), send it a prompt, go back to A,
    then let B's agent ask its three questions."""
    first = h.app.tabs[0]
    second = await open_tab(h, "down", "enter")
    assert second.spec.argv == tuple(agent.argv)
    await h.type_prompt("go")
    await h.until(lambda: second.session.thread.turn_running, "B's turn")
    await h.pilot.press("alt+1")
    await h.until(lambda: h.app.current_tab is first, "back in A")
    assert await second.session.set_mode(GATE_MODE) is None  # the agent asks now
    await h.until(lambda: second.ui.pending == 2, "the form and the held write to wait")
    await h.until(lambda: states(h)[1] == "needs you", "B's permission request")
    return second


def b_questions_open(second: SessionTab) -> bool:
    """B's form and held write wait in its `ScreenUi`, its permission request in its thread
    (a hidden tab draws nothing: its prompt is mounted when B is shown)."""
    return second.ui.pending == 2 and second.session.thread.waiting_permission()


async def test_keys_in_one_tab_never_answer_another_tabs_questions(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    agent = asking_agent(tmp_path, cwd)
    preset = Preset("asking", tuple(agent.argv))
    settings = Settings(hold_writes=HoldWrites.ALWAYS)
    async with workspace_app(tmp_path, preset, settings=settings) as h:
        first = h.app.tabs[0]
        second = await ask_in_background(h, agent)
        # A is shown, with nothing of B over it
        assert h.app.current_tab is first and isinstance(h.app.screen, MainScreen)
        assert h.app.screen.session is first.session
        assert [label.state for label in bar(h).labels] == ["idle", "needs you"]
        assert any("needs you" in text for text in h.notified), h.notified
        assert second.screen is not None and second.screen.composer_actions.sent_notifications

        await h.pilot.press("a", "y", "A", "r", "1", "enter", "tab", "enter", "escape", "y")
        await h.pilot.press("enter", "a")
        await h.pilot.pause()
        assert answered(agent) == [], "keys typed in A answered B"
        assert b_questions_open(second)
        assert not (cwd / "held.txt").exists()
        assert h.app.current_tab is first

        # in B: its questions are there, on its own stack
        await h.pilot.press("alt+2")
        await h.until(lambda: h.app.current_tab is second, "alt+2")
        await h.until(
            lambda: isinstance(h.app.screen, ElicitationScreen | WriteReviewScreen),
            "B's questions on screen",
        )
        stack = h.app.screen_stack
        assert any(isinstance(s, ElicitationScreen) for s in stack)
        assert any(isinstance(s, WriteReviewScreen) for s in stack)
        assert all(not isinstance(s, MainScreen) or s.session is second.session for s in stack)
        await h.pilot.press("alt+1")  # away again: they stay with B
        await h.until(lambda: h.app.current_tab is first, "back in A")
        # A's own stack: its main screen, and at most A's own held write (the keys typed in A
        # were a prompt there: its demo's edit, held since no answer of the user's covers it)
        stack = h.app.screen_stack
        assert isinstance(stack[0], MainScreen) and stack[0].session is first.session
        assert all(
            isinstance(s, WriteReviewScreen) and s.path.is_relative_to(first.session.cwd)
            for s in stack[1:]
        ), stack
        assert answered(agent) == [] and b_questions_open(second)


async def test_keys_typed_just_before_a_switch_do_not_answer_its_permission(
    tmp_path: Path,
) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    call = {"toolCallId": "c1", "title": "Edit a.txt", "kind": "edit"}
    steps = one_turn([
        gate(),
        raw_request(901, {"sessionId": SID, "toolCall": call, "options": RISKY_FIRST}),
        {**expect_prompt("never"), "timeout": 120},
    ])  # fmt: skip
    agent = write_scenario(tmp_path, steps, name="asking")
    clock = ManualClock()
    app_kwargs = {"key_guard": KeyGuard(clock)}
    async with workspace_app(tmp_path, Preset("asking", tuple(agent.argv)),
                             app_kwargs=app_kwargs) as h:  # fmt: skip
        first = h.app.tabs[0]
        second = await open_tab(h, "down", "enter")
        await h.type_prompt("go")
        await h.until(lambda: second.session.thread.turn_running, "B's turn")
        assert await second.session.set_mode(GATE_MODE) is None
        assert second.screen is not None
        screen = second.screen
        await h.until(lambda: any(p.ask.open for p in screen.query(PermissionPrompt)), "ask")
        clock.advance(5)
        await h.pilot.pause()  # it came as the user typed "go": it waits to be chosen
        assert not screen.open_prompts()[0].has_focus_within
        clock.advance(5)
        await h.pilot.press("f4")  # the user went there on purpose: its keys answer at once
        await h.pilot.pause()
        assert screen.open_prompts()[0].has_focus_within
        clock.advance(5)
        await h.pilot.press("alt+1")
        await h.until(lambda: h.app.current_tab is first, "in A")
        await h.type_prompt("abc", send=False)  # typing in A …
        await h.pilot.press("alt+2", "a")  # … the switch, and `a` right after it
        await h.until(lambda: h.app.current_tab is second, "in B")
        await h.pilot.pause()
        assert answered(agent) == [], "a key typed right at the switch answered B's question"
        assert screen.open_prompts(), "B's question is still open"
        assert screen.query_one(PromptInput).text == "a", "the held key went to B's composer"
        # the user goes there on purpose: now a key answers it
        clock.advance(5)
        await h.pilot.press("f4", "a")
        await h.until(lambda: answered(agent) == [901], "the answer")


async def test_a_question_asked_before_its_tab_was_ever_shown_gets_the_keys_there(
    tmp_path: Path,
) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    call = {"toolCallId": "c1", "title": "Edit a.txt", "kind": "edit"}
    steps = one_turn([
        raw_request(901, {"sessionId": SID, "toolCall": call, "options": RISKY_FIRST}),
        {**expect_prompt("never"), "timeout": 120},
    ])  # fmt: skip
    agent = write_scenario(tmp_path, steps, name="asking")
    clock = ManualClock()
    spec = SessionSpec(tuple(agent.argv), cwd)
    app_kwargs = {"key_guard": KeyGuard(clock), "more": (spec,)}
    async with workspace_app(tmp_path, app_kwargs=app_kwargs) as h:
        await h.until(lambda: len(h.app.tabs) == 2, "the second session, opened at start")
        second = h.app.tabs[1]
        await h.until(lambda: second.session.session_id is not None, "its session")
        assert second.screen is None, "a tab never shown has no screen"
        await h.type_prompt("//all go")  # B's agent asks as soon as it gets a prompt
        await h.until(lambda: states(h)[1] == "needs you", "B's question")
        assert second.screen is None, "nothing built for a hidden tab"
        clock.advance(5)
        await h.pilot.press("alt+2")
        await h.until(lambda: h.app.current_tab is second and second.screen is not None, "B")
        screen = second.screen
        assert screen is not None
        await h.until(lambda: screen.open_prompts(), "B's permission prompt")
        clock.advance(5)
        await h.pilot.press("f4")  # (the switch counts as typing: it waits to be chosen)
        await h.until(lambda: screen.open_prompts()[0].has_focus_within, "f4 goes there")
        await h.pilot.press("a")
        await h.until(lambda: answered(agent) == [901], "the answer, from B's own keys")

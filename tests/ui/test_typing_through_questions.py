"""Typing the next prompt while a question arrives: no key meant for the composer answers it.

The user types in the composer while the agent works; the agent asks (a permission request, an
elicitation form, a held write's review) mid-word. Every key pressed goes where the user was
typing; the question gets keys only once the user stopped (the idle window) and it has been
there for the guard's hold. The guard's clock is a manual one: the tests move time, nothing
sleeps.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Checkbox, Input

from acp_tui.config import HoldWrites, Settings
from acp_tui.ui.key_guard import KeyGuard
from acp_tui.ui.screens.elicitation_screen import ElicitationScreen
from acp_tui.ui.screens.review_screen import WriteReviewScreen
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.agents.scenarios import client_request, write_scenario
from tests.ui.app_harness import GATE_MODE, SID, AppHarness, fixed_cwd, gate, one_turn, run_app
from tests.ui.test_elicitation import answers as results
from tests.ui.test_permission_focus import RISKY_FIRST, answers, ask, open_prompt


class ManualClock:
    """A monotonic clock that moves only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def guarded(clock: ManualClock) -> dict[str, Any]:
    return {"key_guard": KeyGuard(clock)}


def main_prompt(h: AppHarness) -> PromptInput:
    """The composer's prompt, under whatever screen is on top."""
    return next(p for s in h.app.screen_stack for p in s.query(PromptInput).results(PromptInput))


async def start_typing(h: AppHarness, clock: ManualClock, text: str) -> None:
    """Send a prompt (the agent starts working), then, a while later, type `text`."""
    await h.type_prompt("go")
    await h.until(lambda: h.session.turn_running, "the turn")
    clock.advance(10)
    await h.type_prompt(text, send=False)


async def let_the_agent_ask(h: AppHarness) -> None:
    assert await h.session.set_mode(GATE_MODE) is None


async def type_keys(h: AppHarness, text: str) -> None:
    await h.pilot.press(*[{" ": "space"}.get(c, c) for c in text])


async def test_typing_through_a_permission_request_answers_nothing(tmp_path: Path) -> None:
    call = {"title": "Edit a.txt", "kind": "edit", "locations": [{"path": "a.txt"}]}
    agent = write_scenario(tmp_path, one_turn([gate(), ask("c1", call, RISKY_FIRST)]))
    clock = ManualClock()
    async with run_app(agent.argv, fixed_cwd(tmp_path), app_kwargs=guarded(clock)) as h:
        await start_typing(h, clock, "hello world this i")
        await let_the_agent_ask(h)
        await h.until(lambda: open_prompt(h, "c1"), "the permission prompt")
        prompt = open_prompt(h, "c1")
        assert prompt is not None
        await type_keys(h, "s a prompt")  # the question came mid-typing: "a" is not "Allow"
        await h.pilot.pause()
        assert h.one(PromptInput).text == "hello world this is a prompt"
        assert h.one(PromptInput).has_focus and not prompt.has_focus_within
        assert answers(agent) == [] and prompt.ask.open

        # the user stops: the prompt takes the focus, but a key right away is still typing
        clock.advance(1.5)
        await h.until(lambda: prompt.has_focus_within, "the prompt to take the focus")
        await type_keys(h, " i am")
        await h.pilot.pause()
        assert h.one(PromptInput).text == "hello world this is a prompt i am"
        assert h.one(PromptInput).has_focus, "the keys brought the focus back to the composer"
        assert answers(agent) == [] and prompt.ask.open

        # idle again, and the prompt has been there a moment: now `a` answers it
        clock.advance(1.5)
        await h.until(lambda: prompt.has_focus_within, "the prompt to take the focus again")
        clock.advance(1)
        await h.pilot.press("a")
        await h.until(lambda: answers(agent), "the answer")
        assert answers(agent) == [{"outcome": "selected", "optionId": "once"}]
        assert h.one(PromptInput).text == "hello world this is a prompt i am"


async def test_f4_goes_to_the_prompt_at_once_and_its_keys_answer(tmp_path: Path) -> None:
    call = {"title": "Edit a.txt", "kind": "edit", "locations": [{"path": "a.txt"}]}
    agent = write_scenario(tmp_path, one_turn([gate(), ask("c1", call, RISKY_FIRST)]))
    clock = ManualClock()
    async with run_app(agent.argv, fixed_cwd(tmp_path), app_kwargs=guarded(clock)) as h:
        await start_typing(h, clock, "draft")
        await let_the_agent_ask(h)
        await h.until(lambda: open_prompt(h, "c1"), "the permission prompt")
        await h.pilot.press("f4", "r")  # going there on purpose: no guard
        await h.until(lambda: answers(agent), "the answer")
        assert answers(agent) == [{"outcome": "selected", "optionId": "no"}]
        assert h.one(PromptInput).text == "draft"


FORM = {
    "type": "object",
    "properties": {"name": {"type": "string", "title": "Name"},
                   "ok": {"type": "boolean", "title": "Confirm"}},
    "required": ["name"],
}  # fmt: skip


async def test_typing_through_an_elicitation_neither_fills_nor_submits_it(tmp_path: Path) -> None:
    params = {"sessionId": SID, "mode": "form", "message": "Who?", "requestedSchema": FORM}
    agent = write_scenario(
        tmp_path, one_turn([gate(), client_request("elicitation/create", params)])
    )
    clock = ManualClock()
    async with run_app(agent.argv, fixed_cwd(tmp_path), app_kwargs=guarded(clock)) as h:
        await start_typing(h, clock, "hello wor")
        await let_the_agent_ask(h)
        await h.until(lambda: isinstance(h.app.screen, ElicitationScreen), "the form")
        form = h.app.screen
        assert isinstance(form, ElicitationScreen)
        await type_keys(h, "ld x")
        await h.pilot.press("enter", "tab", "enter", "escape")
        await h.pilot.pause()
        assert form.query_one("#field-name", Input).value == ""
        assert form.query_one("#field-ok", Checkbox).value is False
        assert form.focused is None and h.app.screen is form
        assert results(agent) == []
        assert main_prompt(h).text == "hello world x", "the typed characters went to the prompt"

        clock.advance(0.3)  # still typing: the form keeps waiting
        await type_keys(h, "y")
        clock.advance(0.3)
        await h.pilot.pause()
        assert form.focused is None
        clock.advance(1)  # the user stopped: the form takes keys, its first field focused
        await h.until(lambda: isinstance(form.focused, Input), "the form's first field")
        await type_keys(h, "bob")
        await h.pilot.press("enter")
        await h.until(lambda: results(agent), "the answer")
        assert results(agent) == [{"action": "accept", "content": {"name": "bob", "ok": False}}]
        assert main_prompt(h).text == "hello world xy"


async def test_typing_through_a_held_write_decides_nothing(tmp_path: Path) -> None:
    cwd = fixed_cwd(tmp_path)
    target = cwd / "a.txt"
    target.write_text("one\ntwo\n")
    write = {"sessionId": SID, "path": str(target), "content": "one\n2\n"}
    agent = write_scenario(
        tmp_path, one_turn([gate(), client_request("fs/write_text_file", write)])
    )
    clock = ManualClock()
    kwargs = {"settings": Settings(hold_writes=HoldWrites.ALWAYS)}
    async with run_app(
        agent.argv, cwd, app_kwargs=guarded(clock), session_kwargs=kwargs
    ) as h:  # fmt: skip
        await start_typing(h, clock, "hello wor")
        await let_the_agent_ask(h)
        await h.until(lambda: isinstance(h.app.screen, WriteReviewScreen), "the review")
        review = h.app.screen
        assert isinstance(review, WriteReviewScreen)
        await type_keys(h, "ld yxAR")
        await h.pilot.press("enter", "escape")
        await h.pilot.pause()
        assert review.decisions == {}
        assert h.app.screen is review
        assert target.read_text() == "one\ntwo\n"
        assert main_prompt(h).text == "hello world yxAR"

        clock.advance(1)  # the user stopped and looks: now the keys decide
        await h.pilot.press("y", "enter")
        await h.until(lambda: target.read_text() == "one\n2\n", "the write")
        assert main_prompt(h).text == "hello world yxAR"

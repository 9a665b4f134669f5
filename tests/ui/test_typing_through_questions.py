"""Typing the next prompt while a question arrives: no key meant for the composer answers it.

The user types in the composer while the agent works; the agent asks (a permission request, an
elicitation form, a held write's review, a host question: a read or write outside the session
directory, a read-only file to overwrite) mid-word. One policy (`QuestionKeys`): every key typed,
at 8 a second before and after the question arrived, goes where the user was typing, and so do
the keys after a pause of 2.5 s (a person who stops to think goes on typing their prompt); the
question takes keys once the user chooses it: f4 or a click. The guard's clock is a manual one:
the tests move time, nothing sleeps.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Checkbox, Input

from acp_tui.config import HoldWrites, Settings
from acp_tui.ui.key_guard import KeyGuard, QuestionKeys
from acp_tui.ui.screens.auth import AuthMethodScreen
from acp_tui.ui.screens.elicitation_screen import ElicitationScreen
from acp_tui.ui.screens.question import QuestionScreen
from acp_tui.ui.screens.review_screen import WriteReviewScreen
from acp_tui.ui.widgets.guard_hint import GuardHint
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


KEY_GAP = 0.125
"""8 keys a second."""
PAUSE = 2.5
"""A person stopping to think before going on typing."""


async def start_typing(h: AppHarness, clock: ManualClock, text: str) -> None:
    """Send a prompt (the agent starts working), then, a while later, type `text` (8 keys a
    second)."""
    await h.type_prompt("go")
    await h.until(lambda: h.session.turn_running, "the turn")
    clock.advance(10)
    h.one(PromptInput).focus()
    await type_steadily(h, clock, text)


async def type_steadily(h: AppHarness, clock: ManualClock, text: str) -> None:
    """Type `text` at 8 keys a second, wherever the focus is."""
    for char in text:
        clock.advance(KEY_GAP)
        await h.pilot.press({" ": "space"}.get(char, char))


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
        await type_steadily(h, clock, "s a prompt")  # it came mid-typing: "a" is not "Allow"
        await h.pilot.pause()
        assert h.one(PromptInput).text == "hello world this is a prompt"
        assert h.one(PromptInput).has_focus and not prompt.has_focus_within
        assert answers(agent) == [] and prompt.ask.open
        assert prompt.query_one(GuardHint).display  # it says why, and how to answer

        # the user stops to think, then goes on typing: still their prompt, not an answer
        clock.advance(PAUSE)
        await h.pilot.pause()
        assert h.one(PromptInput).has_focus and not prompt.has_focus_within
        await type_steadily(h, clock, " and a rest")
        await h.pilot.pause()
        assert h.one(PromptInput).text == "hello world this is a prompt and a rest"
        assert answers(agent) == [] and prompt.ask.open

        # however long they wait, it waits to be chosen; a click on it chooses it
        clock.advance(60)
        await h.pilot.pause()
        assert not prompt.has_focus_within
        await h.pilot.click(prompt.query_one("#question"))
        await h.until(lambda: prompt.has_focus_within, "the prompt chosen by a click")
        assert not prompt.query_one(GuardHint).display
        await h.pilot.press("a")
        await h.until(lambda: answers(agent), "the answer")
        assert answers(agent) == [{"outcome": "selected", "optionId": "once"}]
        assert h.one(PromptInput).text == "hello world this is a prompt and a rest"


async def test_a_prompt_that_arrives_while_the_user_is_idle_takes_keys_after_the_hold(
    tmp_path: Path,
) -> None:
    call = {"title": "Edit a.txt", "kind": "edit", "locations": [{"path": "a.txt"}]}
    agent = write_scenario(tmp_path, one_turn([gate(), ask("c1", call, RISKY_FIRST)]))
    clock = ManualClock()
    async with run_app(agent.argv, fixed_cwd(tmp_path), app_kwargs=guarded(clock)) as h:
        await start_typing(h, clock, "draft")
        clock.advance(6)  # the user stopped typing a while before the question came
        await let_the_agent_ask(h)
        await h.until(lambda: open_prompt(h, "c1"), "the permission prompt")
        prompt = open_prompt(h, "c1")
        assert prompt is not None
        await h.until(lambda: prompt.has_focus_within, "the prompt takes the focus")
        assert not prompt.query_one(GuardHint).display
        clock.advance(1)  # past the hold
        await h.pilot.press("a")
        await h.until(lambda: answers(agent), "the answer")
        assert answers(agent) == [{"outcome": "selected", "optionId": "once"}]


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

        assert form.query_one(GuardHint).display

        clock.advance(PAUSE)  # the user stops to think, then goes on typing
        await type_steadily(h, clock, "y")
        await h.pilot.press("enter")
        await h.pilot.pause()
        assert form.focused is None and results(agent) == []
        clock.advance(60)  # however long: the form waits to be chosen
        await h.pilot.pause()
        assert form.focused is None
        await h.pilot.press("f4")  # chosen: the form takes keys, its first field focused
        await h.until(lambda: isinstance(form.focused, Input), "the form's first field")
        assert not form.query_one(GuardHint).display
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

        clock.advance(PAUSE)  # the user stops to think, then goes on typing
        await type_steadily(h, clock, " yes")
        await h.pilot.press("enter")
        await h.pilot.pause()
        assert isinstance(review, WriteReviewScreen)  # (mypy: `is` above widened it)
        assert review.decisions == {} and target.read_text() == "one\ntwo\n"
        assert main_prompt(h).text == "hello world yxAR yes"
        assert review.query_one(GuardHint).display

        await h.pilot.click(review.query_one("#review-title"))  # chosen: now the keys decide
        await h.pilot.press("y", "enter")
        await h.until(lambda: target.read_text() == "one\n2\n", "the write")
        assert main_prompt(h).text == "hello world yxAR yes"


def replies(agent: Any) -> list[dict[str, Any]]:
    """What the client answered to the agent's requests (fs reads and writes)."""
    return [
        f
        for f in agent.transcript()
        if isinstance(f, dict) and "method" not in f and ("result" in f or "error" in f)
    ]


def host_question(kind: str, cwd: Path, outside: Path) -> list[dict[str, Any]]:
    """The agent's requests (around the gate the test opens) that make the host ask `kind`."""
    if kind == "outside_read":
        params = {"sessionId": SID, "path": str(outside / "secret.txt")}
        return [gate(), client_request("fs/read_text_file", params)]
    if kind == "outside_write":
        params = {"sessionId": SID, "path": str(outside / "new.txt"), "content": "x\n"}
        return [gate(), client_request("fs/write_text_file", params)]
    if kind == "changed_on_disk":  # read, the user edits the file, then the agent writes it
        read = {"sessionId": SID, "path": str(cwd / "notes.txt")}
        write = {**read, "content": "agent\n"}
        return [
            client_request("fs/read_text_file", read),
            gate(),
            client_request("fs/write_text_file", write),
        ]
    params = {"sessionId": SID, "path": str(cwd / "locked.txt"), "content": "agent\n"}
    return [gate(), client_request("fs/write_text_file", params)]  # read-only: overwrite it?


HOST_QUESTIONS = ["outside_read", "outside_write", "read_only", "changed_on_disk"]
TYPED_ON = "and so on, a dear code, all done"
"""The user's sentence: every choice key of the host questions (o, a, d, c, u) is in it."""


async def asked_host_question(tmp_path: Path, kind: str) -> tuple[Any, Path, Path]:
    cwd = fixed_cwd(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    locked = cwd / "locked.txt"
    locked.write_text("mine\n")
    locked.chmod(0o444)
    (cwd / "notes.txt").write_text("theirs\n")
    steps = one_turn(host_question(kind, cwd, outside))
    return write_scenario(tmp_path, steps), cwd, outside


@pytest.mark.parametrize("kind", HOST_QUESTIONS)
async def test_typing_through_a_host_question_answers_nothing(tmp_path: Path, kind: str) -> None:
    """The outside-path, outside-write and overwrite questions (`QuestionScreen`) took the keys
    typed at 8 a second: the `a` of a sentence allowed an outside read for the session."""
    agent, cwd, outside = await asked_host_question(tmp_path, kind)
    clock = ManualClock()
    async with run_app(agent.argv, cwd, app_kwargs=guarded(clock)) as h:
        await start_typing(h, clock, "hello wor")
        if kind == "changed_on_disk":
            await h.until(lambda: replies(agent), "the agent's read")
            (cwd / "notes.txt").write_text("the user's edit\n")
        read = replies(agent)
        await let_the_agent_ask(h)
        await h.until(lambda: isinstance(h.app.screen, QuestionScreen), "the question")
        question = h.app.screen
        assert isinstance(question, QuestionScreen)
        await type_steadily(h, clock, "ld " + TYPED_ON)
        await h.pilot.press("enter", "escape")
        await h.pilot.pause()
        assert h.app.screen is question and replies(agent) == read
        assert main_prompt(h).text == "hello world " + TYPED_ON
        assert question.query_one(GuardHint).display

        clock.advance(PAUSE)  # the user stops to think, then goes on typing
        await type_steadily(h, clock, " again")
        await h.pilot.press("enter")
        await h.pilot.pause()
        assert h.app.screen is question and replies(agent) == read
        assert main_prompt(h).text == "hello world " + TYPED_ON + " again"

        clock.advance(60)  # however long: the question waits to be chosen
        await h.pilot.press("a", "o")
        await h.pilot.pause()
        assert h.app.screen is question and replies(agent) == read
        await h.pilot.press("f4")  # chosen: its keys answer it
        assert isinstance(question, QuestionScreen)  # (mypy: `is` above widened it)
        deny = question.question.choices[-1]
        assert deny.key is not None
        await h.pilot.press(deny.key)
        await h.until(lambda: replies(agent) != read, "the answer")
        assert "error" in replies(agent)[-1]  # denied, as the user chose
        assert main_prompt(h).text == "hello world " + TYPED_ON + " againao"
    assert (cwd / "locked.txt").read_text() == "mine\n"
    if kind == "changed_on_disk":
        assert (cwd / "notes.txt").read_text() == "the user's edit\n"  # not lost
    assert not (outside / "new.txt").exists()


async def test_a_click_answers_a_host_question_that_waits(tmp_path: Path) -> None:
    agent, cwd, _ = await asked_host_question(tmp_path, "outside_read")
    clock = ManualClock()
    async with run_app(agent.argv, cwd, app_kwargs=guarded(clock)) as h:
        await start_typing(h, clock, "read it")
        await let_the_agent_ask(h)
        await h.until(lambda: isinstance(h.app.screen, QuestionScreen), "the question")
        question = h.app.screen
        assert isinstance(question, QuestionScreen)
        await type_steadily(h, clock, " a")
        assert replies(agent) == []
        allow_once = question.query_one("#choice-0")  # Allow once
        await h.pilot.click(allow_once)
        await h.until(lambda: replies(agent), "the answer")
        assert replies(agent)[0]["result"]["content"] == "secret\n"
        assert main_prompt(h).text == "read it a"


async def test_a_host_question_that_arrives_while_the_user_is_idle_takes_keys_after_the_hold(
    tmp_path: Path,
) -> None:
    agent, cwd, _ = await asked_host_question(tmp_path, "outside_read")
    clock = ManualClock()
    async with run_app(agent.argv, cwd, app_kwargs=guarded(clock)) as h:
        await start_typing(h, clock, "draft")
        clock.advance(6)  # the user stopped a while before the question came
        await let_the_agent_ask(h)
        await h.until(lambda: isinstance(h.app.screen, QuestionScreen), "the question")
        question = h.app.screen
        assert isinstance(question, QuestionScreen)
        assert not question.query_one(GuardHint).display
        await h.pilot.press("d")  # at once: too soon, not an answer
        await h.pilot.pause()
        assert h.app.screen is question and replies(agent) == []
        await h.pilot.press("f4")
        await h.pilot.press("o")
        await h.until(lambda: replies(agent), "the answer")
        assert replies(agent)[0]["result"]["content"] == "secret\n"


def test_the_policy_at_the_edges_of_its_windows() -> None:
    """`QuestionKeys` on a manual clock: a question 4.9 s after the last key waits to be chosen,
    one 5.1 s after does not (it holds keys for 0.6 s only); f4 or a click ends the wait."""
    clock = ManualClock()
    guard = KeyGuard(clock)

    class FakeApp:
        key_guard = guard

    guard.typed()
    clock.advance(4.9)
    soon = QuestionKeys()
    soon.arm(FakeApp())  # type: ignore[arg-type]
    clock.advance(60)
    assert soon.waits() and soon.holds()
    soon.choose()
    assert not soon.waits() and not soon.holds()

    late = QuestionKeys()
    clock.advance(5.1)
    guard.last_typed = clock.now - 5.1
    late.arm(FakeApp())  # type: ignore[arg-type]
    assert not late.waits() and late.holds()  # (the 0.6 s hold)
    clock.advance(0.7)
    assert not late.holds()
    guard.typed()  # the user types through it: it waits from now on
    assert late.waits() and late.holds()


async def test_the_login_list_that_comes_at_start_is_guarded_too(tmp_path: Path) -> None:
    """The agent's login methods come unasked while the user may be typing a prompt: an enter
    meant for it starts no login; f4 then enter does."""
    methods = [{"id": "token", "name": "API token"}, {"id": "web", "name": "Browser login"}]
    steps = [
        {"expect": "initialize", "respond": {"protocolVersion": 1, "authMethods": methods}},
        {"expect": "session/new", "error": {"code": -32000, "message": "Auth required"}},
        {"expect": "authenticate", "match": {"methodId": "token"}, "respond": {}},
        {"expect": "session/new", "respond": {"sessionId": SID}},
    ]
    agent = write_scenario(tmp_path, steps)
    clock = ManualClock()
    app_kwargs = guarded(clock)
    async with run_app(
        agent.argv, fixed_cwd(tmp_path), wait_ready=False, app_kwargs=app_kwargs
    ) as h:
        await h.until(lambda: isinstance(h.app.screen, AuthMethodScreen), "the login list")
        login = h.app.screen
        assert isinstance(login, AuthMethodScreen)
        await h.pilot.press("enter")  # at once: not a choice
        await type_steadily(h, clock, "hi")  # typed through it: it waits to be chosen
        clock.advance(PAUSE)
        await h.pilot.press("enter", "down", "enter")
        await h.pilot.pause()
        assert h.app.screen is login and h.sent_methods("authenticate") == []
        assert login.query_one(GuardHint).display
        await h.pilot.press("f4", "enter")  # chosen: enter picks the first method
        await h.until(lambda: h.sent_methods("authenticate"), "the login")
        await h.until(lambda: h.session.session_id == SID, "the session")
        assert main_prompt(h).text == "hi"

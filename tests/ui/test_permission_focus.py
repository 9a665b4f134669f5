"""Permission prompts as real agents time them, answered with keys alone.

The scripted agent sends requests with no tool call before them (Gemini, Qwen), in the same
instant as their tool call (codex, the TS example) and with only the tool call id (Vibe), each
with the risky option (allow_always) first. Pressing `a` as soon as the prompt is on screen must
answer "allow once", every time: no waiting for focus, no Tab hunting.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Button, Static

from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.agents.scenarios import ScriptedAgent, client_request, write_scenario
from tests.ui.app_harness import SID, AppHarness, fixed_cwd, one_turn, plain, run_app, upd

RISKY_FIRST = [
    {"optionId": "always", "name": "Always allow", "kind": "allow_always"},
    {"optionId": "once", "name": "Allow", "kind": "allow_once"},
    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
    {"optionId": "never", "name": "Always reject", "kind": "reject_always"},
]


def ask(call_id: str, tool_call: dict[str, Any], options: list[dict[str, Any]]) -> dict[str, Any]:
    params = {"sessionId": SID, "toolCall": {"toolCallId": call_id, **tool_call},
              "options": options}  # fmt: skip
    return client_request("session/request_permission", params, save_as=f"answer-{call_id}")


def without_tool_call(call_id: str) -> list[dict[str, Any]]:
    """A request about a call never announced (Gemini, Qwen)."""
    call = {"title": f"Write {call_id}.txt", "kind": "edit",
            "locations": [{"path": f"{call_id}.txt"}]}  # fmt: skip
    return [ask(call_id, call, RISKY_FIRST)]


def with_tool_call(call_id: str) -> list[dict[str, Any]]:
    """The tool call and its request in the same instant (codex, the TS example)."""
    return [
        upd("tool_call", toolCallId=call_id, title=f"Run ls {call_id}", kind="execute",
            status="pending", rawInput={"command": ["ls", call_id]}),
        ask(call_id, {"title": f"Run ls {call_id}", "kind": "execute"}, RISKY_FIRST),
    ]  # fmt: skip


def id_only(call_id: str, options: list[dict[str, Any]] = RISKY_FIRST) -> list[dict[str, Any]]:
    """The tool call with its diff, then a request carrying only the id (Vibe)."""
    return [
        upd("tool_call", toolCallId=call_id, title=f"Edit {call_id}.py", kind="edit",
            status="pending", locations=[{"path": f"{call_id}.py"}],
            content=[{"type": "diff", "path": f"{call_id}.py", "oldText": "a\n",
                      "newText": "b\n"}]),
        ask(call_id, {}, options),
    ]  # fmt: skip


def answers(agent: ScriptedAgent) -> list[Any]:
    return [
        f["result"]["outcome"]
        for f in agent.transcript()
        if isinstance(f, dict) and isinstance(f.get("result"), dict) and "outcome" in f["result"]
    ]


def open_prompt(h: AppHarness, call_id: str) -> PermissionPrompt | None:
    for prompt in h.all(PermissionPrompt):
        if prompt.entry.tool_call_id == call_id and prompt.ask.open and prompt.is_mounted:
            return prompt
    return None


async def answer_with(h: AppHarness, agent: ScriptedAgent, call_id: str, *keys: str) -> Any:
    """Press `keys` as soon as the prompt for `call_id` is on screen; the agent's answer."""
    before = len(answers(agent))
    await h.until(lambda: open_prompt(h, call_id), f"the prompt for {call_id}")
    await h.pilot.press(*keys)
    await h.until(lambda: len(answers(agent)) > before, f"the answer to {call_id}")
    return answers(agent)[-1]


async def test_a_answers_allow_once_however_the_request_is_timed(tmp_path: Path) -> None:
    rounds = [("none", without_tool_call), ("same", with_tool_call), ("id", id_only)] * 2
    steps: list[dict[str, Any]] = []
    calls = []
    for index, (label, make) in enumerate(rounds):
        call_id = f"{label}{index}"
        calls.append(call_id)
        steps += make(call_id)
    agent = write_scenario(tmp_path, one_turn(steps))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("go")
        for call_id in calls:
            outcome = await answer_with(h, agent, call_id, "a")
            assert outcome == {"outcome": "selected", "optionId": "once"}, call_id
        await h.settle()
        assert h.one(PromptInput).text == "", "no key went into the prompt box"
        assert h.one(PromptInput).has_focus, "the prompt box has the focus back"
        entry = h.session.thread.tool_calls["none0"]
        assert entry.title == "Write none0.txt" and entry.permissions[0].answer == (
            "✓ answered: Allow"
        )


async def test_enter_presses_allow_once_not_the_risky_first_button(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, one_turn([*with_tool_call("c1"), *without_tool_call("c2")]))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("go")
        assert await answer_with(h, agent, "c1", "enter") == {
            "outcome": "selected", "optionId": "once"}  # fmt: skip
        await h.until(lambda: open_prompt(h, "c2"), "the second prompt")
        prompt = open_prompt(h, "c2")
        assert prompt is not None
        await h.until(lambda: prompt.has_focus_within, "the focus")
        focused = h.app.screen.focused
        assert isinstance(focused, Button) and "Allow (a)" in str(focused.label)
        await h.pilot.press("enter")
        await h.settle()
        assert answers(agent)[-1] == {"outcome": "selected", "optionId": "once"}


async def test_without_allow_once_the_default_is_reject_once(tmp_path: Path) -> None:
    options = [RISKY_FIRST[0], RISKY_FIRST[2]]
    call = {"title": "Delete x", "kind": "delete", "locations": [{"path": "x"}]}
    agent = write_scenario(tmp_path, one_turn([ask("c1", call, options)]))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("go")
        assert await answer_with(h, agent, "c1", "enter") == {
            "outcome": "selected", "optionId": "no"}  # fmt: skip


async def test_every_option_has_its_own_key_when_kinds_repeat(tmp_path: Path) -> None:
    vibe = [
        {"optionId": "session", "name": "Always (session)", "kind": "allow_always"},
        {"optionId": "project", "name": "Always (project)", "kind": "allow_always"},
        {"optionId": "once", "name": "Allow", "kind": "allow_once"},
        {"optionId": "no", "name": "Reject", "kind": "reject_once"},
    ]
    agent = write_scenario(tmp_path, one_turn(id_only("v1", vibe)))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("go")
        await h.until(lambda: open_prompt(h, "v1"), "the prompt")
        prompt = open_prompt(h, "v1")
        assert prompt is not None
        labels = [str(b.label) for b in prompt.query(Button)]
        assert labels == ["Always (session) (A)", "Always (project) (2)", "Allow (a)",
                          "Reject (r)"]  # fmt: skip
        # Vibe sends only the id: title and diff come from the tool call in the session
        texts = " ".join(plain(s) for s in prompt.query(Static))
        assert "The agent asks permission: Edit v1.py" in texts
        assert "d full diff" in texts and "“always” remembers: edit v1.py" in texts
        await h.pilot.press("2")
        await h.settle()
        assert answers(agent) == [{"outcome": "selected", "optionId": "project"}]


async def test_the_jump_key_brings_back_the_oldest_open_prompt(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, one_turn(without_tool_call("c1")))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("go")
        await h.until(lambda: open_prompt(h, "c1"), "the prompt")
        h.one(PromptInput).focus()  # the user went back to typing
        await h.pilot.press("x", "f4", "a")
        await h.settle()
        assert answers(agent) == [{"outcome": "selected", "optionId": "once"}]
        assert h.one(PromptInput).text == "x"


async def test_no_always_button_for_a_call_that_names_nothing(tmp_path: Path) -> None:
    call = {"title": "Edit file", "kind": "edit"}
    agent = write_scenario(tmp_path, one_turn([ask("c1", call, RISKY_FIRST)]))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("go")
        await h.until(lambda: open_prompt(h, "c1"), "the prompt")
        prompt = open_prompt(h, "c1")
        assert prompt is not None
        labels = [str(b.label) for b in prompt.query(Button)]
        assert labels == ["Allow (a)", "Reject (r)", "Always reject (R)"]
        await h.pilot.press("A")  # not offered: does nothing
        await h.pilot.press("a")
        await h.settle()
        assert answers(agent) == [{"outcome": "selected", "optionId": "once"}]


async def test_the_keymap_setting_covers_the_prompt_keys(tmp_path: Path) -> None:
    from acp_tui.config import Settings

    settings = Settings(keymap={"permission.allow-once": "y", "main.permission": "f9"})
    agent = write_scenario(tmp_path, one_turn(with_tool_call("c1")))
    async with run_app(agent.argv, fixed_cwd(tmp_path), session_kwargs={"settings": settings}) as h:
        await h.type_prompt("go")
        await h.until(lambda: open_prompt(h, "c1"), "the prompt")
        prompt = open_prompt(h, "c1")
        assert prompt is not None
        assert "Allow (y)" in [str(b.label) for b in prompt.query(Button)]
        h.one(PromptInput).focus()
        await h.pilot.press("f9", "a")  # jumped back; `a` is no longer bound
        assert answers(agent) == [] and prompt.ask.open
        await h.pilot.press("y")
        await h.settle()
        assert answers(agent) == [{"outcome": "selected", "optionId": "once"}]

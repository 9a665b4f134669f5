"""App flows across layers: terminal login, remembered permission rules, the bell, clean exit."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from acp_tui.host.permission_rules import RulesStore
from acp_tui.ui.screens.auth import AuthMethodScreen, LoginTerminalScreen
from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
from tests.agents.scenarios import (
    ScriptedAgent,
    client_request,
    end_turn,
    expect_prompt,
    initialize_ok,
    new_session_ok,
    update,
    write_scenario,
)
from tests.ui.app_harness import agent_runs, fixed_cwd, run_app

OPTIONS = [
    {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
    {"optionId": "yes-always", "name": "Always allow", "kind": "allow_always"},
    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
]


def run_command_turn(call_id: str, save_as: str) -> list[dict[str, Any]]:
    """A turn in which the agent wants to run `ls -la` and asks permission first."""
    return [
        expect_prompt(save_as + "-prompt"),
        update(
            "sess-1",
            {
                "sessionUpdate": "tool_call",
                "toolCallId": call_id,
                "title": "Run ls",
                "kind": "execute",
                "status": "pending",
                "rawInput": {"command": "ls -la"},
            },
        ),
        client_request(
            "session/request_permission",
            {"sessionId": "sess-1", "toolCall": {"toolCallId": call_id}, "options": OPTIONS},
            save_as=save_as,
        ),
        end_turn(save_as + "-prompt"),
    ]


def answers(agent: ScriptedAgent) -> list[Any]:
    """What the client answered to the agent's requests, in order."""
    return [f["result"] for f in agent.transcript() if isinstance(f, dict) and "result" in f]


async def test_allow_always_becomes_a_rule_that_answers_the_next_request(tmp_path: Path) -> None:
    steps = [initialize_ok(), new_session_ok(), *run_command_turn("c1", "p1"),
             *run_command_turn("c2", "p2")]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    store = RulesStore(tmp_path / "project", path=tmp_path / "rules.json")
    async with run_app(agent.argv, fixed_cwd(tmp_path), session_kwargs={"rules": store}) as h:
        await h.type_prompt("list the files")
        await h.until(lambda: h.all(PermissionPrompt), "the first permission prompt")
        await h.pilot.press("A")
        await h.until(lambda: not h.session.turn_running, "the first turn ends")
        await h.type_prompt("again")
        await h.until(lambda: len(answers(agent)) == 2, "the second answer")
        await h.until(lambda: "allowed by rule" in h.screen_text(), "the rule shown at the call")
        assert not h.all(PermissionPrompt), "the second request was never put to the user"
        assert "remembered for execute `ls -la`" in h.screen_text()
    # The agent hears "allow once" both times: its own "always" might cover more than the rule.
    selected = [a["outcome"] for a in answers(agent)]
    assert selected == [{"outcome": "selected", "optionId": "yes"}] * 2
    saved = json.loads((tmp_path / "rules.json").read_text())
    assert "ls -la" in json.dumps(saved)
    assert RulesStore(tmp_path / "project", path=tmp_path / "rules.json").rules, "persisted"


async def test_a_waiting_decision_rings_the_bell_when_the_terminal_is_not_focused(
    tmp_path: Path,
) -> None:
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok(),
                                      *run_command_turn("c1", "p1")])  # fmt: skip
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        bells: list[int] = []
        h.app.bell = lambda: bells.append(1)  # type: ignore[method-assign]
        h.app.app_focus = False  # the terminal lost focus (typing would give it back)
        h.session.submit("list the files")
        await h.until(lambda: h.all(PermissionPrompt), "the permission prompt")
        assert bells, "no bell while the user looks elsewhere"
        assert any("Permission needed" in n for n in h.notified)
        h.app.app_focus = True
        prompt = h.one(PermissionPrompt)
        prompt.focus()
        await h.pilot.pause()
        await h.pilot.press("a")
        await h.until(lambda: not h.session.turn_running, "the turn ends")


async def test_terminal_login_runs_in_a_terminal_then_reconnects(tmp_path: Path) -> None:
    method = {
        "id": "term-login",
        "name": "Log in in a terminal",
        "type": "terminal",
        # run as `<agent program> ARGS`: the agent program here is the Python interpreter
        "args": ["-c", "import sys; print('login ok'); sys.exit(0)"],
    }
    first = [
        {"expect": "initialize",
         "respond": {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": [method]}},
        {"expect": "session/new", "error": {"code": -32000, "message": "Authentication required"}},
    ]  # fmt: skip
    second = [
        {"expect": "initialize",
         "respond": {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": [method]}},
        new_session_ok("after-login"),
    ]  # fmt: skip
    argv = agent_runs(tmp_path, first, second)
    async with run_app(argv, fixed_cwd(tmp_path), wait_ready=False) as h:
        await h.until(lambda: isinstance(h.app.screen, AuthMethodScreen), "the login choice")
        await h.until(lambda: "Log in in a terminal" in h.screen_text(), "the method listed")
        await h.pilot.press("enter")
        await h.until(lambda: h.session.session_id == "after-login", "a session after login")
        assert not isinstance(h.app.screen, AuthMethodScreen | LoginTerminalScreen)
        sent = [frame.get("method") for frame in h.sent]
        assert "authenticate" not in sent, "a terminal login does not call authenticate"
        assert sent.count("initialize") == 2, "the client reconnects after the login"


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


async def test_quitting_leaves_no_agent_or_terminal_process_behind(tmp_path: Path) -> None:
    steps = [
        initialize_ok(), new_session_ok(), expect_prompt(),
        client_request(
            "terminal/create",
            {"sessionId": "sess-1", "command": "sh", "args": ["-c", "sleep 300 & sleep 300"]},
            save_as="terminal",
        ),
        {"sleep": 300},
    ]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("run something long")
        await h.until(lambda: answers(agent), "the terminal created")
        terminal_id = answers(agent)[0]["terminalId"]
        terminal = h.session.terminals.get(terminal_id)
        assert terminal is not None
        process = terminal._process
        assert process is not None
        terminal_pid = process.pid
        agent_pid = h.session._process.pid  # type: ignore[union-attr]
        group = [
            int(p) for p in os.listdir("/proc") if p.isdigit() and _pgid(int(p)) == terminal_pid
        ]
        assert len(group) >= 2, "the shell and its sleeps run in the terminal's group"
        await h.pilot.press("ctrl+q")
        await h.until(lambda: not alive(agent_pid), "the agent gone")
        await h.until(lambda: not any(alive(pid) for pid in group), "the terminal's group gone")


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except ProcessLookupError:
        return None


async def test_a_login_the_agent_still_refuses_is_said_plainly(tmp_path: Path) -> None:
    methods = [{"id": "api-key", "name": "API key", "description": "Use GEMINI_API_KEY"}]
    refused = {"code": -32000, "message": "API key is missing"}
    steps = [
        {"expect": "initialize",
         "respond": {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": methods}},
        {"expect": "session/new", "error": refused},
        {"expect": "authenticate", "respond": {}},
        {"expect": "session/new", "error": refused},
    ]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path), wait_ready=False) as h:
        await h.until(lambda: isinstance(h.app.screen, AuthMethodScreen), "the login choice")
        await h.pilot.press("enter")
        await h.until(
            lambda: "API key did not work: API key is missing" in h.screen_text(),
            "the second refusal explained",
        )
        await h.pilot.press("escape")
        await h.until(lambda: h.app.return_value == 1, "the app gives up cleanly")
        message = h.app.exit_message or ""
        assert message.startswith("authentication is required and was not completed. ")
        assert "GEMINI_API_KEY" in message  # the variable the method names, and where it goes

"""ACP v2 as the current draft has it, in the app, with a scripted v2 agent that sends what
claude-agent-acp 0.101 sends under `--protocol 2`: the slash commands in the `session/new`
answer, `providers` in its capabilities, diffs as a `git_patch`, and shell output written with
LF alone (not through a PTY). Each frame the agent sends is valid in the current v2 draft."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from acp_tui.config import Settings
from acp_tui.thread.entries import ToolCallEntry
from acp_tui.thread.v2.updates import encode_bytes
from acp_tui.ui.screens.diff_screen import DiffScreen
from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
from acp_tui.ui.widgets.terminal_view import TerminalView
from acp_tui.ui.widgets.tool_call_card import ToolCallCard
from tests.agents.scenarios import expect_prompt, write_scenario
from tests.schema_check import _check, check_v2_update
from tests.ui.app_harness import SID, AppHarness, fixed_cwd, run_app

V2 = {"settings": Settings(protocol_version=2)}
PATCH = (
    "diff --git /p/notes.txt /p/notes.txt\n--- /p/notes.txt\n+++ /p/notes.txt\n"
    "@@ -1,3 +1,3 @@\n first\n-old line\n+new line\n last\n"
)
EDIT = {
    "toolCallId": "e1",
    "name": "Edit",
    "title": "Edit notes.txt",
    "kind": "edit",
    "status": "pending",
    "content": [
        {
            "type": "diff",
            "changes": [{"operation": "modify", "path": "/p/notes.txt", "fileType": "text"}],
            "patch": {"format": "git_patch", "text": PATCH},
        }
    ],
}
INITIALIZED = {
    "protocolVersion": 2,
    "info": {"name": "scripted-v2", "version": "1"},
    "capabilities": {"providers": {}},
    "authMethods": [],
}
NEW = {
    "sessionId": SID,
    "availableCommands": [
        {"type": "command", "name": "verify", "description": "Verify a change"},
        {"type": "command", "name": "debug", "description": "Debug"},
    ],
}
PERMISSION = {
    "sessionId": SID,
    "title": "Edit notes.txt",
    "subject": {"type": "tool_call", "toolCall": EDIT},
    "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}],
}


def update(body: dict[str, Any]) -> dict[str, Any]:
    check_v2_update(body)
    return {"notify": "session/update", "params": {"sessionId": SID, "update": body}}


def steps() -> list[dict[str, Any]]:
    _check("InitializeResponse", INITIALIZED, "initialize answer", 2)
    _check("NewSessionResponse", NEW, "session/new answer", 2)
    _check("RequestPermissionRequest", PERMISSION, "permission request", 2)
    return [
        {"expect": "initialize", "match": {"protocolVersion": 2}, "respond": INITIALIZED},
        {"expect": "session/new", "respond": NEW},
        expect_prompt(),
        {"respond_to": "prompt", "respond": {"messageId": "u1"}},
        update({"sessionUpdate": "state_update", "state": "running", "background": []}),
        update({"sessionUpdate": "tool_call_update", **EDIT}),
        {"request": "session/request_permission", "params": PERMISSION, "save_as": "asked"},
        update({"sessionUpdate": "tool_call_update", "toolCallId": "e1", "status": "completed"}),
        update(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "t1",
                "title": "echo shell-ok && ls",
                "kind": "execute",
                "status": "in_progress",
                "content": [{"type": "terminal", "terminalId": "t1"}],
            }
        ),
        update({"sessionUpdate": "terminal_update", "terminalId": "t1", "command": "ls"}),
        update(
            {
                "sessionUpdate": "terminal_update",
                "terminalId": "t1",
                "output": {"data": encode_bytes(b"shell-ok\nhello.txt\nnotes.txt\n")},
            }
        ),
        update(
            {"sessionUpdate": "terminal_update", "terminalId": "t1", "exitStatus": {"exitCode": 0}}
        ),
        update({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"}),
        update(
            {
                "sessionUpdate": "state_update",
                "state": "idle",
                "stopReason": "end_turn",
                "background": [],
            }
        ),
        {"wait_notify": "session/cancel", "timeout": 30},
    ]


def edit_card(h: AppHarness) -> ToolCallCard:
    return next(c for c in h.all(ToolCallCard) if c.entry.tool_call_id == "e1")


@contextlib.asynccontextmanager
async def started(tmp_path: Path) -> AsyncIterator[AppHarness]:
    agent = write_scenario(tmp_path, steps())
    async with run_app(agent.argv, fixed_cwd(tmp_path), session_kwargs=V2) as h:
        assert h.session.protocol_version == 2
        yield h


async def turn(h: AppHarness) -> None:
    """Prompt; allow the edit when asked; wait for the end of the turn."""
    await h.type_prompt("go")
    await h.until(lambda: h.all(PermissionPrompt), "the permission request")
    h.one(PermissionPrompt).take_focus()
    await h.pilot.press("a")
    await h.until(lambda: h.session.thread.state == "idle", "the turn to end")
    await h.caught_up()


async def test_the_commands_of_the_session_new_answer(tmp_path: Path) -> None:
    async with started(tmp_path) as h:
        await h.until(lambda: h.session.thread.commands, "the commands of session/new")
        assert [c.name for c in h.session.thread.commands] == ["verify", "debug"]


async def test_providers_in_the_v2_capabilities(tmp_path: Path) -> None:
    async with started(tmp_path) as h:
        assert h.session.agent_capabilities.providers is not None


async def test_a_git_patch_is_a_diff(tmp_path: Path) -> None:
    async with started(tmp_path) as h:
        await h.type_prompt("go")
        await h.until(lambda: h.all(PermissionPrompt), "the permission request")
        # offered whole ("d") in the question, drawn with line numbers, opened
        assert "d full diff" in h.screen_text()
        (diff,) = edit_card(h).diffs()
        assert diff.path == "/p/notes.txt" and (diff.added, diff.removed) == (1, 1)
        assert [line.new_no for line in diff.hunks[0].lines] == [1, None, 2, 3]
        assert "diff --git" not in h.screen_text()  # not the patch as text
        edit_card(h).action_show_diff()
        await h.until(lambda: isinstance(h.app.screen, DiffScreen), "the diff screen")


async def test_shell_output_with_lf_alone_is_lines(tmp_path: Path) -> None:
    async with started(tmp_path) as h:
        await turn(h)
        call = h.session.thread.tool_calls["e1"]
        assert isinstance(call, ToolCallEntry) and call.status == "completed"
        terminal = next(v for v in h.all(TerminalView) if v.agent_owned)
        await h.until(lambda: "notes.txt" in "".join(terminal.text_lines()), "the output")
        assert terminal.text_lines()[:3] == ["shell-ok", "hello.txt", "notes.txt"]

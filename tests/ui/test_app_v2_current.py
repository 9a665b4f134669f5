"""ACP v2 as the current draft has it, in the app, with a scripted v2 agent that sends what
claude-agent-acp 0.101 sends under `--protocol 2`: the slash commands in the `session/new`
answer, `providers` in its capabilities, diffs as a `git_patch`, and shell output written with
LF alone (not through a PTY). Each frame the agent sends is valid in the current v2 draft."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from acp_tui.config import Settings
from acp_tui.protocol.schema_fit import SchemaLevel
from acp_tui.thread.entries import ToolCallEntry
from acp_tui.thread.v2.updates import encode_bytes
from acp_tui.ui.screens.diff_screen import DiffScreen
from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
from acp_tui.ui.widgets.status_bar import StatusBar
from acp_tui.ui.widgets.terminal_view import TerminalView
from acp_tui.ui.widgets.tool_call_card import ToolCallCard
from tests.agents.scenarios import expect_prompt, write_scenario
from tests.schema_check import _check, check_v2_update
from tests.ui.app_harness import SID, AppHarness, demo_argv, demo_env, fixed_cwd, run_app

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


def agent_frames(h: AppHarness) -> list[dict[str, Any]]:
    store = h.session.traffic_store
    return [
        json.loads(store.raws.get(i) or "null")
        for i in range(len(store))
        if store.directions[i] == "in"
    ]


def updates_of(frames: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [
        f["params"]["update"]
        for f in frames
        if f.get("method") == "session/update"
        and f["params"]["update"].get("sessionUpdate") == kind
    ]


async def test_the_demo_speaks_the_current_draft(tmp_path: Path) -> None:
    """The demo's v2 mode: commands in the session/new answer, a prompt answered with the id of
    its user message, the background indexer listed in each state snapshot while it runs and
    offering cancel; every frame valid in the current draft, none marked."""
    from acp_tui.demo.sample_project import create_sample_project

    cwd = fixed_cwd(tmp_path)
    create_sample_project(cwd)
    async with run_app(demo_argv(), cwd, env=demo_env(), session_kwargs=V2) as h:
        thread = h.session.thread
        await h.until(lambda: thread.commands, "the commands of session/new")
        await h.type_prompt("/tour")
        await h.until(lambda: h.all(PermissionPrompt), "the permission request")
        h.one(PermissionPrompt).take_focus()
        await h.pilot.press("a")

        def indexer_call() -> ToolCallEntry | None:
            return next((e for e in thread.tool_calls.values() if "Index" in e.title), None)

        await h.until(indexer_call, "the indexer")
        indexer = indexer_call()
        assert indexer is not None
        await h.until(lambda: indexer.status == "completed", "the indexer done")
        await h.until(lambda: thread.background_work == (), "the snapshot without it")
        frames = agent_frames(h)
        store = h.session.traffic_store
        assert store.mark_counts.total() == 0, [str(m) for f in store.marked() for m in f.marks]
        assert store.schema_fit.level == SchemaLevel.V2_DRAFT
    for frame in frames:
        if frame.get("method") == "session/update":
            check_v2_update(frame["params"]["update"])
    new = next(f["result"] for f in frames if "availableCommands" in f.get("result", {}))
    assert {c["name"] for c in new["availableCommands"]} >= {"tour"}
    assert not updates_of(frames, "available_commands_update")
    answered = [f["result"]["messageId"] for f in frames if "messageId" in f.get("result", {})]
    users = [u["messageId"] for u in updates_of(frames, "user_message")]
    assert answered and answered == users
    listed = {"type": "tool_call", "toolCallId": indexer.tool_call_id}
    states = updates_of(frames, "state_update")
    assert all("background" in u for u in states)
    assert any(listed in u["background"] for u in states)
    assert states[-1]["state"] == "idle" and states[-1]["background"] == []
    offered = [u for u in updates_of(frames, "tool_call_update") if "capabilities" in u]
    assert offered[0]["capabilities"] == {"cancel": {}} and offered[-1]["capabilities"] is None


async def test_background_work_is_shown_and_stopped_with_tool_call_cancel(
    tmp_path: Path,
) -> None:
    call = {"toolCallId": "w1", "title": "Watch the tests", "kind": "execute"}
    listed = [{"type": "tool_call", "toolCallId": "w1"}]
    script = [
        {"expect": "initialize", "match": {"protocolVersion": 2}, "respond": INITIALIZED},
        {"expect": "session/new", "respond": {"sessionId": SID}},
        expect_prompt(),
        {"respond_to": "prompt", "respond": {"messageId": "u1"}},
        update({"sessionUpdate": "state_update", "state": "running", "background": []}),
        update(
            {
                "sessionUpdate": "tool_call_update",
                **call,
                "status": "in_progress",
                "capabilities": {"cancel": {}},
            }
        ),
        update(
            {
                "sessionUpdate": "state_update",
                "state": "idle",
                "stopReason": "end_turn",
                "background": listed,
            }
        ),
        {"expect": "tool_call/cancel", "match": {"toolCallId": "w1"}, "respond": {}},
        update(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "w1",
                "status": "cancelled",
                "capabilities": None,
            }
        ),
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
    agent = write_scenario(tmp_path, script)
    async with run_app(agent.argv, fixed_cwd(tmp_path), session_kwargs=V2) as h:
        thread = h.session.thread
        await h.type_prompt("watch")
        await h.until(lambda: thread.background_work, "the background work")
        assert h.one(StatusBar).activity == "idle · end_turn · 1 in background"
        card = next(c for c in h.all(ToolCallCard) if c.entry.tool_call_id == "w1")
        assert card.entry.can_cancel
        await h.caught_up()
        assert "x stops it" in h.screen_text()
        card.head.focus()
        await h.pilot.press("x")
        await h.until(lambda: card.entry.status == "cancelled", "the call stopped")
        (stop,) = h.sent_methods("tool_call/cancel")
        assert stop["params"] == {"sessionId": SID, "toolCallId": "w1"}
        await h.until(lambda: thread.background_work == (), "the snapshot without it")
        assert not card.entry.can_cancel
        assert h.one(StatusBar).activity == "idle · end_turn"

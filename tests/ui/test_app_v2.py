"""ACP v2 (draft) in the app: the demo's v2 tour, each v2 update kind, user_message patches,
and the fallback to v1. Every frame the app sends is checked against the pinned v2 schema (the
harness's validator follows the `initialize` offer and the agent's answer)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp_tui.client.events import SessionState
from acp_tui.config import Settings
from acp_tui.thread.entries import MessageEntry, ToolCallEntry
from acp_tui.thread.v2.updates import encode_bytes
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
from acp_tui.ui.widgets.queue_view import QueuedItem
from acp_tui.ui.widgets.status_bar import StatusBar
from acp_tui.ui.widgets.terminal_view import TerminalView
from tests.agents.scenarios import expect_prompt, write_scenario
from tests.schema_check import check_v2_update
from tests.ui.app_harness import (
    SID,
    AppHarness,
    demo_argv,
    demo_env,
    fixed_cwd,
    plain,
    run_app,
    text,
)
from tests.ui.conversation_text import shown

V2 = {"settings": Settings(protocol_version=2)}


def messages(h: AppHarness) -> list[tuple[str, str]]:
    return [(e.role, e.text) for e in h.session.thread.entries if isinstance(e, MessageEntry)]


async def test_demo_tour_in_v2(tmp_path: Path) -> None:
    from acp_tui.demo.sample_project import create_sample_project

    cwd = fixed_cwd(tmp_path)
    create_sample_project(cwd)
    async with run_app(demo_argv(), cwd, env=demo_env(), session_kwargs=V2) as h:
        session = h.session
        assert session.protocol_version == 2 and h.validator.version == 2
        # the agent spoke first: its greeting is shown, not as background activity
        await h.until(lambda: messages(h), "the greeting")
        assert messages(h)[0][0] == "agent" and "ACP v2 draft" in messages(h)[0][1]
        assert session.thread.background == set()
        assert [m.name for m in session.thread.modes] == ["Ask", "Code", "Architect"]

        await h.type_prompt("/tour")
        await h.until(lambda: h.all(PermissionPrompt), "the permission request")
        await h.until(lambda: session.thread.state == "requires_action", "requires_action")
        await h.until(
            lambda: "requires action: Edit src/app.py" in h.one(StatusBar).activity,
            "the status bar to say what waits",
        )
        # a prompt typed during the turn is sent at once and waits in the queue
        await h.type_prompt("mind the tests")
        await h.until(lambda: len(h.sent_methods("session/prompt")) == 2, "the second prompt")
        assert [i.text for i in session.queue] == ["mind the tests"]
        await h.until(lambda: h.all(QueuedItem), "the queued item")
        h.all(PermissionPrompt)[0].take_focus()
        await h.pilot.press("a")
        # the agent takes it at its next break point: placed mid-turn, before the summary
        await h.until(lambda: not session.queue, "the queued prompt to be placed")
        await h.until(lambda: session.thread.state == "idle", "the turn to end")
        said = messages(h)
        placed = said.index(("user", "mind the tests"))
        summary = next(i for i, (role, t) in enumerate(said) if "What just happened" in t)
        assert placed < summary and "Taking your message now" in said[placed + 1][1]
        # (the background indexer may still be listed: "… · 1 in background")
        assert h.one(StatusBar).activity.startswith("idle · end_turn")
        # the agent's own terminal, through the emulator
        terminal = next(v for v in h.all(TerminalView) if v.agent_owned)
        await h.until(
            lambda: any("README.md" in line for line in terminal.text_lines()),
            "the agent's ls output",
        )
        assert "\x1b" not in "".join(terminal.text_lines())
        # the agent wrote the file itself (v2 has no fs/write_text_file)
        assert "priority: int = 0" in (cwd / "src" / "app.py").read_text()
        assert not h.sent_methods("fs/write_text_file")
        # the background task finishes after the turn: marked in place
        await h.until(
            lambda: any("Background indexing finished" in t for _, t in messages(h)),
            "the background report",
        )
        thread = session.thread
        last = thread.entries[-1]
        indexer = next(e for e in thread.tool_calls.values() if "Index" in e.title)
        assert last.id in thread.background and indexer.id in thread.background
        assert indexer.status == "completed"
        await h.caught_up()
        conversation = h.one(ConversationView)
        view = conversation.views[last.id]
        assert view.has_class("-marked")
        drawn = list(shown(conversation))  # (what came before it froze at the turn end)
        at = next(i for i, (entry, _) in enumerate(drawn) if entry is last)
        note, text = drawn[at - 1]
        assert note is None and text.strip().startswith("↻"), "a background-mark note above it"
        assert "background activity" in text


def v2_initialize() -> dict[str, Any]:
    return {
        "expect": "initialize",
        "match": {"protocolVersion": 2},
        "respond": {
            "protocolVersion": 2,
            "info": {"name": "scripted-v2", "version": "1"},
            "capabilities": {},
            "authMethods": [],
        },
    }


def v2_update(update: dict[str, Any]) -> dict[str, Any]:
    check_v2_update(update)
    return {"notify": "session/update", "params": {"sessionId": SID, "update": update}}


async def test_each_v2_update_kind_and_user_message_patches(tmp_path: Path) -> None:
    term = "t-1"
    steps = [
        v2_initialize(),
        {"expect": "session/new", "respond": {"sessionId": SID}},
        v2_update(
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "hi",
                "content": text("Hello first."),
            }
        ),
        expect_prompt(),
        {"respond_to": "prompt", "respond": {}},
        v2_update({"sessionUpdate": "state_update", "state": "running"}),
        v2_update({"sessionUpdate": "user_message", "messageId": "u1", "content": [text("do it")]}),
        v2_update(
            {"sessionUpdate": "agent_thought_chunk", "messageId": "th", "content": text("thinking")}
        ),
        v2_update(
            {
                "sessionUpdate": "agent_thought",
                "messageId": "th",
                "content": [text("thought, revised")],
            }
        ),
        v2_update(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "c1",
                "title": "Run ls",
                "kind": "execute",
                "status": "in_progress",
                "content": [{"type": "terminal", "terminalId": term}],
            }
        ),
        v2_update(
            {
                "sessionUpdate": "terminal_update",
                "terminalId": term,
                "command": "ls [bold]x[/bold]",
                "cwd": "/project",
            }
        ),
        v2_update(
            {
                "sessionUpdate": "terminal_output_chunk",
                "terminalId": term,
                "data": encode_bytes(b"\x1b[32mgreen.txt\x1b[0m\r\n"),
            }
        ),
        v2_update(
            {"sessionUpdate": "terminal_update", "terminalId": term, "exitStatus": {"exitCode": 0}}
        ),
        v2_update(
            {
                "sessionUpdate": "tool_call_content_chunk",
                "toolCallId": "c1",
                "content": {"type": "content", "content": text("listed")},
            }
        ),
        v2_update({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed"}),
        v2_update(
            {"sessionUpdate": "agent_message_chunk", "messageId": "a1", "content": text("Do")}
        ),
        v2_update(
            {"sessionUpdate": "agent_message", "messageId": "a1", "content": [text("Done, ")]}
        ),
        v2_update(
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "a1",
                "content": text("all of it."),
            }
        ),
        # user_message patches: omitted content unchanged, array replaces, chunk appends
        v2_update({"sessionUpdate": "user_message", "messageId": "u1", "_meta": {"k": 1}}),
        v2_update(
            {"sessionUpdate": "user_message", "messageId": "u1", "content": [text("do it now")]}
        ),
        v2_update(
            {"sessionUpdate": "user_message_chunk", "messageId": "u1", "content": text(", please")}
        ),
        v2_update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}),
        v2_update(
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "late",
                "content": text("Reported after the turn."),
            }
        ),
        {"wait_notify": "session/cancel", "timeout": 30},
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path), session_kwargs=V2) as h:
        assert h.session.protocol_version == 2
        await h.until(lambda: messages(h), "the early message")
        await h.type_prompt("do it")
        await h.until(
            lambda: any(t == "Reported after the turn." for _, t in messages(h)), "the whole script"
        )
        await h.caught_up()
        thread = h.session.thread
        assert messages(h) == [
            ("agent", "Hello first."),
            ("user", "do it now, please"),
            ("thought", "thought, revised"),
            ("agent", "Done, all of it."),
            ("agent", "Reported after the turn."),
        ]
        # the prompt shown at once was adopted by the agent's user_message: not duplicated
        user = next(e for e in thread.entries if isinstance(e, MessageEntry) and e.role == "user")
        assert user.message_id == "u1"
        (drawn,) = [t for e, t in shown(h.one(ConversationView)) if e is user]  # (once)
        assert "do it now, please" in drawn
        assert "do it now, please" in h.screen_text()
        call = thread.tool_calls["c1"]
        assert isinstance(call, ToolCallEntry) and call.status == "completed"
        assert len(call.content) == 2
        (terminal,) = h.all(TerminalView)
        assert terminal.agent_owned and terminal.text_lines() == ["green.txt"]
        assert plain_title(terminal) == "ls [bold]x[/bold]"  # agent text, never markup
        assert terminal.border_subtitle == "exit code 0"
        assert thread.entries[-1].id in thread.background
        assert not h.sent_methods("authenticate") and not h.sent_methods("session/load")
        assert not h.session.queue


def plain_title(view: TerminalView) -> str:
    title = view._border_title
    return title.plain if title is not None else ""


async def test_user_message_null_clears_and_a_queued_prompt_is_placed(tmp_path: Path) -> None:
    steps = [
        v2_initialize(),
        {"expect": "session/new", "respond": {"sessionId": SID}},
        expect_prompt("p1"),
        {"respond_to": "p1", "respond": {}},
        v2_update({"sessionUpdate": "state_update", "state": "running"}),
        v2_update({"sessionUpdate": "user_message", "messageId": "u1", "content": [text("first")]}),
        v2_update(
            {"sessionUpdate": "agent_message_chunk", "messageId": "a1", "content": text("working")}
        ),
        expect_prompt("p2"),  # typed during the turn: sent at once
        {"wait_notify": "session/cancel", "timeout": 30},  # the test's signal to go on
        v2_update({"sessionUpdate": "user_message", "messageId": "u1", "content": None}),
        {"respond_to": "p2", "respond": {}},
        v2_update(
            {"sessionUpdate": "user_message", "messageId": "u2", "content": [text("second")]}
        ),
        v2_update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}),
        {"wait_notify": "session/cancel", "timeout": 30},
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path), session_kwargs=V2) as h:
        await h.type_prompt("first")
        await h.until(lambda: ("agent", "working") in messages(h), "the turn to run")
        await h.type_prompt("second")
        await h.until(lambda: h.all(QueuedItem), "the queued prompt")
        assert "sent, waiting for the agent" in str(h.app.screen.query_one("#queue").border_title)
        assert ("user", "second") not in messages(h)
        assert h.session.thread.state == "running"
        await h.session.connection.notify("session/cancel", {"sessionId": SID})  # type: ignore[union-attr]
        await h.until(lambda: h.session.thread.state == "idle", "idle")
        assert messages(h) == [("user", ""), ("agent", "working"), ("user", "second")]
        await h.until(lambda: not h.all(QueuedItem), "the queue to empty")


async def test_withdrawing_a_queued_v2_prompt_cancels_its_request(tmp_path: Path) -> None:
    cwd = fixed_cwd(tmp_path)
    from acp_tui.demo.sample_project import create_sample_project

    create_sample_project(cwd)
    async with run_app(demo_argv(), cwd, env=demo_env(), session_kwargs=V2) as h:
        await h.type_prompt("/edit")
        await h.until(lambda: h.all(PermissionPrompt), "the permission request")
        await h.type_prompt("never mind")
        await h.until(lambda: h.all(QueuedItem), "the queued item")
        item = h.all(QueuedItem)[0]
        item.focus()
        await h.pilot.press("x")
        await h.until(lambda: h.sent_methods("$/cancel_request"), "the request to be withdrawn")
        assert not h.session.queue
        h.all(PermissionPrompt)[0].take_focus()
        await h.pilot.press("a")
        await h.until(lambda: h.session.thread.state == "idle", "the turn to end")
        assert ("user", "never mind") not in messages(h)


async def test_v1_agent_answers_the_v2_offer_with_v1(tmp_path: Path) -> None:
    env = demo_env(ACP_TUI_DEMO_V1_ONLY="1")
    async with run_app(demo_argv(), fixed_cwd(tmp_path), env=env, session_kwargs=V2) as h:
        session = h.session
        (offer,) = h.sent_methods("initialize")
        assert offer["params"]["protocolVersion"] == 2
        assert "clientCapabilities" in offer["params"] and "capabilities" in offer["params"]
        assert session.protocol_version == 1 and session.v2 is None
        assert h.validator.version == 1
        await h.prompt("/terminal")  # v1: the client runs the terminal for the agent
        assert h.sent_methods("session/prompt")
        assert any(
            isinstance(e, ToolCallEntry) and e.status == "completed" for e in session.thread.entries
        )
        assert [m.name for m in session.thread.modes] == ["Ask", "Code", "Architect"]
        assert "ready" in plain(h.one(StatusBar)) or h.one(StatusBar).state == "ready"


async def test_v2_crash_then_restart_resumes_the_session(tmp_path: Path) -> None:
    async with run_app(demo_argv(), fixed_cwd(tmp_path), env=demo_env(), session_kwargs=V2) as h:
        session_id = h.session.session_id
        await h.type_prompt("/crash")
        await h.until(lambda: h.session.state is SessionState.CRASHED, "the crash")
        assert h.session.thread.state == "idle" and h.session.thread.last_stop_reason == "error"
        await h.pilot.press("ctrl+r")
        await h.ready()
        (resume,) = h.sent_methods("session/resume")
        assert resume["params"]["sessionId"] == session_id and "replayFrom" not in resume["params"]
        assert not h.sent_methods("session/load")
        await h.type_prompt("/help")
        await h.until(lambda: any("/tour" in t for r, t in messages(h) if r == "agent"), "help")
        await h.until(lambda: h.session.thread.state == "idle", "idle")


async def test_v2_login_uses_auth_login(tmp_path: Path) -> None:
    from tests.ui.test_app_connect import wait_login_screen

    env = demo_env(ACP_TUI_DEMO_AUTH="1")
    async with run_app(
        demo_argv(), fixed_cwd(tmp_path), env=env, wait_ready=False, session_kwargs=V2
    ) as h:
        await wait_login_screen(h, "Demo login")
        await h.pilot.press("enter")
        await h.ready()
        (login,) = h.sent_methods("auth/login")
        assert login["params"] == {"methodId": "demo-login"}
        assert not h.sent_methods("authenticate")
        assert h.session.protocol_version == 2 and h.session.session_id


async def test_v2_modes_are_the_mode_config_option(tmp_path: Path) -> None:
    async with run_app(demo_argv(), fixed_cwd(tmp_path), env=demo_env(), session_kwargs=V2) as h:
        assert h.session.thread.current_mode_id == "ask"
        await h.pilot.press("shift+tab")
        await h.until(lambda: h.session.thread.current_mode_id == "code", "the next mode")
        (sent,) = h.sent_methods("session/set_config_option")
        assert sent["params"] == {
            "sessionId": h.session.session_id,
            "configId": "mode",
            "type": "id",
            "value": "code",
        }
        assert not h.sent_methods("session/set_mode")
        await h.until(lambda: h.one(StatusBar).mode == "Code", "the status bar's mode")


async def test_v2_prompt_typed_while_starting_is_sent_once_ready(tmp_path: Path) -> None:
    async with run_app(
        demo_argv(), fixed_cwd(tmp_path), env=demo_env(), session_kwargs=V2, wait_ready=False
    ) as h:
        assert h.session.state is not SessionState.READY  # the agent is still starting
        h.session.submit("/help")
        await h.until(lambda: h.sent_methods("session/prompt"), "the prompt to be sent")
        await h.until(lambda: ("user", "/help") in messages(h), "the agent to place it")
        await h.until(lambda: not h.session.queue and h.session.thread.state == "idle", "idle")
        assert len(h.sent_methods("session/prompt")) == 1

"""The v2 reducer: upserts with patch semantics, state as the turn, background, agent terminals.

Every update fed here is first checked against the pinned v2 schema (a valid v2 frame)."""

from __future__ import annotations

from typing import Any

import pytest

from acp_tui.protocol.models import Content, PatchDiff, TextContent
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.entries import MessageEntry, ToolCallEntry
from acp_tui.thread.thread import Thread
from acp_tui.thread.v2.updates import V2Reducer, encode_bytes
from tests.schema_check import check_v2_update


class Fixture:
    def __init__(self) -> None:
        self.thread = Thread(clock=lambda: 1.0)
        self.v2 = V2Reducer(self.thread)
        self.changes: list[ch.Change] = []
        self.thread.subscribe(self.changes.append)

    def send(self, update: dict[str, Any]) -> None:
        check_v2_update(update)
        self.v2.apply_notification({"sessionId": "s", "update": update})

    def messages(self) -> list[tuple[str, str | None, str]]:
        return [
            (e.role, e.message_id, e.text)
            for e in self.thread.entries
            if isinstance(e, MessageEntry)
        ]


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def chunk(kind: str, message_id: str, value: str) -> dict[str, Any]:
    return {"sessionUpdate": kind, "messageId": message_id, "content": text(value)}


@pytest.fixture
def f() -> Fixture:
    return Fixture()


@pytest.mark.parametrize("kind", ["user_message", "agent_message", "agent_thought"])
def test_message_upsert_patch_rules(f: Fixture, kind: str) -> None:
    role = {"user_message": "user", "agent_message": "agent", "agent_thought": "thought"}[kind]
    f.send({"sessionUpdate": kind, "messageId": "m1", "content": [text("first")]})
    assert f.messages() == [(role, "m1", "first")]
    # omitted content: unchanged (only _meta patched)
    f.send({"sessionUpdate": kind, "messageId": "m1", "_meta": {"x": 1}})
    assert f.messages() == [(role, "m1", "first")]
    # array: replaces
    f.send({"sessionUpdate": kind, "messageId": "m1", "content": [text("second")]})
    assert f.messages() == [(role, "m1", "second")]
    # chunk after upsert: appends to the same message
    f.send(chunk(f"{kind}_chunk" if kind != "agent_thought" else "agent_thought_chunk", "m1", "+"))
    assert f.messages() == [(role, "m1", "second+")]
    # null: clears
    f.send({"sessionUpdate": kind, "messageId": "m1", "content": None})
    assert f.messages() == [(role, "m1", "")]
    assert len(f.thread.entries) == 1


def test_upsert_replaces_what_chunks_accumulated(f: Fixture) -> None:
    f.send(chunk("agent_message_chunk", "a", "Hel"))
    f.send(chunk("agent_message_chunk", "a", "lo"))
    f.send({"sessionUpdate": "agent_message", "messageId": "a", "content": [text("Bye")]})
    f.send(chunk("agent_message_chunk", "a", "!"))
    assert f.messages() == [("agent", "a", "Bye!")]


def test_late_chunk_appends_in_place_never_breaking_order(f: Fixture) -> None:
    f.send(chunk("agent_message_chunk", "a", "one"))
    f.send({"sessionUpdate": "tool_call_update", "toolCallId": "t", "title": "Run"})
    f.send(chunk("agent_message_chunk", "b", "two"))
    f.send(chunk("agent_message_chunk", "a", " more"))
    kinds = [type(e).__name__ for e in f.thread.entries]
    assert kinds == ["MessageEntry", "ToolCallEntry", "MessageEntry"]
    assert f.messages() == [("agent", "a", "one more"), ("agent", "b", "two")]
    appended = [c for c in f.changes if isinstance(c, ch.MessageChunkAppended)]
    assert appended[-1].entry.message_id == "a" and appended[-1].text == " more"


def test_same_id_different_roles_are_different_messages(f: Fixture) -> None:
    f.send(chunk("agent_message_chunk", "x", "said"))
    f.send(chunk("agent_thought_chunk", "x", "thought"))
    assert f.messages() == [("agent", "x", "said"), ("thought", "x", "thought")]


def tool(f: Fixture) -> ToolCallEntry:
    return f.thread.tool_calls["t1"]


def test_tool_call_upsert_patch_rules(f: Fixture) -> None:
    loc = {"path": "/p/a.py", "line": 3}
    f.send(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "title": "Edit a.py",
            "kind": "edit",
            "status": "in_progress",
            "locations": [loc],
            "content": [{"type": "content", "content": text("working")}],
            "rawInput": {"path": "/p/a.py"},
        }
    )
    assert (tool(f).title, tool(f).kind, tool(f).status) == ("Edit a.py", "edit", "in_progress")
    # omitted: unchanged
    f.send({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"})
    assert tool(f).kind == "edit" and len(tool(f).content) == 1 and tool(f).locations
    assert tool(f).raw_input == {"path": "/p/a.py"}
    # array: replaces
    f.send(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "content": [
                {"type": "content", "content": text("a")},
                {"type": "content", "content": text("b")},
            ],
        }
    )
    assert [
        c.content.text
        for c in tool(f).content
        if isinstance(c, Content) and isinstance(c.content, TextContent)
    ] == ["a", "b"]
    # chunk after upsert: appends one item
    f.send(
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "t1",
            "content": {"type": "content", "content": text("c")},
        }
    )
    assert len(tool(f).content) == 3
    # null: clears (collections empty, fields back to their defaults)
    f.send(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "content": None,
            "locations": None,
            "kind": None,
            "rawInput": None,
            "title": None,
        }
    )
    t = tool(f)
    assert (t.content, t.locations, t.kind, t.raw_input, t.title) == ([], [], "other", None, "t1")
    assert t.status == "completed"
    assert len(f.thread.entries) == 1


def test_tool_content_chunk_for_an_unknown_call_creates_it(f: Fixture) -> None:
    f.send(
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "t1",
            "content": {"type": "content", "content": text("hi")},
        }
    )
    assert len(tool(f).content) == 1


def test_v2_diff_content_is_kept_raw(f: Fixture) -> None:
    diff = {
        "type": "diff",
        "changes": [{"operation": "modify", "path": "/p/a.py"}],
        "patch": {"format": "git_patch", "text": "--- a/a.py\n+++ b/a.py\n"},
    }
    f.send({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "content": [diff]})
    (item,) = tool(f).content
    assert isinstance(item, PatchDiff) and item.raw == diff and item.type == "patch_diff"
    assert item.patch_text == "--- a/a.py\n+++ b/a.py\n"


def test_state_update_drives_the_turn(f: Fixture) -> None:
    f.send({"sessionUpdate": "state_update", "state": "running"})
    assert f.thread.turn_running and f.thread.state == "running"
    f.send({"sessionUpdate": "state_update", "state": "requires_action"})
    assert f.thread.turn_running and f.thread.state == "requires_action"
    f.send({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
    assert not f.thread.turn_running and f.thread.last_stop_reason == "end_turn"
    states = [(c.state, c.stop_reason) for c in f.changes if isinstance(c, ch.TurnStateChanged)]
    assert states == [("running", None), ("requires_action", None), ("idle", "end_turn")]


def test_what_arrives_while_idle_after_a_turn_is_background(f: Fixture) -> None:
    f.send(chunk("agent_message_chunk", "hello", "Hi, before any prompt"))
    early = f.thread.entries[-1]
    assert early.id not in f.thread.background  # shown, not background: no turn ran yet
    f.send({"sessionUpdate": "state_update", "state": "running"})
    f.send(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "title": "Build",
            "status": "in_progress",
        }
    )
    f.send({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
    assert f.thread.background == set()
    # the build finishes after the turn: its card changes in place and is marked
    f.send({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"})
    assert tool(f).id in f.thread.background and tool(f).status == "completed"
    f.send(chunk("agent_message_chunk", "bg", "Build done."))
    assert f.thread.entries[-1].id in f.thread.background
    assert [type(e).__name__ for e in f.thread.entries] == [
        "MessageEntry",
        "ToolCallEntry",
        "MessageEntry",
    ]


def test_user_message_places_a_pending_prompt(f: Fixture) -> None:
    placed: list[tuple[int, int]] = []
    f.v2.on_placed = lambda pending, entry: placed.append((pending.key, entry.id))
    shown = f.thread.add_user_prompt([TextContent(text="first")])
    f.v2.expect_prompt(1, "first", shown)
    f.v2.expect_prompt(2, "second")  # queued: not shown yet
    f.send({"sessionUpdate": "user_message", "messageId": "u1", "content": [text("first")]})
    assert placed == [(1, shown.id)] and shown.message_id == "u1"
    assert len([e for e in f.thread.entries if isinstance(e, MessageEntry)]) == 1
    f.send(chunk("agent_message_chunk", "a1", "working"))
    f.send({"sessionUpdate": "user_message", "messageId": "u2", "content": [text("second")]})
    assert placed[1][0] == 2
    assert f.messages() == [
        ("user", "u1", "first"),
        ("agent", "a1", "working"),
        ("user", "u2", "second"),
    ]
    assert f.v2.pending == []


def test_terminal_update_and_output_chunks(f: Fixture) -> None:
    f.send(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "title": "ls",
            "content": [{"type": "terminal", "terminalId": "term"}],
        }
    )
    f.changes.clear()
    f.send(
        {"sessionUpdate": "terminal_update", "terminalId": "term", "command": "ls -la", "cwd": "/p"}
    )
    terminal = f.v2.terminal("term")
    assert terminal is not None and terminal.command == "ls -la" and terminal.cwd == "/p"
    assert any(isinstance(c, ch.EntryChanged) and c.entry is tool(f) for c in f.changes)
    got: list[bytes] = []
    terminal.add_output_listener(got.append)
    raw = b"\x1b[31mred\x1b[0m\r\n\x1b]0;title\x07"
    f.send(
        {"sessionUpdate": "terminal_output_chunk", "terminalId": "term", "data": encode_bytes(raw)}
    )
    assert got == [raw] and terminal.output_bytes() == raw
    reset: list[bytes] = []
    terminal.add_reset_listener(reset.append)
    f.send(
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "term",
            "output": {"data": encode_bytes(b"snapshot")},
        }
    )
    assert reset == [b"snapshot"] and terminal.output_bytes() == b"snapshot"
    assert terminal.command == "ls -la"  # omitted: unchanged
    f.send(
        {"sessionUpdate": "terminal_update", "terminalId": "term", "exitStatus": {"exitCode": 2}}
    )
    assert terminal.exit_status is not None and terminal.exit_status.describe() == "exit code 2"
    f.send({"sessionUpdate": "terminal_update", "terminalId": "term", "command": None})
    assert terminal.command == ""


def test_terminal_output_that_is_not_base64_is_kept_as_unknown(f: Fixture) -> None:
    f.send({"sessionUpdate": "terminal_output_chunk", "terminalId": "t", "data": "%%%"})
    assert type(f.thread.entries[-1]).__name__ == "UnknownEntry"
    assert f.v2.terminal("t") is None


def test_v1_only_kinds_are_unknown_in_v2(f: Fixture) -> None:
    f.v2.apply_notification(
        {
            "sessionId": "s",
            "update": {"sessionUpdate": "tool_call", "toolCallId": "t", "title": "x"},
        }
    )
    assert type(f.thread.entries[-1]).__name__ == "UnknownEntry"
    assert f.thread.tool_calls == {}


def test_shared_kinds_go_to_the_thread(f: Fixture) -> None:
    f.send({"sessionUpdate": "usage_update", "used": 5, "size": 10})
    f.send(
        {
            "sessionUpdate": "plan_update",
            "plan": {
                "type": "items",
                "planId": "p",
                "entries": [{"content": "do", "priority": "high", "status": "pending"}],
            },
        }
    )
    assert f.thread.usage is not None and f.thread.usage.used == 5
    assert "p" in f.thread.plans


def test_a_subagent_sessions_v2_updates_go_to_its_lane() -> None:
    """v2 (claude-agent-acp 0.101 under --protocol 2): a child's own updates, under its session
    id, are its lane's, read by v2's rules; its `state_update` is not the parent's turn."""
    from acp_tui.thread.subagent_sessions import SubagentLaneEntry
    from acp_tui.thread.thread import Thread
    from acp_tui.thread.v2.updates import V2Reducer

    thread = Thread()
    thread.sessions.root_id = "root"
    reducer = V2Reducer(thread)

    def on(session_id: str, update: dict[str, object]) -> None:
        reducer.apply_notification({"sessionId": session_id, "update": update})

    on("root", {"sessionUpdate": "state_update", "state": "running"})
    on("root", {"sessionUpdate": "subagent_update", "sessionId": "kid", "title": "Explore",
                "state": {"state": "running"}})  # fmt: skip
    on("kid", {"sessionUpdate": "state_update", "state": "running"})
    on("kid", {"sessionUpdate": "agent_message_chunk", "messageId": "k1",
               "content": {"type": "text", "text": "child text"}})  # fmt: skip
    on("kid", {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "title": "Read"})
    on("root", {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
    on("kid", {"sessionUpdate": "state_update", "state": "running"})  # late: the child's
    assert thread.state == "idle" and not thread.turn_running
    # a call of the child that asked the user (asked in this tab) follows its child's updates
    from acp_tui.protocol.models import ToolCallUpdate

    thread.sessions.asked_call("kid", ToolCallUpdate(tool_call_id="t1"))
    on("kid", {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"})
    assert thread.tool_calls["kid ▸ t1"].status == "completed"
    (lane,) = [e for e in thread.entries if isinstance(e, SubagentLaneEntry)]
    assert "t1" in lane.child.thread.tool_calls and "t1" not in thread.tool_calls
    assert lane.child.thread.tool_calls["t1"].status == "completed"
    assert [getattr(e, "text", None) for e in lane.child.thread.entries][:1] == ["child text"]


def test_v2_commands_come_in_the_session_new_answer() -> None:
    """claude-agent-acp 0.101 under v2 sends its slash commands in the `session/new` answer
    (`availableCommands`), not as an update: the session shows them."""
    from acp_tui.client.session.open import apply_session_setup
    from acp_tui.protocol.models import NewSessionResponse
    from acp_tui.thread.thread import Thread

    thread = Thread()
    answer = NewSessionResponse.model_validate({
        "sessionId": "s", "availableCommands": [
            {"name": "compact", "description": "Compact the context"}, {"name": 3},
        ],
    })  # fmt: skip
    apply_session_setup(thread, answer)
    assert [c.name for c in thread.commands] == ["compact"]


def test_an_agent_terminals_lines_start_at_the_left() -> None:
    """claude-agent-acp 0.101's v2 terminals send a command's output as written to a pipe (LF
    alone): fed to the VT emulator as it is, each line started where the last ended (a
    staircase); shown as a PTY would, each starts at the left. CRLF stays CRLF."""
    from acp_tui.host.terminal_emulator import TerminalEmulator
    from acp_tui.thread.v2.agent_terminals import as_terminal_shows

    data = b"shell-ok\nhello.txt\r\nnotes.txt\n"
    assert as_terminal_shows(data) == b"shell-ok\r\nhello.txt\r\nnotes.txt\r\n"
    emulator = TerminalEmulator(40, 5)
    emulator.feed(as_terminal_shows(data))
    shown = [line.rstrip() for line in emulator.screen.display]
    assert shown[:3] == ["shell-ok", "hello.txt", "notes.txt"]
    raw = TerminalEmulator(40, 5)
    raw.feed(data)
    assert [line.rstrip() for line in raw.screen.display][0:1] == ["shell-ok"]
    assert raw.screen.display[1].startswith(" " * len("shell-ok"))  # the staircase it was


def test_a_v2_agents_providers_and_system_prompt_are_offered() -> None:
    """claude-agent-acp 0.101 under v2 offers `providers` and `session.systemPrompt` in its
    `initialize` answer: acp-tui lost its providers entry (read only `session.delete`)."""
    from acp_tui.client.system_prompt import offered_modes
    from acp_tui.client.v2.handshake import read_v2_initialize_result

    hello = read_v2_initialize_result({
        "protocolVersion": 2, "info": {"name": "claude", "version": "0.101.0"},
        "capabilities": {"providers": {}, "session": {
            "prompt": {"image": {}}, "delete": {}, "systemPrompt": {"mode": {"override": {}}},
        }},
        "authMethods": [],
    })  # fmt: skip
    assert hello.capabilities.providers == {}
    assert offered_modes(hello.capabilities) == {"append", "override"}
    bare = read_v2_initialize_result({"protocolVersion": 2, "capabilities": {}})
    assert bare.capabilities.providers is None and offered_modes(bare.capabilities) == set()

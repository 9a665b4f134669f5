"""Tool calls a subagent runs, nested under their parent tool call (claude-agent-acp's
`_meta.claudeCode.parentToolUseId`): children that come first wait for the parent, or show at
top level when the turn ends without it; a child the agent asks permission about stands alone."""

from __future__ import annotations

from typing import Any

from acp_tui.thread import thread_changes as ch
from acp_tui.thread.entries import ToolCallEntry
from acp_tui.thread.permission import PermissionAsk
from acp_tui.thread.subagents import parent_tool_call_id
from acp_tui.thread.thread import Thread
from tests.unit.thread_support import notify


def call(tool_call_id: str, parent: str | None = None, **fields: Any) -> dict[str, Any]:
    update: dict[str, Any] = {"sessionUpdate": "tool_call", "toolCallId": tool_call_id, **fields}
    if parent is not None:
        update["_meta"] = {"claudeCode": {"parentToolUseId": parent}}
    return update


def test_the_parent_id_is_read_from_meta() -> None:
    assert parent_tool_call_id({"claudeCode": {"parentToolUseId": "t1"}}) == "t1"
    for meta in (None, {}, {"claudeCode": "x"}, {"claudeCode": {"parentToolUseId": 3}}):
        assert parent_tool_call_id(meta) is None


def test_children_nest_under_their_parent(thread: Thread, events: list[ch.Change]) -> None:
    notify(thread, call("task", title="Task: explore"))
    [parent] = thread.entries
    assert isinstance(parent, ToolCallEntry)
    events.clear()
    notify(thread, call("c1", "task", title="Read a.py"))
    notify(thread, call("c2", "task", title="Grep"))
    update = {"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed"}
    notify(thread, {**update, "_meta": {"claudeCode": {"parentToolUseId": "task"}}})
    assert thread.entries == [parent]
    assert [c.tool_call_id for c in parent.children] == ["c1", "c2"]
    assert parent.children[0].status == "completed"
    assert events == [ch.EntryChanged(parent)] * 3  # the parent's card redraws, nothing else


def test_children_before_their_parent_wait_for_it(thread: Thread) -> None:
    notify(thread, call("c1", "task", title="Read"))
    notify(thread, {"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed"})
    assert thread.entries == []
    notify(thread, call("task", title="Task"))
    [parent] = thread.entries
    assert isinstance(parent, ToolCallEntry)
    assert [c.tool_call_id for c in parent.children] == ["c1"]


def test_children_whose_parent_never_comes_show_when_the_turn_ends(thread: Thread) -> None:
    thread.begin_turn()
    notify(thread, call("c1", "missing", title="Read"))
    assert thread.entries == []
    thread.end_turn("end_turn")
    assert [e.tool_call_id for e in thread.entries if isinstance(e, ToolCallEntry)] == ["c1"]


def test_a_child_asking_permission_stands_alone(thread: Thread) -> None:
    notify(thread, call("task", title="Task"))
    notify(thread, call("c1", "task", title="Write"))
    [parent] = thread.entries
    assert isinstance(parent, ToolCallEntry)
    ask = PermissionAsk(request_id=7, options=[])
    child = thread.ask_permission("c1", ask)
    assert thread.entries == [parent, child] and parent.children == []
    assert child.nested_in is None


def test_the_export_keeps_the_nested_calls(thread: Thread) -> None:
    from acp_tui.output.export import conversation_markdown

    notify(thread, call("task", title="Task one"))
    notify(thread, call("c1", "task", title="Read nested.py"))
    exported = conversation_markdown(thread.entries)
    assert exported.index("Task one") < exported.index("Read nested.py")

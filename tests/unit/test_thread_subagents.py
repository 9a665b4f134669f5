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


def top_level_ids(thread: Thread) -> list[str]:
    return [e.tool_call_id for e in thread.entries if isinstance(e, ToolCallEntry)]


def test_two_calls_naming_each_other_do_not_form_a_ring(thread: Thread) -> None:
    """The child waits for its parent, which names the child as its own parent: adopting the
    waiting child would close a ring (the app looped for good walking it)."""
    notify(thread, call("a", "b", title="A"))
    notify(thread, call("b", "a", title="B"))
    update = {"sessionUpdate": "tool_call_update", "toolCallId": "a", "status": "completed"}
    notify(thread, update)  # walks up from "a" to the card it is drawn in
    [b] = thread.entries
    assert isinstance(b, ToolCallEntry) and b.tool_call_id == "b"
    assert b.nested_in is None and b.dropped_parent == "a"
    assert [c.tool_call_id for c in b.children] == ["a"]


def test_a_ring_of_three_in_any_order_is_cut_once(thread: Thread) -> None:
    ring = {"a": "c", "b": "a", "c": "b"}
    for order in (["a", "b", "c"], ["c", "b", "a"], ["b", "a", "c"]):
        thread.reset()
        for tool_call_id in order:
            notify(thread, call(tool_call_id, ring[tool_call_id], title=tool_call_id))
        thread.end_turn("end_turn")
        [top] = thread.entries
        assert isinstance(top, ToolCallEntry) and top.dropped_parent == ring[top.tool_call_id]
        seen, current = [], top
        while current.children:
            [current] = current.children
            seen.append(current.tool_call_id)
        assert sorted([top.tool_call_id, *seen]) == ["a", "b", "c"]


def test_a_call_naming_itself_is_shown_on_its_own_marked(thread: Thread) -> None:
    notify(thread, call("a", "a", title="A"))
    [a] = thread.entries
    assert isinstance(a, ToolCallEntry) and a.dropped_parent == "a" and a.nested_in is None


def test_a_ring_through_a_nested_call_is_cut(thread: Thread, events: list[ch.Change]) -> None:
    """x waits for z; y nests under x; z under y would close z → y → x → z. Nothing is told
    about a call while the call it is nested in waits (it would be drawn on its own)."""
    notify(thread, call("x", "z", title="X"))  # waits for z
    notify(thread, call("y", "x", title="Y"))  # nested under x, which waits
    notify(thread, call("z", "y", title="Z"))  # y descends from z already (y→x→z)
    changed = {
        c.entry.tool_call_id
        for c in events
        if isinstance(c, ch.EntryChanged) and isinstance(c.entry, ToolCallEntry)
    }
    assert changed <= {"z"}  # (x was told as changed, and drawn on its own)
    [z] = thread.entries
    assert isinstance(z, ToolCallEntry) and z.dropped_parent == "y"
    assert [c.tool_call_id for c in z.children] == ["x"]
    assert [c.tool_call_id for c in z.children[0].children] == ["y"]


def test_a_chain_ten_thousand_deep_is_walked_without_recursion(thread: Thread) -> None:
    """Forwards and backwards; an update of the deepest call and the export still work."""
    from acp_tui.output.export import conversation_markdown

    depth = 10_000
    for reverse in (False, True):
        thread.reset()
        links = [(f"c{i}", f"c{i - 1}" if i else None) for i in range(depth)]
        for tool_call_id, parent in reversed(links) if reverse else links:
            notify(thread, call(tool_call_id, parent, title=tool_call_id))
        update = {"sessionUpdate": "tool_call_update", "toolCallId": f"c{depth - 1}"}
        notify(thread, {**update, "status": "completed"})
        assert top_level_ids(thread) == ["c0"]
        exported = conversation_markdown(thread.entries)
        assert f"c{depth - 1}" in exported

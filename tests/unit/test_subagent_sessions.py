"""Subagent sessions in the thread: each child announced on its parent is a lane there, its own
traffic (under its session id) goes to its own thread, patches keep what they omit, and no
announcement can make a cycle, a second parent or unbounded state."""

from __future__ import annotations

from typing import Any

from acp_tui.protocol.models import MAX_CHILDREN, MAX_DEPTH
from acp_tui.thread.entries import MessageEntry, ToolCallEntry, UnknownEntry
from acp_tui.thread.subagent_sessions import SessionMessageEntry, SubagentLaneEntry
from acp_tui.thread.thread import Thread

ROOT = "root-1"


def send(thread: Thread, session_id: str, update: dict[str, Any]) -> None:
    thread.apply_notification({"sessionId": session_id, "update": update})


def announce(thread: Thread, on: str, child: str, **fields: Any) -> None:
    send(thread, on, {"sessionUpdate": "subagent_update", "sessionId": child, **fields})


def text(thread: Thread, session_id: str, words: str) -> None:
    chunk = {"type": "text", "text": words}
    send(thread, session_id, {"sessionUpdate": "agent_message_chunk", "content": chunk})


def root_thread() -> Thread:
    thread = Thread()
    thread.sessions.root_id = ROOT
    return thread


def lanes(thread: Any) -> list[SubagentLaneEntry]:
    return [e for e in thread.entries if isinstance(e, SubagentLaneEntry)]


def test_a_child_is_a_lane_and_its_traffic_goes_to_its_own_thread() -> None:
    thread = root_thread()
    text(thread, ROOT, "I will ask a subagent.")
    announce(thread, ROOT, "c1", title="Explore", description="reads the code",
             state={"state": "running"}, capabilities={"cancel": {}})  # fmt: skip
    text(thread, "c1", "looking at main.py")
    send(thread, "c1", {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read"})
    text(thread, ROOT, " Waiting.")
    (lane,) = lanes(thread)
    child = lane.child
    assert (child.title, child.description, child.running, child.can_cancel) == (
        "Explore", "reads the code", True, True,
    )  # fmt: skip
    assert [type(e) for e in thread.entries] == [MessageEntry, SubagentLaneEntry, MessageEntry]
    assert "t1" not in thread.tool_calls and not any(
        isinstance(e, UnknownEntry) for e in thread.entries
    )
    assert [type(e) for e in child.thread.entries] == [MessageEntry, ToolCallEntry]
    assert thread.sessions.running() == 1
    # a patch keeps what it leaves out and clears what it sends as null
    announce(thread, ROOT, "c1", description=None, capabilities=None,
             state={"state": "idle", "stopReason": "error",
                    "error": {"code": -32603, "message": "boom"}})  # fmt: skip
    assert (child.title, child.description, child.can_cancel) == ("Explore", None, False)
    assert child.state is not None and child.state.error_text == "boom (-32603)"
    assert thread.sessions.running() == 0
    assert lanes(thread) == [lane]


def test_a_child_change_redraws_its_lane_in_the_parent() -> None:
    thread = root_thread()
    announce(thread, ROOT, "c1", title="Explore")
    changed: list[Any] = []
    thread.subscribe(lambda change: changed.append(getattr(change, "entry", None)))
    text(thread, "c1", "hello")
    assert changed and all(isinstance(e, SubagentLaneEntry) for e in changed)


def test_grandchildren_nest_in_their_parents_thread() -> None:
    thread = root_thread()
    announce(thread, ROOT, "c1", title="Plan")
    announce(thread, "c1", "c2", title="Search")
    text(thread, "c2", "found it")
    (lane,) = lanes(thread)
    (inner,) = lanes(lane.child.thread)
    assert inner.child.depth == 2 and inner.child.parent_id == "c1"
    assert [e.text for e in inner.child.thread.entries if isinstance(e, MessageEntry)] == [
        "found it"
    ]


def test_session_messages_are_upserted_by_id_with_chunks() -> None:
    """The parent's message to its child (its task) is drawn in the child's lane; the child's
    message back is the parent's entry; both are upserted by id, chunks appended."""
    thread = root_thread()
    announce(thread, ROOT, "c1", title="Explore")
    send(thread, ROOT, {"sessionUpdate": "session_message", "messageId": "m1",
                        "senderSessionId": ROOT, "recipientSessionId": "c1",
                        "content": [{"type": "text", "text": "look around"}]})  # fmt: skip
    send(thread, ROOT, {"sessionUpdate": "session_message_chunk", "messageId": "m1",
                        "content": {"type": "text", "text": " please"}})  # fmt: skip
    send(thread, ROOT, {"sessionUpdate": "session_message", "messageId": "m1"})
    (lane,) = lanes(thread)
    assert lane.child.task is not None and lane.child.task.text == "look around please"
    assert not [e for e in thread.entries if isinstance(e, SessionMessageEntry)]
    send(thread, ROOT, {"sessionUpdate": "session_message", "messageId": "m2",
                        "senderSessionId": "c1", "recipientSessionId": ROOT,
                        "content": [{"type": "text", "text": "found it"}]})  # fmt: skip
    (reply,) = [e for e in thread.entries if isinstance(e, SessionMessageEntry)]
    assert not reply.outgoing and reply.sender == "c1" and reply.text == "found it"


def test_no_child_names_itself_the_root_or_an_ancestor_and_ownership_stays() -> None:
    thread = root_thread()
    announce(thread, ROOT, ROOT, title="me")  # the root as its own child
    announce(thread, ROOT, "c1", title="A")
    announce(thread, "c1", "c1", title="itself")  # a child as its own child
    announce(thread, "c1", "c2", title="B")
    announce(thread, "c2", "c1", title="cycle")  # c1 under its own grandchild
    announce(thread, "c2", ROOT, title="cycle to the root")
    announce(thread, "c2", "c1", title="stolen")  # claimed by another parent: refused
    assert set(thread.sessions.children) == {"c1", "c2"}
    assert thread.sessions.children["c1"].title == "A"
    assert thread.sessions.children["c1"].parent_id is None
    assert thread.sessions.refused_count == 5
    assert [lane.child.session_id for lane in lanes(thread)] == ["c1"]


def test_ten_thousand_deep_nesting_is_bounded() -> None:
    thread = root_thread()
    parent = ROOT
    for depth in range(10_000):
        child = f"d{depth}"
        announce(thread, parent, child, title=child)
        text(thread, child, "deeper")
        parent = child
    assert len(thread.sessions.children) == MAX_DEPTH
    assert max(c.depth for c in thread.sessions.children.values()) == MAX_DEPTH
    assert thread.sessions.dropped_updates > 0
    # nothing of the refused ones was drawn as the root's own
    assert [type(e) for e in thread.entries] == [SubagentLaneEntry]


def test_ten_thousand_children_are_bounded_and_never_the_roots_own() -> None:
    thread = root_thread()
    for n in range(10_000):
        announce(thread, ROOT, f"c{n}", title=f"child {n}")
        text(thread, f"c{n}", "hi")
    assert len(thread.sessions.children) == MAX_CHILDREN
    assert len(lanes(thread)) == MAX_CHILDREN
    assert len(thread.entries) == MAX_CHILDREN
    assert len(thread.sessions.refused) <= 4096
    text(thread, ROOT, "still mine")
    assert isinstance(thread.entries[-1], MessageEntry)


def test_an_agent_without_subagent_sessions_is_as_before() -> None:
    """No child announced: any session id goes to the thread, as it always did."""
    thread = root_thread()
    text(thread, "some-other-id", "hello")
    assert [e.text for e in thread.entries if isinstance(e, MessageEntry)] == ["hello"]


def test_a_reset_forgets_the_children() -> None:
    thread = root_thread()
    announce(thread, ROOT, "c1", title="A")
    thread.reset()
    assert thread.sessions.children == {} and thread.sessions.root_id is None
    text(thread, "c1", "now an ordinary id")
    assert len(thread.entries) == 1


def test_the_export_includes_each_lane_and_its_conversation() -> None:
    from acp_tui.output.export import conversation_markdown

    thread = root_thread()
    text(thread, ROOT, "Asking a subagent.")
    announce(thread, ROOT, "c1", title="Explore", description="reads the code",
             state={"state": "idle", "stopReason": "end_turn"})  # fmt: skip
    text(thread, "c1", "main.py has 3 functions")
    announce(thread, "c1", "c2", title="Count")
    text(thread, "c2", "counted")
    markdown = conversation_markdown(thread.entries, agent_name="Claude")
    assert "### Subagent: Explore — reads the code" in markdown
    assert "> ## Explore\n>\n> main.py has 3 functions" in markdown
    assert "> ### Subagent: Count" in markdown and "> > counted" in markdown


def test_a_childs_calls_are_its_own_whatever_their_meta_says() -> None:
    """claude-agent-acp 0.101 keeps `_meta.claudeCode.parentToolUseId` (the hidden Agent call)
    on a child's tool calls: in a subagent session they are the lane's, not waiting for a
    parent call that never comes (the `_meta` nesting is the fallback of the root only)."""
    thread = root_thread()
    announce(thread, ROOT, "c1", title="Explore")
    meta = {"claudeCode": {"parentToolUseId": "toolu_hidden"}}
    send(thread, "c1", {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Write",
                        "_meta": meta})  # fmt: skip
    (lane,) = lanes(thread)
    assert [e.tool_call_id for e in lane.child.thread.entries if isinstance(e, ToolCallEntry)] == [
        "t1"
    ]

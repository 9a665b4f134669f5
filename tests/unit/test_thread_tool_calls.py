"""The session reducer's tool calls: merging, unknown ids, permissions, times, cancel."""

from __future__ import annotations

import pytest

from acp_tui.protocol import models as m
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.entries import (
    ToolCallEntry,
)
from acp_tui.thread.permission import PermissionAsk
from acp_tui.thread.thread import Thread
from tests.unit.thread_support import Clock, notify

# ---- tool calls -------------------------------------------------------------------------------


def test_tool_call_lifecycle_with_times(
    thread: Thread, events: list[ch.Change], clock: Clock
) -> None:
    notify(
        thread,
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "t1",
            "title": "Run tests",
            "kind": "execute",
            "status": "pending",
            "rawInput": {"cmd": "pytest"},
        },
    )
    entry = thread.tool_calls["t1"]
    assert (entry.title, entry.kind, entry.status) == ("Run tests", "execute", "pending")
    assert (entry.created_at, entry.started_at, entry.finished_at) == (100.0, None, None)
    clock.now = 101.0
    notify(
        thread, {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "in_progress"}
    )
    clock.now = 103.5
    notify(
        thread,
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "status": "completed",
            "content": [{"type": "terminal", "terminalId": "term"}],
            "rawOutput": {"exit": 0},
            "title": None,
        },
    )
    assert entry.status == "completed" and entry.title == "Run tests"  # null = unchanged
    assert (entry.started_at, entry.finished_at, entry.duration) == (101.0, 103.5, 3.5)
    assert entry.raw_input == {"cmd": "pytest"} and entry.raw_output == {"exit": 0}
    assert isinstance(entry.content[0], m.Terminal)
    assert events == [ch.EntryAdded(entry), ch.EntryChanged(entry), ch.EntryChanged(entry)]


def test_a_call_asked_about_counts_from_its_tool_call_and_tells_the_wait_apart(
    thread: Thread, clock: Clock
) -> None:
    """An agent that asks permission and then sends `completed` with no `in_progress`: the
    call took the 11.4 s since its `tool_call`, 11 s of them waiting for the user."""
    notify(thread, {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Write",
                    "kind": "edit", "status": "pending"})  # fmt: skip
    entry = thread.tool_calls["t1"]
    clock.now = 100.2
    ask = PermissionAsk(3)
    thread.ask_permission("t1", ask)
    clock.now = 105.2
    assert entry.waited(clock.now) == pytest.approx(5.0), "an open question counts up to now"
    clock.now = 111.2
    thread.settle_permission("t1", 3, "✓ answered: Allow")
    clock.now = 111.4
    notify(thread, {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"})
    assert entry.duration == pytest.approx(11.4)
    assert entry.waited(500.0) == pytest.approx(11.0), "an answered question stops counting"
    now = 500.0
    auto = PermissionAsk(4, asked=False, answer="✓ allowed by rule")
    thread.ask_permission("t1", auto)
    assert entry.waited(now) == pytest.approx(11.0), "an answer given without asking waited 0"


def test_repeated_tool_call_merges_only_sent_fields(
    thread: Thread, events: list[ch.Change]
) -> None:
    notify(
        thread,
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "t1",
            "title": "Edit",
            "kind": "edit",
            "status": "in_progress",
            "locations": [{"path": "/a.py"}],
        },
    )
    notify(thread, {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Edit a.py"})
    [entry] = thread.entries
    assert isinstance(entry, ToolCallEntry)
    assert (entry.title, entry.kind, entry.status) == ("Edit a.py", "edit", "in_progress")
    assert [loc.path for loc in entry.locations] == ["/a.py"]
    assert events == [ch.EntryAdded(entry), ch.EntryChanged(entry)]


def test_update_for_unknown_id_creates_the_call(thread: Thread, events: list[ch.Change]) -> None:
    notify(thread, {"sessionUpdate": "tool_call_update", "toolCallId": "ghost", "status": "failed"})
    entry = thread.tool_calls["ghost"]
    assert thread.entries == [entry]
    assert (entry.title, entry.status, entry.finished_at) == ("tool call", "failed", 100.0)
    assert events == [ch.EntryAdded(entry)]


def test_permission_matches_known_call_by_id(thread: Thread, events: list[ch.Change]) -> None:
    notify(thread, {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Write file"})
    request = m.RequestPermissionRequest.model_validate(
        {
            "sessionId": "s1",
            "toolCall": {"toolCallId": "t1"},
            "options": [{"optionId": "ok", "name": "Allow", "kind": "allow_once"}],
        }
    )
    entry = thread.upsert_tool_call(request.tool_call)
    assert entry is thread.tool_calls["t1"] and entry.title == "Write file"
    assert len(thread.entries) == 1
    assert events == [ch.EntryAdded(entry)]  # nothing sent besides the id: no change event


def test_permission_with_details_updates_or_creates(
    thread: Thread, events: list[ch.Change]
) -> None:
    notify(thread, {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "x"})
    known = thread.upsert_tool_call(
        m.ToolCallUpdate(tool_call_id="t1", title="rm -rf build", kind="execute")
    )
    assert (known.title, known.kind) == ("rm -rf build", "execute")
    new = thread.upsert_tool_call(m.ToolCallUpdate(tool_call_id="t2", title="Fetch", kind="fetch"))
    assert thread.tool_calls["t2"] is new and new.kind == "fetch" and new.status == "pending"
    assert events == [ch.EntryAdded(known), ch.EntryChanged(known), ch.EntryAdded(new)]


def test_cancel_unfinished_tool_calls(
    thread: Thread, events: list[ch.Change], clock: Clock
) -> None:
    for tool_id, status in (("a", "pending"), ("b", "in_progress"), ("c", "completed")):
        notify(
            thread,
            {
                "sessionUpdate": "tool_call",
                "toolCallId": tool_id,
                "title": tool_id,
                "status": status,
            },
        )
    events.clear()
    clock.now = 200.0
    cancelled = thread.cancel_unfinished_tool_calls()
    assert [e.tool_call_id for e in cancelled] == ["a", "b"]
    assert [thread.tool_calls[i].status for i in "abc"] == ["cancelled", "cancelled", "completed"]
    assert all(e.finished_at == 200.0 and e.finished for e in cancelled)
    assert events == [ch.EntryChanged(cancelled[0]), ch.EntryChanged(cancelled[1])]
    assert thread.cancel_unfinished_tool_calls() == []


def test_cancelled_mark_survives_the_agents_failed_but_not_a_completion(
    thread: Thread, clock: Clock
) -> None:
    for tool_id in ("a", "b"):
        notify(
            thread,
            {
                "sessionUpdate": "tool_call",
                "toolCallId": tool_id,
                "title": tool_id,
                "status": "in_progress",
            },
        )
    clock.now = 50.0
    thread.cancel_unfinished_tool_calls()
    clock.now = 60.0
    for tool_id, status in (("a", "failed"), ("b", "completed")):
        notify(
            thread,
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": tool_id,
                "status": status,
                "content": [{"type": "content", "content": {"type": "text", "text": "stopped"}}],
            },
        )
    a, b = thread.tool_calls["a"], thread.tool_calls["b"]
    assert a.status == "cancelled" and len(a.content) == 1  # other fields still merge
    assert b.status == "completed"
    assert a.finished_at == 50.0 and b.finished_at == 50.0  # finish time is the first finish


def test_a_call_without_a_title_is_named_by_what_it_is_never_its_raw_id(thread: Thread) -> None:
    """A failed qwen edit arrives as an update of a call never announced, with no title: its
    card is titled by the tool, its kind and its file (issue 39, 15e), not the raw call id."""
    update = {"sessionUpdate": "tool_call_update", "toolCallId": "replace-1765-0a9f",
              "status": "failed", "kind": "edit",
              "locations": [{"path": "/p/src/app.py"}]}  # fmt: skip
    notify(thread, update)
    assert thread.tool_calls["replace-1765-0a9f"].title == "edit /p/src/app.py"
    notify(thread, {"sessionUpdate": "tool_call_update", "toolCallId": "c2", "status": "failed",
                    "rawInput": {"file_path": "/p/b.py"},
                    "_meta": {"qwen": {"toolName": "replace"}}})  # fmt: skip
    assert thread.tool_calls["c2"].title == "replace /p/b.py"
    notify(thread, {"sessionUpdate": "tool_call_update", "toolCallId": "c3", "status": "failed"})
    assert thread.tool_calls["c3"].title == "tool call"
    # what comes later names it better; a title the agent sends wins
    notify(thread, {"sessionUpdate": "tool_call_update", "toolCallId": "c3", "kind": "read"})
    assert thread.tool_calls["c3"].title == "read"
    notify(thread, {"sessionUpdate": "tool_call_update", "toolCallId": "c3", "title": "Read it"})
    notify(thread, {"sessionUpdate": "tool_call_update", "toolCallId": "c3", "kind": "edit"})
    assert thread.tool_calls["c3"].title == "Read it"

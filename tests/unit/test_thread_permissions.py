"""A pending permission as state of its tool call: the thread's part and the client's binding."""

from __future__ import annotations

import asyncio
from typing import Any

from acp_tui.client.permission_state import show_permissions_in
from acp_tui.host.permissions import PermissionBroker
from acp_tui.protocol.models import RequestPermissionRequest
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.permission import PermissionAsk
from acp_tui.thread.thread import Thread

OPTIONS = [
    {"optionId": "always", "name": "Always allow", "kind": "allow_always"},
    {"optionId": "once", "name": "Allow", "kind": "allow_once"},
    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
]


def test_a_permission_for_an_unknown_call_becomes_a_tool_call_entry(thread, events):
    answers: list[str | None] = []
    ask = PermissionAsk(7, respond=answers.append, covers="edit a.txt")
    entry = thread.ask_permission("never-seen", ask)
    assert thread.tool_calls["never-seen"] is entry and thread.entries == [entry]
    assert entry.title == "tool call" and entry.open_permission is ask
    assert thread.waiting_permission()
    assert [type(e) for e in events] == [ch.EntryAdded, ch.PermissionChanged]
    ask.choose("once")
    assert answers == ["once"] and ask.open, "open until the host says it was answered"
    thread.settle_permission("never-seen", 7, "✓ answered: Allow")
    assert not ask.open and ask.respond is None and entry.open_permission is None
    assert not thread.waiting_permission()
    assert isinstance(events[-1], ch.PermissionChanged) and events[-1].ask is ask
    ask.choose("no")
    thread.settle_permission("never-seen", 7, "twice")
    assert answers == ["once"] and ask.answer == "✓ answered: Allow" and len(events) == 3


def test_a_permission_for_a_known_call_joins_its_entry(thread, events):
    thread.apply_notification(
        {
            "sessionId": "s",
            "update": {
                "sessionUpdate": "tool_call",
                "toolCallId": "c1",
                "title": "Edit a",
                "kind": "edit",
            },
        }
    )
    entry = thread.ask_permission("c1", PermissionAsk(1))
    assert thread.entries == [entry] and entry.title == "Edit a"
    assert isinstance(events[-1], ch.PermissionChanged)


async def asked(thread: Thread, tool_call_id: str) -> None:
    """Wait until a permission request about `tool_call_id` is on its tool call."""
    seen = asyncio.Event()

    def on_change(change: ch.Change) -> None:
        if isinstance(change, ch.PermissionChanged) and change.entry.tool_call_id == tool_call_id:
            seen.set()

    unsubscribe = thread.subscribe(on_change)
    try:
        await asyncio.wait_for(seen.wait(), 5)
    finally:
        unsubscribe()


def request(call_id: str, **tool_call: Any) -> RequestPermissionRequest:
    return RequestPermissionRequest.model_validate(
        {"sessionId": "s", "toolCall": {"toolCallId": call_id, **tool_call}, "options": OPTIONS}
    )


async def test_the_broker_feeds_the_thread_and_answers_reach_both_at_once(tmp_path):
    thread = Thread()
    broker = PermissionBroker(tool_call_lookup=thread.tool_calls.get, root=tmp_path)
    show_permissions_in(thread, broker)
    seen: list[ch.Change] = []
    thread.subscribe(seen.append)
    task = asyncio.create_task(broker.request(request("c1", title="Edit", kind="edit")))
    await asked(thread, "c1")
    entry = thread.tool_calls["c1"]
    ask = entry.open_permission
    assert ask is not None and ask.covers is None, "names no path: nothing to remember"
    assert [o.kind for o in ask.options] == ["allow_once", "reject_once"]
    ask.choose("once")
    assert ask.answer == "✓ answered: Allow", "recorded before the agent gets the answer"
    assert (await task)["outcome"] == {"outcome": "selected", "optionId": "once"}

    broker.auto_answer = lambda pending: "no"
    await broker.request(request("c2", title="Delete", kind="delete"))
    (note,) = thread.tool_calls["c2"].permissions
    assert not note.asked and note.answer == "✗ rejected answered automatically"


async def test_a_presented_request_cancelled_midway_is_settled_cancelled(tmp_path):
    thread = Thread()
    broker = PermissionBroker(tool_call_lookup=thread.tool_calls.get, root=tmp_path)
    show_permissions_in(thread, broker)
    task = asyncio.create_task(
        broker.request(request("c1", kind="edit", locations=[{"path": "a.txt"}]))
    )
    await asked(thread, "c1")
    ask = thread.tool_calls["c1"].permissions[0]
    assert ask.open and ask.covers == "edit a.txt" and len(ask.options) == 3
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert ask.answer == "⊘ cancelled" and broker.pending == []

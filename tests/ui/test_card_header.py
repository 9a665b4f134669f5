"""A tool call card's header (its time, and the time it waited for the user) and how a failed
call's error output is drawn: the line-drawing functions on entries a thread reduced."""

from __future__ import annotations

from typing import Any

from acp_tui.session.entries import ToolCallEntry
from acp_tui.session.permission import PermissionAsk
from acp_tui.session.thread import Thread
from acp_tui.ui.widgets.tool_call_facts import header_text
from tests.unit.thread_support import Clock, notify


def call(thread: Thread, **fields: Any) -> ToolCallEntry:
    update = {"sessionUpdate": "tool_call", "toolCallId": "t1", "status": "pending", **fields}
    notify(thread, update)
    return thread.tool_calls["t1"]


def status(thread: Thread, value: str, **fields: Any) -> None:
    update = {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": value, **fields}
    notify(thread, update)


def test_a_call_asked_about_shows_its_time_from_the_tool_call_and_the_wait_apart() -> None:
    """Asked at once, answered 11 s later, `completed` with no `in_progress`: the header said
    `✓ completed 0.0s`; it says how long the call took and how much of it waited for you."""
    clock = Clock()
    thread = Thread(clock=clock)
    entry = call(thread, title="Write hello.txt", kind="edit")
    clock.now = 100.2
    thread.ask_permission("t1", PermissionAsk(1))
    clock.now = 105.5
    assert header_text(entry, clock.now).plain == "✎ Write hello.txt  ○ pending", "no clock yet"
    clock.now = 111.2
    thread.settle_permission("t1", 1, "✓ answered: Allow")
    clock.now = 112.4
    status(thread, "completed")
    shown = header_text(entry, 900.0).plain
    assert shown == "✎ Write hello.txt  ✓ completed 12s (waited 11s for you)"


def test_a_running_call_counts_from_its_tool_call_and_the_wait_so_far() -> None:
    clock = Clock()
    thread = Thread(clock=clock)
    entry = call(thread, title="Run tests", kind="execute")
    clock.now = 102.0
    status(thread, "in_progress")
    thread.ask_permission("t1", PermissionAsk(1))
    clock.now = 105.0
    assert header_text(entry, clock.now).plain == "▶ Run tests  ◐ running 5s (waited 3s for you)"


def test_a_call_nobody_was_asked_about_shows_its_time_alone() -> None:
    clock = Clock()
    thread = Thread(clock=clock)
    entry = call(thread, title="Read notes.txt", kind="read")
    clock.now = 100.4
    status(thread, "completed")
    assert header_text(entry, 900.0).plain == "⇲ Read notes.txt  ✓ completed 0.4s"
    auto = PermissionAsk(2, asked=False, answer="✓ allowed by rule")
    thread.ask_permission("t1", auto)
    assert header_text(entry, 900.0).plain == "⇲ Read notes.txt  ✓ completed 0.4s"

"""v2 background work and its cancel capabilities, as the reducer keeps them: a state
snapshot's `background` list (whole, bounded, malformed = not reported), a tool call's and a
terminal's `capabilities.cancel` (patch semantics), and ctrl+k on an agent-owned terminal
sending `terminal/cancel` only while it is offered and the command runs."""

from __future__ import annotations

from typing import Any

from acp_tui.thread import thread_changes as ch
from acp_tui.thread.thread import Thread
from acp_tui.thread.v2.updates import BACKGROUND_LIMIT, V2Reducer
from tests.schema_check import check_v2_update


def reducer() -> tuple[V2Reducer, list[str], list[ch.Change]]:
    thread = Thread(clock=lambda: 1.0)
    cancelled: list[str] = []
    changes: list[ch.Change] = []
    thread.subscribe(changes.append)
    return V2Reducer(thread, on_terminal_cancel=cancelled.append), cancelled, changes


def send(r: V2Reducer, update: dict[str, Any], *, valid: bool = True) -> None:
    if valid:
        check_v2_update(update)
    r.apply_notification({"sessionId": "s", "update": update})


def test_state_snapshots_list_the_background_work() -> None:
    r, _, changes = reducer()
    send(r, {"sessionUpdate": "state_update", "state": "running"})
    assert r.thread.background_work is None  # not reported
    work = [{"type": "terminal", "terminalId": "t1"}, {"type": "tool_call", "toolCallId": "c1"}]
    send(r, {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn",
             "background": work})  # fmt: skip
    assert r.thread.background_work == ("terminal t1", "tool_call c1")
    ends = [c for c in changes if isinstance(c, ch.TurnStateChanged) and not c.running]
    send(r, {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn",
             "background": []})  # fmt: skip
    assert r.thread.background_work == ()
    assert any(isinstance(c, ch.BackgroundWorkChanged) for c in changes)
    # the same idle again is not another turn end
    assert [c for c in changes if isinstance(c, ch.TurnStateChanged) and not c.running] == ends
    many = [{"type": "tool_call", "toolCallId": str(i)} for i in range(10_000)]
    huge = {"sessionUpdate": "state_update", "state": "running", "background": many}
    # valid against the schema: checked on a few of its items, all of one shape (the schema
    # check of all 10,000 took 10 s); the reducer gets every one
    check_v2_update({**huge, "background": many[:3]})
    send(r, huge, valid=False)
    assert len(r.thread.background_work or ()) == BACKGROUND_LIMIT
    send(r, {"sessionUpdate": "state_update", "state": "running", "background": "x"}, valid=False)
    assert r.thread.background_work is None  # malformed: not reported


def test_cancel_capabilities_follow_patch_semantics() -> None:
    r, _, _ = reducer()
    send(r, {"sessionUpdate": "tool_call_update", "toolCallId": "c1", "title": "watch",
             "status": "in_progress", "capabilities": {"cancel": {}}})  # fmt: skip
    call = r.thread.tool_calls["c1"]
    assert call.can_cancel
    send(r, {"sessionUpdate": "tool_call_update", "toolCallId": "c1", "title": "watching"})
    assert call.can_cancel  # omitted: kept
    send(r, {"sessionUpdate": "tool_call_update", "toolCallId": "c1", "capabilities": None})
    assert not call.can_cancel  # null: cleared
    send(r, {"sessionUpdate": "tool_call_update", "toolCallId": "c1",
             "capabilities": {"cancel": 3}}, valid=False)  # fmt: skip
    assert not call.can_cancel  # malformed: no controls


def test_ctrl_k_on_an_agent_terminal_sends_terminal_cancel_only_when_offered() -> None:
    r, cancelled, _ = reducer()
    send(r, {"sessionUpdate": "terminal_update", "terminalId": "t1", "command": "sleep 9"})
    terminal = r.terminal("t1")
    assert terminal is not None
    terminal.kill()
    assert cancelled == []  # not offered
    send(r, {"sessionUpdate": "terminal_update", "terminalId": "t1",
             "capabilities": {"cancel": {}}})  # fmt: skip
    terminal.kill()
    assert cancelled == ["t1"]
    send(r, {"sessionUpdate": "terminal_update", "terminalId": "t1",
             "exitStatus": {"signal": "SIGTERM"}})  # fmt: skip
    terminal.kill()
    assert cancelled == ["t1"]  # exited: nothing more to stop


def test_a_paused_call_is_shown_as_paused() -> None:
    from acp_tui.ui.widgets.tool_call_facts import status_text

    assert status_text("paused", None).plain == "‖ paused"

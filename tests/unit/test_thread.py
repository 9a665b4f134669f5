"""The session reducer: coalescing, plans, modes, usage, info, exact change events."""

from __future__ import annotations

from typing import Any

from acp_tui.protocol import models as m
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.entries import (
    MessageEntry,
    PlanSnapshotEntry,
    UnknownEntry,
)
from acp_tui.thread.thread import Thread, UsageState
from tests.unit.thread_support import chunk, notify

# ---- messages ---------------------------------------------------------------------------------


def test_agent_chunks_coalesce_and_emit_deltas(thread: Thread, events: list[ch.Change]) -> None:
    for piece in ("Hel", "lo ", "world"):
        notify(thread, chunk("agent_message_chunk", piece))
    [entry] = thread.entries
    assert isinstance(entry, MessageEntry) and entry.role == "agent"
    assert entry.text == "Hello world"
    assert entry.blocks == [m.TextContent(text="Hello world")]
    assert events == [
        ch.EntryAdded(entry),
        ch.MessageChunkAppended(entry, 0, "lo "),
        ch.MessageChunkAppended(entry, 0, "world"),
    ]


def test_chunks_never_put_two_joiners_together(thread: Thread, events: list[ch.Change]) -> None:
    """Each chunk is safe alone; a chunk ending with a zero-width joiner and the next beginning
    with one would make the pair Rich and Textual cannot wrap: the second is shown as U+FFFD,
    in the entry and in what the views are sent."""
    for piece in ("a\u200d", "\u200d漢字", "\u200d\u200dx"):
        notify(thread, chunk("agent_message_chunk", piece))
    [entry] = thread.entries
    assert isinstance(entry, MessageEntry)
    assert entry.text == "a\u200d\ufffd漢字\u200d\ufffdx"
    sent = [event.text for event in events if isinstance(event, ch.MessageChunkAppended)]
    assert "a\u200d" + "".join(sent) == entry.text


def test_fast_path_and_model_path_agree() -> None:
    fast, slow = Thread(), Thread()
    updates = [
        chunk("agent_thought_chunk", "think"),
        chunk("agent_message_chunk", "a", messageId="m1"),
        chunk("agent_message_chunk", "b", messageId="m1"),
        chunk("agent_message_chunk", "c", messageId="m2"),
        chunk("user_message_chunk", "u"),
    ]
    fast_events: list[ch.Change] = []
    slow_events: list[ch.Change] = []
    fast.subscribe(fast_events.append)
    slow.subscribe(slow_events.append)
    for update in updates:
        notify(fast, update)
        slow.apply(m.parse_session_update(update))
    summary = [(e.role, e.message_id, e.text) for e in fast.entries if isinstance(e, MessageEntry)]
    assert summary == [(e.role, e.message_id, e.text) for e in slow.entries]  # type: ignore[union-attr]
    assert summary == [
        ("thought", None, "think"),
        ("agent", "m1", "ab"),
        ("agent", "m2", "c"),
        ("user", None, "u"),
    ]
    assert [type(e) for e in fast_events] == [type(e) for e in slow_events]


def test_roles_and_other_entries_break_coalescing(thread: Thread) -> None:
    notify(thread, chunk("agent_thought_chunk", "hmm"))
    notify(thread, chunk("agent_message_chunk", "A"))
    notify(thread, {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read"})
    notify(thread, chunk("agent_message_chunk", "B"))
    kinds = [(type(e).__name__, getattr(e, "role", None)) for e in thread.entries]
    assert kinds == [
        ("MessageEntry", "thought"),
        ("MessageEntry", "agent"),
        ("ToolCallEntry", None),
        ("MessageEntry", "agent"),
    ]


def test_message_id_without_previous_id_is_adopted(thread: Thread) -> None:
    notify(thread, chunk("agent_message_chunk", "a"))
    notify(thread, chunk("agent_message_chunk", "b", messageId="m9"))
    notify(thread, chunk("agent_message_chunk", "c"))
    [entry] = thread.entries
    assert isinstance(entry, MessageEntry)
    assert (entry.message_id, entry.text) == ("m9", "abc")


def test_non_text_blocks_split_text_blocks(thread: Thread, events: list[ch.Change]) -> None:
    notify(thread, chunk("agent_message_chunk", "see "))
    image = {"type": "image", "data": "aGk=", "mimeType": "image/png"}
    notify(thread, {"sessionUpdate": "agent_message_chunk", "content": image})
    notify(thread, chunk("agent_message_chunk", "and "))
    notify(thread, chunk("agent_message_chunk", "more"))
    [entry] = thread.entries
    assert isinstance(entry, MessageEntry)
    assert [type(b).__name__ for b in entry.blocks] == [
        "TextContent",
        "ImageContent",
        "TextContent",
    ]
    assert entry.text == "see and more"
    assert events[1:] == [
        ch.EntryChanged(entry),
        ch.MessageChunkAppended(entry, 2, "and "),
        ch.MessageChunkAppended(entry, 2, "more"),
    ]


def test_annotated_text_keeps_its_annotations(thread: Thread) -> None:
    notify(
        thread,
        {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "x", "annotations": {"priority": 1.0}},
        },
    )
    notify(thread, chunk("agent_message_chunk", "y"))
    [entry] = thread.entries
    assert isinstance(entry, MessageEntry)
    [block] = entry.blocks
    assert isinstance(block, m.TextContent) and block.text == "xy"
    assert block.annotations is not None and block.annotations.priority == 1.0


def test_user_prompt_and_turns(thread: Thread, events: list[ch.Change]) -> None:
    prompt = thread.add_user_prompt([m.text_block("hi")])
    thread.begin_turn()
    notify(thread, chunk("agent_message_chunk", "one"))
    thread.end_turn("end_turn")
    thread.begin_turn()
    notify(thread, chunk("agent_message_chunk", "two"))
    thread.end_turn("cancelled")
    first, second = thread.entries[1], thread.entries[2]
    assert prompt.role == "user" and prompt.text == "hi"
    assert isinstance(first, MessageEntry) and isinstance(second, MessageEntry)
    assert (first.text, second.text) == ("one", "two")  # a new turn starts a new message
    assert events == [
        ch.EntryAdded(prompt),
        ch.TurnStateChanged(True, None),
        ch.EntryAdded(first),
        ch.TurnStateChanged(False, "end_turn"),
        ch.TurnStateChanged(True, None),
        ch.EntryAdded(second),
        ch.TurnStateChanged(False, "cancelled"),
    ]
    assert not thread.turn_running and thread.last_stop_reason == "cancelled"


def test_updates_outside_a_turn_apply_like_any_other(thread: Thread) -> None:
    assert not thread.turn_running
    notify(thread, chunk("user_message_chunk", "replayed question"))
    notify(thread, chunk("agent_message_chunk", "replayed answer"))
    notify(thread, {"sessionUpdate": "current_mode_update", "currentModeId": "code"})
    assert [e.text for e in thread.entries] == ["replayed question", "replayed answer"]  # type: ignore[union-attr]
    assert thread.current_mode_id == "code" and not thread.turn_running


def test_ids_are_stable_and_unique(thread: Thread) -> None:
    notify(thread, chunk("agent_message_chunk", "a"))
    notify(thread, {"sessionUpdate": "tool_call", "toolCallId": "t", "title": "x"})
    notify(thread, {"sessionUpdate": "plan", "entries": []})
    notify(thread, {"sessionUpdate": "mystery"})
    ids = [e.id for e in thread.entries]
    assert len(set(ids)) == 4 and ids == sorted(ids)
    notify(thread, {"sessionUpdate": "tool_call_update", "toolCallId": "t", "status": "failed"})
    assert [e.id for e in thread.entries] == ids


# ---- plans ------------------------------------------------------------------------------------


def plan_v1(*statuses: str) -> dict[str, Any]:
    entries = [
        {"content": f"step {i}", "priority": "medium", "status": s} for i, s in enumerate(statuses)
    ]
    return {"sessionUpdate": "plan", "entries": entries}


def test_v1_plan_replaced_whole_with_inline_snapshot(
    thread: Thread, events: list[ch.Change]
) -> None:
    notify(thread, plan_v1("pending", "pending"))
    notify(thread, plan_v1("completed", "in_progress"))
    assert thread.plan is not None
    assert [e.status for e in thread.plan] == ["completed", "in_progress"]
    [snapshot] = thread.entries
    assert isinstance(snapshot, PlanSnapshotEntry) and snapshot.plan_id is None
    assert snapshot.plan_entries is snapshot.plan.entries and snapshot.content is None
    assert [e.status for e in snapshot.plan.entries] == ["completed", "in_progress"]
    assert events == [
        ch.PlanChanged(None),
        ch.EntryAdded(snapshot),
        ch.PlanChanged(None),
        ch.EntryChanged(snapshot),
    ]
    notify(thread, chunk("agent_message_chunk", "working"))
    notify(thread, plan_v1("completed", "completed"))
    assert thread.entries[0] is snapshot and len(thread.entries) == 2, "one live plan a turn"
    assert [e.status for e in snapshot.plan.entries] == ["completed", "completed"]
    thread.add_user_prompt([m.TextContent(type="text", text="next")])
    notify(thread, plan_v1("in_progress", "completed"))
    later = thread.entries[-1]
    assert isinstance(later, PlanSnapshotEntry) and later is not snapshot, "a new turn's own"
    assert [e.status for e in snapshot.plan.entries] == ["completed", "completed"]  # history


def test_unstable_plans_by_id_kept_in_order_and_removed(
    thread: Thread, events: list[ch.Change]
) -> None:
    items = {"type": "items", "planId": "p1", "entries": [
        {"content": "a", "priority": "high", "status": "pending"}]}  # fmt: skip
    notify(thread, {"sessionUpdate": "plan_update", "plan": items})
    notify(
        thread,
        {
            "sessionUpdate": "plan_update",
            "plan": {"type": "markdown", "id": "p2", "content": "# B"},
        },
    )
    notify(
        thread,
        {
            "sessionUpdate": "plan_update",
            "plan": {"type": "file", "planId": "p1", "uri": "file:///p.md"},
        },
    )
    assert list(thread.plans) == ["p1", "p2"]
    assert (thread.plans["p1"].kind, thread.plans["p1"].uri) == ("file", "file:///p.md")
    assert (thread.plans["p2"].kind, thread.plans["p2"].markdown) == ("markdown", "# B")
    assert (thread.plans["p1"].content, thread.plans["p2"].content) == ("file:///p.md", "# B")
    assert thread.plan is None
    snapshots = [e for e in thread.entries if isinstance(e, PlanSnapshotEntry)]
    assert [s.plan_id for s in snapshots] == ["p1", "p2"], "p1's update changed its snapshot"
    assert snapshots[0].plan.kind == "file"
    events.clear()
    notify(thread, {"sessionUpdate": "plan_removed", "planId": "p1"})
    assert list(thread.plans) == ["p2"]
    assert [s.removed for s in snapshots] == [True, False]
    assert events == [ch.PlanRemoved("p1"), ch.EntryChanged(snapshots[0])]
    events.clear()
    notify(thread, {"sessionUpdate": "plan_removed", "id": "never-existed"})
    assert events == []


# ---- modes, commands, config, usage, info ------------------------------------------------------


def test_modes_from_session_response_and_updates(thread: Thread, events: list[ch.Change]) -> None:
    state = m.SessionModeState(
        current_mode_id="ask",
        available_modes=[
            m.SessionMode(id="ask", name="Ask"),
            m.SessionMode(id="code", name="Code"),
        ],
    )
    thread.set_modes(state)
    notify(thread, {"sessionUpdate": "current_mode_update", "currentModeId": "code"})
    thread.set_current_mode("code")  # unchanged: no event
    thread.set_current_mode("ask")
    assert [mode.id for mode in thread.modes] == ["ask", "code"]
    assert thread.current_mode_id == "ask"
    assert events == [
        ch.ModesChanged(),
        ch.CurrentModeChanged("ask"),
        ch.CurrentModeChanged("code"),
        ch.CurrentModeChanged("ask"),
    ]
    thread.set_modes(None)
    assert thread.modes == [] and thread.current_mode_id is None
    assert events[-2:] == [ch.ModesChanged(), ch.CurrentModeChanged(None)]


def test_the_modes_and_their_current_one_are_both_in_place_when_either_is_told(
    thread: Thread,
) -> None:
    """A session response's modes and current mode: whoever hears of the modes sees the current
    one too (the mode list is built once from both, not first without a current mode)."""
    seen: list[tuple[list[str], str | None]] = []
    thread.changed.subscribe(
        lambda change: (
            seen.append(([mode.id for mode in thread.modes], thread.current_mode_id))
            if isinstance(change, ch.ModesChanged | ch.CurrentModeChanged)
            else None
        )
    )
    state = m.SessionModeState(
        current_mode_id="ask", available_modes=[m.SessionMode(id="ask", name="Ask")]
    )
    thread.set_modes(state)
    assert seen == [(["ask"], "ask"), (["ask"], "ask")]


def test_modes_and_the_mode_option_follow_each_other(
    thread: Thread, events: list[ch.Change]
) -> None:
    """Vibe has both `modes` and a `mode` config option and tells only the one that was used:
    a set_config_option answer moves the modes, a set_mode (or current_mode_update) the option."""
    thread.set_modes(
        m.SessionModeState(
            current_mode_id="accept-edits",
            available_modes=[m.SessionMode(id=i, name=i) for i in ("ask", "accept-edits", "auto")],
        )
    )
    values = [{"value": v, "name": v} for v in ("ask", "accept-edits", "auto")]
    mode = {"type": "select", "id": "mode", "name": "Session Mode", "category": "mode"}
    model = {"type": "select", "id": "model", "name": "Model", "category": "model",
             "currentValue": "fake", "options": [{"value": "fake", "name": "fake"}]}  # fmt: skip
    thread.set_config_options([{**mode, "currentValue": "accept-edits", "options": values}, model])
    events.clear()
    thread.set_config_options([{**mode, "currentValue": "ask", "options": values}, model])
    assert thread.current_mode_id == "ask"
    assert events == [ch.ConfigOptionsChanged(), ch.CurrentModeChanged("ask")]
    events.clear()
    thread.set_current_mode("auto")
    assert [o.current_value for o in thread.config_options] == ["auto", "fake"]
    assert events == [ch.CurrentModeChanged("auto"), ch.ConfigOptionsChanged()]
    events.clear()
    thread.set_current_mode("elsewhere")  # no such value in the option: it stays
    thread.set_config_options([{**mode, "currentValue": "nomode", "options": [
        {"value": "nomode", "name": "?"}]}])  # fmt: skip
    assert thread.current_mode_id == "elsewhere"


def test_commands_and_config_options(thread: Thread, events: list[ch.Change]) -> None:
    notify(
        thread,
        {
            "sessionUpdate": "available_commands_update",
            "availableCommands": [{"name": "web", "description": "Search the web"}, {"bad": 1}],
        },
    )
    assert [c.name for c in thread.commands] == ["web"]
    option = {"type": "boolean", "id": "yolo", "name": "Yolo", "currentValue": True}
    notify(thread, {"sessionUpdate": "config_option_update", "configOptions": [option]})
    assert isinstance(thread.config_options[0], m.SessionConfigBoolean)
    thread.set_config_options([option, {"type": "select", "id": "broken"}])  # raw dicts too
    assert [o.id for o in thread.config_options] == ["yolo"]
    thread.set_config_options(None)
    assert thread.config_options == []
    assert events == [ch.CommandsChanged(), *[ch.ConfigOptionsChanged()] * 3]


def test_usage_and_info(thread: Thread, events: list[ch.Change]) -> None:
    notify(thread, {"sessionUpdate": "usage_update", "used": 10, "size": 100})
    assert thread.usage == UsageState(10, 100, None)
    notify(
        thread,
        {
            "sessionUpdate": "usage_update",
            "used": 20,
            "size": 100,
            "cost": {"amount": 1.5, "currency": "EUR"},
        },
    )
    assert thread.usage is not None and thread.usage.cost == m.Cost(amount=1.5, currency="EUR")
    notify(
        thread, {"sessionUpdate": "session_info_update", "title": "Fix the bug", "updatedAt": "t1"}
    )
    notify(thread, {"sessionUpdate": "session_info_update", "updatedAt": "t2"})  # title unchanged
    assert (thread.title, thread.updated_at) == ("Fix the bug", "t2")
    notify(thread, {"sessionUpdate": "session_info_update", "title": None})  # null clears
    assert (thread.title, thread.updated_at) == (None, "t2")
    assert events == [ch.UsageChanged(), ch.UsageChanged(), *[ch.InfoChanged()] * 3]


# ---- unknown updates, listeners ---------------------------------------------------------------


def test_unknown_and_invalid_updates_become_entries(
    thread: Thread, events: list[ch.Change]
) -> None:
    notify(thread, {"sessionUpdate": "future_update", "phase": "start"})
    notify(thread, {"sessionUpdate": "usage_update", "used": "lots"})
    thread.apply_notification({"sessionId": "s1"})
    thread.apply_notification("garbage")
    unknown = thread.entries
    assert all(isinstance(e, UnknownEntry) for e in unknown)
    assert unknown[0].raw == {"sessionUpdate": "future_update", "phase": "start"}  # type: ignore[union-attr]
    assert unknown[0].error is None  # type: ignore[union-attr]
    assert unknown[1].error is not None  # type: ignore[union-attr]
    assert unknown[3].raw == "garbage"  # type: ignore[union-attr]
    assert events == [ch.EntryAdded(e) for e in unknown]


def test_unsubscribe_and_failing_listener(thread: Thread) -> None:
    seen: list[ch.Change] = []

    def broken(change: ch.Change) -> None:
        raise RuntimeError("widget bug")

    thread.subscribe(broken)
    unsubscribe = thread.subscribe(seen.append)
    notify(thread, chunk("agent_message_chunk", "a"))  # the broken listener does not stop others
    unsubscribe()
    notify(thread, chunk("agent_message_chunk", "b"))
    assert len(seen) == 1
    assert thread.entries[0].text == "ab"  # type: ignore[union-attr]


def test_apply_accepts_parsed_models(thread: Thread) -> None:
    thread.apply(m.AgentMessageChunk(content=m.TextContent(text="typed")))
    thread.apply(m.ToolCall(tool_call_id="t", title="Typed call"))
    assert isinstance(thread.entries[0], MessageEntry) and thread.entries[0].text == "typed"
    assert thread.tool_calls["t"].title == "Typed call"


def test_a_replay_into_a_thread_that_shows_it_is_dropped_but_not_the_rest() -> None:
    """After a restart, `session/load` replays the conversation the thread already shows: the
    replayed messages, tool calls and plans are dropped there, commands and modes are not."""
    thread = Thread()
    notify(thread, chunk("agent_message_chunk", "hello"))
    thread.skip_replayed = True
    notify(thread, chunk("user_message_chunk", "hi"))
    notify(thread, chunk("agent_message_chunk", "hello"))
    notify(thread, {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read"})
    notify(thread, {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "failed"})
    notify(thread, {"sessionUpdate": "plan", "entries": []})
    notify(thread, {"sessionUpdate": "current_mode_update", "currentModeId": "ask"})
    assert [e.text for e in thread.entries if isinstance(e, MessageEntry)] == ["hello"]
    assert len(thread.entries) == 1 and not thread.tool_calls and thread.plan is None
    assert thread.current_mode_id == "ask"
    thread.skip_replayed = False
    notify(thread, chunk("agent_message_chunk", " again"))
    assert [e.text for e in thread.entries if isinstance(e, MessageEntry)] == ["hello again"]

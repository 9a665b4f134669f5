"""An open subagent lane stays bounded: its entries are drawn from the last one back until the
lane holds `MAX_LINES` lines, however many the child has or however deep children nest."""

from __future__ import annotations

from typing import Any

import pytest
from rich.console import Console
from rich.style import Style

from acp_tui.protocol.models import MAX_DEPTH
from acp_tui.thread.thread import Thread
from acp_tui.ui.markdown.render import RenderContext
from acp_tui.ui.widgets import subagent_lane
from acp_tui.ui.widgets.entry_renderables import Look
from acp_tui.ui.widgets.entry_state import EntryViewState
from acp_tui.ui.widgets.subagent_lane import LANE, MAX_LINES, LaneContext, lane_lines

ROOT = "root-1"


def send(thread: Thread, session_id: str, update: dict[str, Any]) -> None:
    thread.apply_notification({"sessionId": session_id, "update": update})


def announce(thread: Thread, on: str, child: str) -> None:
    send(thread, on, {"sessionUpdate": "subagent_update", "sessionId": child, "title": child})


def plain_look() -> Look:
    console = Console(width=100, color_system=None)
    return Look(console, console.options, RenderContext(console), lambda _name: Style())


def test_ten_thousand_entries_of_a_child_draw_what_the_lane_shows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    thread = Thread()
    thread.sessions.root_id = ROOT
    announce(thread, ROOT, "c1")
    for n in range(10_000):
        send(thread, "c1", {"sessionUpdate": "tool_call", "toolCallId": f"t{n}",
                            "title": f"call {n}", "status": "completed"})  # fmt: skip
    drawn: list[object] = []
    draw = subagent_lane.entry_lines

    def counting(entry: Any, *args: Any) -> Any:
        drawn.append(entry)
        return draw(entry, *args)

    monkeypatch.setattr(subagent_lane, "entry_lines", counting)
    child = thread.sessions.children["c1"]
    state = EntryViewState(sections={LANE: True})
    lines = lane_lines(child, plain_look(), 100, LaneContext(state))
    texts = [line.text for line in lines]
    assert len(lines) <= MAX_LINES + 2  # the title, the note, the last lines
    assert len(drawn) <= MAX_LINES  # not ten thousand cards to show the last ones
    assert "call 9999" in texts[-3]
    assert "earlier entries not shown here" in texts[1]


def test_open_lanes_nested_as_deep_as_allowed_stay_bounded() -> None:
    thread = Thread()
    thread.sessions.root_id = ROOT
    parent = ROOT
    for depth in range(MAX_DEPTH + 5):  # past the limit: refused, not drawn
        announce(thread, parent, f"c{depth}")
        for n in range(500):
            text = {"type": "text", "text": f"line {n} of c{depth}"}
            chunk = {"sessionUpdate": "agent_message_chunk", "content": text}
            send(thread, f"c{depth}", chunk)
            send(thread, f"c{depth}", {"sessionUpdate": "tool_call", "toolCallId": f"t{n}",
                                       "title": f"call {n}"})  # fmt: skip
        parent = f"c{depth}"
    sessions = thread.sessions
    assert len(sessions.children) == MAX_DEPTH
    state = EntryViewState(sections={LANE: True})
    state.sections.update({f"lane:{sid}": True for sid in sessions.children})
    lines = lane_lines(sessions.children["c0"], plain_look(), 100, LaneContext(state))
    assert len(lines) <= MAX_LINES + 2


def test_an_open_lane_draws_again_only_the_entries_that_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A child streaming into an open lane: each draw draws its last message again, not every
    card above it (they are kept from the draw before); a card the user folds is drawn again."""
    thread = Thread()
    thread.sessions.root_id = ROOT
    announce(thread, ROOT, "c1")
    for n in range(30):
        send(thread, "c1", {"sessionUpdate": "tool_call", "toolCallId": f"t{n}",
                            "title": f"call {n}", "status": "completed"})  # fmt: skip
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "a"}}
    send(thread, "c1", chunk)
    drawn: list[Any] = []
    draw = subagent_lane.drawn_entry

    def counting(entry: Any, *args: Any) -> Any:
        drawn.append(entry)
        return draw(entry, *args)

    monkeypatch.setattr(subagent_lane, "drawn_entry", counting)
    child = thread.sessions.children["c1"]
    state = EntryViewState(sections={LANE: True})
    context = LaneContext(state)
    look = plain_look()
    first = context.draw(child, look, 100)
    assert len(drawn) == 31
    drawn.clear()
    send(thread, "c1", chunk)  # the message grows
    again = context.draw(child, look, 100)
    assert drawn == [child.thread.entries[-1]]
    assert any("aa" in line.text for line in again)
    assert [line.text for line in again[:-3]] == [line.text for line in first[:-3]]
    drawn.clear()
    card = child.thread.entries[3]
    state.nested[("c1", card.id)] = EntryViewState(folded=False)  # unfolded by hand
    context.draw(child, look, 100)
    assert drawn == [card]


def test_a_click_inside_a_lane_acts_on_that_entrys_own_state() -> None:
    """The click actions of the parent's renderers (`toggle_section(name)`,
    `show_more_text(n)`), run in a lane on the entry's own view state; anything else is
    ignored."""
    from acp_tui.ui.widgets.subagent_lane import entry_action
    from acp_tui.ui.widgets.subagent_lane_cards import lane_action

    state = EntryViewState()
    entry_action(state, "toggle_section('thought')")
    assert state.sections == {"thought": True}
    entry_action(state, "toggle_section('thought')")
    assert state.sections == {}
    entry_action(state, "show_more_text(2)")
    entry_action(state, "show_more_text(2)")
    assert state.text_pages == {2: 3}
    for odd in ("quit()", "toggle_section(3)", "show_more_text('x')", "toggle_section(", ""):
        entry_action(state, odd)
    assert state == EntryViewState(text_pages={2: 3})
    # the lane's own action names the entry by its session (made inert by repr) and id
    action = lane_action(("c'1)", 4), "toggle_section('thought')")
    from textual.actions import parse

    assert parse(action) == ("", "lane_click", ("c'1)", 4, "toggle_section('thought')"))

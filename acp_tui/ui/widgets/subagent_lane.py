"""A subagent session drawn in its parent's conversation: a folded lane (one module, as the
thread's `subagent_sessions.py`).

Folded: "▶ ⧉ Explore — reads the code  ◐ running · 2 messages, 1 tool call". Open (a click on the
title, or Enter on the focused lane): the child's own conversation under it, indented: its
messages, thoughts, tool calls (their headers, a permission question waiting said so; the
question itself is asked in the parent's tab, see `AgentSession.request_permission`), the
messages the sessions sent each other, and its own children as lanes of their own (each opens
alone). At most `MAX_LINES` lines of a lane are drawn (the last ones), so a flood stays bounded.
`c` on the focused lane cancels the child's work when it offers `cancel`.
"""

from __future__ import annotations

import time

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.strip import Strip

from acp_tui.thread.entries import Entry, MessageEntry, ToolCallEntry
from acp_tui.thread.subagent_sessions import (
    ChildSession,
    SessionMessageEntry,
    SubagentLaneEntry,
    SubagentSessions,
)
from acp_tui.ui.widgets.entry_lines import Render
from acp_tui.ui.widgets.entry_renderables import (
    Look,
    cells,
    collapsible_title,
    fill,
    padded,
    section_action,
    with_margin,
    wrap_text,
)
from acp_tui.ui.widgets.entry_state import EntryViewState
from acp_tui.ui.widgets.live_entry import LiveEntry
from acp_tui.ui.widgets.tool_call_facts import header_text

MAX_LINES = 400
"""Lines drawn of an open lane's body (its last ones)."""
INDENT = 2
LANE = "subagent-lane"
"""The section name of a lane's body (`lane:<session id>` for the lanes inside it)."""

STATE_LOOK = {
    "running": ("◐ running", "card-border-running"),
    "requires_action": ("⚠ needs you", "card-border-running"),
    "unknown": ("? state unknown", "notice"),
}


def lane_section(child: ChildSession, nested: bool) -> str:
    """The view-state section that holds whether this lane is open."""
    return f"lane:{child.session_id}" if nested else LANE


def state_text(child: ChildSession) -> tuple[str, str]:
    """The child's state in words, and the style to draw it with."""
    state = child.state
    if state is None:
        return ("", "notice")
    if state.state == "idle":
        error = state.error_text
        if error is not None:
            return (f"✗ failed: {error}", "card-border-failed")
        reason = state.stop_reason
        if reason in (None, "end_turn"):
            return ("✓ finished", "notice")
        return (f"■ stopped: {reason}", "card-border-cancelled")
    return STATE_LOOK.get(state.state, (f"? {state.state}", "notice"))


def contents_text(child: ChildSession) -> str:
    """What the child's conversation holds, counted."""
    entries = child.thread.entries
    counts = {
        "message": sum(1 for e in entries if type(e) is MessageEntry and e.role != "thought"),
        "tool call": sum(1 for e in entries if type(e) is ToolCallEntry),
        "subagent": sum(1 for e in entries if type(e) is SubagentLaneEntry),
    }
    told = [f"{n} {name}{'s' if n != 1 else ''}" for name, n in counts.items() if n]
    waiting = child.thread.waiting_permission()
    return ", ".join(told + (["a question for you"] if waiting else [])) or "nothing yet"


def lane_title(child: ChildSession) -> str:
    """The lane's folded line: title, state, what it holds, then the description (cut first
    on a narrow screen)."""
    state, _ = state_text(child)
    title = f"⧉ {child.label}  {state + ' · ' if state else ''}{contents_text(child)}"
    return f"{title} — {child.description}" if child.description else title


def lane_render(entry: SubagentLaneEntry, state: EntryViewState) -> Render:
    """The renderer of a lane, reading its view state when drawn."""
    return lambda look, width: with_margin(lane_lines(entry.child, look, width, state), width, look)


def lane_lines(
    child: ChildSession, look: Look, width: int, state: EntryViewState, nested: bool = False
) -> list[Strip]:
    """A lane's title row and, open, the child's conversation under it (bounded)."""
    section = lane_section(child, nested)
    shown = state.sections.get(section, False)
    _, style_name = state_text(child)
    head = collapsible_title(
        lane_title(child), width, look.style("title"), expanded=shown,
        action=section_action(section),
    )  # fmt: skip
    if child.running or (child.state is not None and child.state.error_text):
        head = head.apply_style(look.style(style_name))
    if not shown:
        return [head]
    body: list[Strip] = []
    inner = max(1, width - INDENT)
    if child.task is not None:  # the message that started it
        body += message_lines(child.task, child.thread.sessions, look, inner)
    for entry in child.thread.entries:
        body += entry_lines(entry, child.thread.sessions, look, inner, state)
        if len(body) > 2 * MAX_LINES:
            body = body[-MAX_LINES:]
    if len(body) > MAX_LINES:
        skipped = len(body) - MAX_LINES
        note = fill(
            cells(f"… {skipped} earlier lines", look.style("notice")), inner, look.style("notice")
        )
        body = [note, *body[-MAX_LINES:]]
    if not body:
        body = [fill(cells("nothing yet", look.style("notice")), inner, look.style("notice"))]
    return [head, *padded(body, width, look.style("base"), INDENT, 0)]


def entry_lines(
    entry: Entry, sessions: SubagentSessions, look: Look, width: int, state: EntryViewState
) -> list[Strip]:
    """One entry of a child's conversation, as lines of its lane."""
    if isinstance(entry, MessageEntry):
        style = look.style("thought" if entry.role == "thought" else "base")
        prefix = {"user": "(to it) ", "thought": "(thinking) "}.get(entry.role, "")
        lines = wrap_text(Text(prefix + entry.text), look, width)
        return [fill(line, width, style) for line in lines]
    if isinstance(entry, ToolCallEntry):
        text = header_text(entry, time.monotonic())
        if entry.open_permission is not None:
            text.append("  ⚠ asks you (above, in this tab)", "bold")
        return wrap_text(text, look, width)
    if isinstance(entry, SubagentLaneEntry):
        return lane_lines(entry.child, look, width, state, nested=True)
    if isinstance(entry, SessionMessageEntry):
        return message_lines(entry, sessions, look, width)
    style = look.style("notice")
    return [fill(cells(f"({type(entry).__name__})", style), width, style)]


def message_lines(
    entry: SessionMessageEntry, sessions: SubagentSessions, look: Look, width: int
) -> list[Strip]:
    """A message between sessions: who to whom, and its text."""
    if entry.outgoing:
        who = f"→ to {sessions.title_of(entry.recipient)}: "
    else:
        who = f"← from {sessions.title_of(entry.sender)}: "
    text = Text(who, style="bold")
    text.append(entry.text)
    style = look.style("notice")
    return [fill(line, width, style) for line in wrap_text(text, look, width)]


def session_message_render(entry: SessionMessageEntry, sessions: SubagentSessions) -> Render:
    """The renderer of a session message in a conversation."""
    return lambda look, width: with_margin(message_lines(entry, sessions, look, width), width, look)


class SubagentLaneView(LiveEntry):
    """A lane, live: Enter opens or closes it, `c` cancels the child's work (when offered)."""

    BINDINGS = [
        Binding("enter", "toggle_lane", "Open/close", show=False),
        Binding("c", "cancel_child", "Cancel subagent", show=False),
    ]

    class CancelRequested(Message):
        """The user asked to cancel a child session's work."""

        def __init__(self, session_id: str) -> None:
            super().__init__()
            self.session_id = session_id

    @property
    def lane(self) -> SubagentLaneEntry | None:
        """The lane this view draws."""
        entry = self.entry
        return entry if isinstance(entry, SubagentLaneEntry) else None

    def action_toggle_lane(self) -> None:
        """Open or close the lane (as a click on its title does)."""
        self.action_toggle_section(LANE)

    def action_cancel_child(self) -> None:
        """Ask to cancel the child's work, if it offers that."""
        lane = self.lane
        if lane is not None and lane.child.can_cancel and lane.child.running:
            self.post_message(self.CancelRequested(lane.child.session_id))

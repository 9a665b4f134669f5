"""A subagent session drawn in its parent's conversation: a folded lane (its tool call cards and
session messages are drawn by `subagent_lane_cards.py`).

Folded: "▶ ⧉ Explore — reads the code  ◐ running · 2 messages, 1 tool call". Open (a click on the
title, or Enter on the focused lane): the child's own conversation under it, indented, each
entry drawn by the renderer that draws it in the parent (`message_lines`, `card_lines`,
`compaction_lines`, `entry_renderables`): its messages, thoughts, tool call cards (a live
terminal's last lines inside; a permission question said so, and its answer: the question
itself is asked in the parent's tab, see `client/session/permission_route.py`), plans, the
messages the sessions sent each other, and its own children as lanes of their own (each opens
alone). A click inside an entry (fold a card, open a section, show more text) is routed to that
entry's own view state (`EntryViewState.nested`), not the lane's. Bounded: the entries are drawn
from the last one back until `MAX_LINES` lines are drawn (at most that many shown), so a flood
of entries costs what the screen shows; and what a draw drew is kept (`LaneContext`): a child
streaming into an open lane draws again the entry that changed, not the cards above it. `c` on
the focused lane cancels the child's work when it offers `cancel`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.strip import Strip

from acp_tui.protocol import models as m
from acp_tui.thread.entries import (
    CompactionEntry,
    Entry,
    MessageEntry,
    PlanSnapshotEntry,
    ToolCallEntry,
    UnknownEntry,
)
from acp_tui.thread.subagent_sessions import (
    ChildSession,
    SessionMessageEntry,
    SubagentLaneEntry,
)
from acp_tui.ui.widgets import card_lines as cl
from acp_tui.ui.widgets.compaction_lines import compaction_lines
from acp_tui.ui.widgets.entry_lines import Render
from acp_tui.ui.widgets.entry_renderables import (
    Look,
    cells,
    collapsible_title,
    fill,
    padded,
    plan_lines,
    section_action,
    unknown_lines,
    with_margin,
    wrap_text,
)
from acp_tui.ui.widgets.entry_state import EntryViewState
from acp_tui.ui.widgets.live_entry import LiveEntry
from acp_tui.ui.widgets.message_lines import message_render
from acp_tui.ui.widgets.subagent_lane_cards import (
    asked_line,
    card_lines,
    live_terminals,
    message_lines,
    routed,
)
from acp_tui.ui.widgets.tool_call_facts import TerminalLookup

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


def contents_text(child: ChildSession, context: LaneContext | None = None) -> str:
    """What the child's conversation holds, counted (with `context`, only the entries added
    since it last counted)."""
    counts = count_entries(child, context)
    told = [f"{n} {name}{'s' if n != 1 else ''}" for name, n in counts.items() if n]
    waiting = child.thread.waiting_permission()
    if child.malformed:  # (the inspector marks each; the error shows in the open lane)
        n = child.malformed
        told.append(f"⚠ {n} malformed update{'s' if n != 1 else ''} ignored")
    return ", ".join(told + (["a question for you"] if waiting else [])) or "nothing yet"


def count_entries(child: ChildSession, context: LaneContext | None) -> dict[str, int]:
    """The child's messages, tool calls and subagents, counted (entries are only appended: a
    context counts those past the ones it counted before)."""
    entries = child.thread.entries
    done, counts = (0, {"message": 0, "tool call": 0, "subagent": 0})
    if context is not None:
        done, counts = context.counts.get(child.session_id, (0, counts))
        if done > len(entries):
            done, counts = 0, {"message": 0, "tool call": 0, "subagent": 0}
    counts = dict(counts)
    for index in range(done, len(entries)):
        entry = entries[index]
        if type(entry) is MessageEntry and entry.role != "thought":
            counts["message"] += 1
        elif type(entry) is ToolCallEntry:
            counts["tool call"] += 1
        elif type(entry) is SubagentLaneEntry:
            counts["subagent"] += 1
    if context is not None:
        context.counts[child.session_id] = (len(entries), counts)
    return counts


def lane_title(child: ChildSession, context: LaneContext | None = None) -> str:
    """The lane's folded line: title, state, what it holds, then the description (cut first
    on a narrow screen)."""
    state, _ = state_text(child)
    title = f"⧉ {child.label}  {state + ' · ' if state else ''}{contents_text(child, context)}"
    return f"{title} — {child.description}" if child.description else title


class LaneContext:
    """What drawing a lane reads besides the child: the lane's view state (which lanes are
    open, the nested entries' own states), the session's live terminals, and what the last
    draw made: each entry's lines with what they were drawn from (drawn again only when the
    entry, its view state, its question or the styles changed; only the last draw's entries
    are kept), the counts of the title."""

    def __init__(self, state: EntryViewState, terminals: TerminalLookup | None = None) -> None:
        self.state = state
        self.terminals = terminals
        self.counts: dict[str, tuple[int, dict[str, int]]] = {}
        self._kept: dict[tuple[str, int], tuple[object, list[Strip]]] = {}
        self._drawn: dict[tuple[str, int], tuple[object, list[Strip]]] = {}

    def draw(self, child: ChildSession, look: Look, width: int) -> list[Strip]:
        """The lane's lines (a draw: what it did not draw again is forgotten after it)."""
        self._drawn = {}
        try:
            return lane_lines(child, look, width, self)
        finally:
            self._kept, self._drawn = self._drawn, {}

    def lines(
        self, key: tuple[str, int], made_of: object, draw: Callable[[], list[Strip]]
    ) -> list[Strip]:
        """The lines of the entry `key`: those of the last draw if made of the same, else
        drawn."""
        kept = self._kept.get(key)
        lines = kept[1] if kept is not None and kept[0] == made_of else draw()
        self._drawn[key] = (made_of, lines)
        return lines


def lane_render(
    entry: SubagentLaneEntry, state: EntryViewState, terminals: TerminalLookup | None = None
) -> Render:
    """The renderer of a lane, reading its view state when drawn."""
    context = LaneContext(state, terminals)
    return lambda look, width: with_margin(context.draw(entry.child, look, width), width, look)


def lane_lines(
    child: ChildSession,
    look: Look,
    width: int,
    context: LaneContext | EntryViewState,
    nested: bool = False,
) -> list[Strip]:
    """A lane's title row and, open, the child's conversation under it (bounded)."""
    if isinstance(context, EntryViewState):
        context = LaneContext(context)
    section = lane_section(child, nested)
    shown = context.state.sections.get(section, False)
    _, style_name = state_text(child)
    head = collapsible_title(
        lane_title(child, context), width, look.style("title"), expanded=shown,
        action=section_action(section),
    )  # fmt: skip
    if child.running or (child.state is not None and child.state.error_text):
        head = head.apply_style(look.style(style_name))
    if not shown:
        return [head]
    inner = max(1, width - INDENT)
    body, skipped = bounded_body(child, look, inner, context)
    if child.malformed_error is not None:
        note = Text(f"⚠ the last malformed update: {child.malformed_error}")
        style = look.style("disk-note")
        body += [fill(line, inner, style) for line in wrap_text(note, look, inner)[:4]]
    if skipped:
        noun = "entry" if skipped == 1 else "entries"
        text = f"… {skipped} earlier {noun} not shown here (the export has them)"
        body = [fill(cells(text, look.style("notice")), inner, look.style("notice")), *body]
    if not body:
        body = [fill(cells("nothing yet", look.style("notice")), inner, look.style("notice"))]
    return [head, *padded(body, width, look.style("base"), INDENT, 0)]


def bounded_body(
    child: ChildSession, look: Look, width: int, context: LaneContext
) -> tuple[list[Strip], int]:
    """The child's entries drawn from the last one back until `MAX_LINES` lines are drawn (its
    task, the message that started it, first when every entry is drawn), at most `MAX_LINES`
    lines; and how many entries were not drawn."""
    entries = child.thread.entries
    drawn: list[list[Strip]] = []
    total = 0
    for entry in reversed(entries):
        if total >= MAX_LINES:
            break
        lines = entry_lines(entry, child, look, width, context)
        drawn.append(lines)
        total += len(lines)
    skipped = len(entries) - len(drawn)
    task = child.task
    if not skipped and task is not None and total < MAX_LINES and not received(child, task):
        drawn.append(message_lines(task, child.thread.sessions, look, width))
    body = [line for lines in reversed(drawn) for line in lines]
    return (body[-MAX_LINES:] if len(body) > MAX_LINES else body), skipped


def received(child: ChildSession, task: SessionMessageEntry) -> bool:
    """Whether the child's own transcript holds the task it was sent (then drawn there, once)."""
    return any(
        isinstance(entry, SessionMessageEntry) and entry.message_id == task.message_id
        for entry in child.thread.entries
    )


def entry_lines(
    entry: Entry, child: ChildSession, look: Look, width: int, context: LaneContext
) -> list[Strip]:
    """One entry of a child's conversation, drawn as the parent draws that kind, its clicks
    routed to the entry's own view state in the lane (see `SubagentLaneView.action_lane_click`)."""
    key = (child.session_id, entry.id)
    state = context.state.nested.get(key) or EntryViewState()
    if isinstance(entry, SubagentLaneEntry):
        return lane_lines(entry.child, look, width, context, nested=True)
    if isinstance(entry, ToolCallEntry) and live_terminals(entry, context.terminals):
        return card_lines(entry, child, look, width, state, context.terminals)  # (output moves)
    made_of = (
        width,
        look.style("base"),
        look.style("title"),
        child.general_revision,
        child.entry_revisions.get(entry.id, 0),
        repr(state),
        asked_line(entry, child) if isinstance(entry, ToolCallEntry) else None,
    )
    return context.lines(
        key, made_of, lambda: drawn_entry(entry, child, look, width, state, context)
    )


def drawn_entry(
    entry: Entry,
    child: ChildSession,
    look: Look,
    width: int,
    state: EntryViewState,
    context: LaneContext,
) -> list[Strip]:
    """One entry of a child's conversation drawn by its kind's renderer (not a lane)."""
    key = (child.session_id, entry.id)
    if isinstance(entry, ToolCallEntry):
        return card_lines(entry, child, look, width, state, context.terminals)
    if isinstance(entry, SessionMessageEntry):
        return message_lines(entry, child.thread.sessions, look, width)
    lines: list[Strip]
    if isinstance(entry, MessageEntry):
        lines = message_render(entry, state)(look, width)
    elif isinstance(entry, CompactionEntry):
        lines = compaction_lines(entry, look, width, state)
    elif isinstance(entry, PlanSnapshotEntry):
        lines = plan_lines(entry, look, width)
    elif isinstance(entry, UnknownEntry):  # an update kind acp-tui does not know, as anywhere
        lines = unknown_lines(entry, look, width)
    else:  # pragma: no cover - every kind of `Entry` is drawn above
        lines = []
    return routed(lines, key)


class SubagentLaneView(LiveEntry):
    """A lane, live: Enter opens or closes it, `c` cancels the child's work (when offered)."""

    BINDINGS = [
        Binding("enter", "toggle_lane", "open/close a subagent's lane", show=False, id="lane.open"),
        Binding(
            "c",
            "cancel_child",
            "cancel a subagent (if it offers that)",
            show=False,
            id="lane.cancel",
        ),
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

    def action_lane_click(self, session_id: str, entry_id: int, action: str) -> None:
        """A click on an entry drawn in the lane: `action` (what the entry's own widget does
        with that click) applied to the entry's own view state, then the lane redrawn."""
        lane = self.lane
        child = lane.child.thread.sessions.children.get(session_id) if lane else None
        found = [e for e in child.thread.entries if e.id == entry_id] if child else []
        if not found:
            return
        entry = found[0]
        state = self.state.nested.setdefault((session_id, entry_id), EntryViewState())
        if isinstance(entry, ToolCallEntry):
            self._card_action(entry, state, action)
        else:
            entry_action(state, action)
        self.redraw()

    def _card_action(self, entry: ToolCallEntry, state: EntryViewState, action: str) -> None:
        """A card's line action (`card_lines`), as `ToolCallCard.line_action` does it."""
        if action == cl.FOLD:
            state.folded = not cl.is_folded(entry, state)
        elif action == cl.EXPAND_OUTPUT:
            state.output_expanded = True
        elif action.startswith(cl.SECTION):
            cl.toggle_section(entry, state, action.removeprefix(cl.SECTION))
        elif action.startswith(cl.MEDIA):
            index = int(action.removeprefix(cl.MEDIA))
            item = entry.content[index] if index < len(entry.content) else None
            if isinstance(item, m.Content) and isinstance(
                item.content, m.ImageContent | m.AudioContent
            ):
                from acp_tui.ui.widgets.media_block_view import open_media

                open_media(self, item.content)

    def action_cancel_child(self) -> None:
        """Ask to cancel the child's work, if it offers that."""
        lane = self.lane
        if lane is not None and lane.child.can_cancel and lane.child.running:
            self.post_message(self.CancelRequested(lane.child.session_id))


def entry_action(state: EntryViewState, action: str) -> None:
    """A click action of a message or compaction (`toggle_section(name)`, `show_more_text(n)`:
    what `LiveEntry` and `MessageLines` do with them) applied to the entry's view state."""
    name, _, args = action.partition("(")
    try:
        (value,) = ast.literal_eval(f"({args.removesuffix(')')},)")
    except (ValueError, SyntaxError, TypeError):
        return
    if name == "toggle_section" and isinstance(value, str):
        if state.sections.pop(value, False) is False:
            state.sections[value] = True
    elif name == "show_more_text" and type(value) is int:
        state.text_pages[value] = state.text_pages.get(value, 1) + 1

"""A child session's tool calls and session messages drawn in its lane, and the clicks of what a
lane draws routed to the entry's own view state.

A tool call is drawn as the parent's card draws it (`card_lines.tool_call_parts`), a live
terminal's last lines inside and what became of its permission question (asked in the parent's
tab) under it; a message between sessions as who to whom and its text. Plain functions of
`subagent_lane.py`'s drawing (which draws the lane and each entry by its kind).
"""

from __future__ import annotations

from rich.segment import Segment
from rich.text import Text
from textual.strip import Strip

from acp_tui.protocol import models as m
from acp_tui.safe_text import safe_text
from acp_tui.thread.entries import ToolCallEntry
from acp_tui.thread.subagent_sessions import ChildSession, SessionMessageEntry, SubagentSessions
from acp_tui.ui.widgets import card_lines as cl
from acp_tui.ui.widgets.entry_lines import Render
from acp_tui.ui.widgets.entry_renderables import (
    Look,
    cells,
    click_style,
    fill,
    padded,
    with_margin,
    wrap_text,
)
from acp_tui.ui.widgets.entry_state import EntryViewState
from acp_tui.ui.widgets.tool_call_facts import TerminalLookup
from acp_tui.ui.widgets.tool_output import OUTPUT_TAIL_LINES, tool_text_lines


def routed(lines: list[Strip], key: tuple[str, int]) -> list[Strip]:
    """`lines` whose clicks (`@click` actions of the renderer, meant for the entry's own
    widget) run `lane_click` on the lane with the entry's key and that action."""
    out: list[Strip] = []
    for strip in lines:
        segments = list(strip)
        if not any(seg.style is not None and "@click" in seg.style.meta for seg in segments):
            out.append(strip)
            continue
        changed = [
            Segment(seg.text, seg.style + click_style(lane_action(key, seg.style.meta["@click"])))
            if seg.style is not None and "@click" in seg.style.meta
            else seg
            for seg in segments
        ]
        out.append(Strip(changed, strip.cell_length))
    return out


def lane_action(key: tuple[str, int], action: str) -> str:
    """The click action that runs `action` for the entry `key` drawn in a lane."""
    return f"lane_click({key[0]!r}, {key[1]!r}, {action!r})"


def card_lines(
    entry: ToolCallEntry,
    child: ChildSession,
    look: Look,
    width: int,
    state: EntryViewState,
    terminals: TerminalLookup | None,
) -> list[Strip]:
    """A child's tool call as the parent's card draws it (`card_lines.tool_call_parts`), with
    a live terminal's last lines where the live card shows its terminal, and what became of
    its permission request (asked in the parent's tab)."""
    live = live_terminals(entry, terminals)
    parts = cl.tool_call_parts(entry, look, width, state, terminals=live)
    key = (child.session_id, entry.id)
    lines: list[Strip] = []
    for part in parts:
        if isinstance(part, cl.Slot):
            if part.kind == "terminal" and not part.hidden and terminals is not None:
                lines += terminal_lines(part.key, terminals, entry, look, width)
            continue
        for y, strip in enumerate(part.strips):
            action = part.actions.get(y)
            if action is not None:
                strip = strip.apply_style(click_style(lane_action(key, action)))
            lines.append(strip)
    asked = asked_line(entry, child)
    if asked is not None:  # under the card, before its bottom margin
        style = look.style("permission-answer")
        shown = [fill(line, width, style) for line in wrap_text(asked, look, width)]
        lines[-1:-1] = shown
    return lines


def live_terminals(entry: ToolCallEntry, terminals: TerminalLookup | None) -> frozenset[str]:
    """The terminals of the call's content that the session has (their output is drawn)."""
    if terminals is None:
        return frozenset()
    ids = (item.terminal_id for item in entry.content if isinstance(item, m.Terminal))
    return frozenset(t for t in ids if terminals(t) is not None)


def terminal_lines(
    terminal_id: str, terminals: TerminalLookup, entry: ToolCallEntry, look: Look, width: int
) -> list[Strip]:
    """A terminal inside a child's card: its last lines of output, framed as the card's body
    (as of the lane's last redraw: a lane is not a live terminal view)."""
    terminal = terminals(terminal_id)
    if terminal is None:
        return []
    text, _ = terminal.output_text()
    inner = width - 4
    shown = tool_text_lines(look.markdown, safe_text(text), inner, OUTPUT_TAIL_LINES)
    border = look.style(cl.card_border_style(str(entry.status)))
    base = look.style("base")
    edge = cells("│", border)
    return [
        fill(Strip.join([edge, inside, edge]), width, base)
        for inside in padded(shown or [Strip([])], width - 2, base)
    ]


def asked_line(entry: ToolCallEntry, child: ChildSession) -> Text | None:
    """What became of the call's permission request, asked in the parent's tab (None: it
    asked nothing)."""
    sessions = child.thread.sessions
    shown_id = sessions.asked_calls.get((child.session_id, entry.tool_call_id))
    asked = sessions.root.tool_calls.get(shown_id) if shown_id is not None else None
    if asked is None or not asked.permissions:
        return None
    if asked.open_permission is not None:
        return Text("⚠ asks you: answer it above, in this tab", style="bold")
    answers = [ask.answer for ask in asked.permissions if ask.answer]
    return Text(answers[-1] if answers else "asked you (answered)")


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

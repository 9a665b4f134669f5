"""A tool call's card drawn from its entry and view state: the one drawing, live and frozen.

`tool_call_parts` draws the card (a round border in its status colour around the header, the
body unless folded, and the extras: answered permission requests, the change monitor's notes)
as runs of lines split at *slots*, the places where a live card shows a widget (an open
permission prompt, a live terminal). `tool_call_lines` is the same drawing with no slots (what
the frozen history shows). The live `ToolCallCard` shows the runs of lines in `EntryLines`
widgets and the slots' widgets between them, framed by the same border.

Each run of lines says which of its lines do something when clicked (`LinePart.actions`): the
header folds the card, a section's title opens or closes it, the "earlier lines" note shows a
command's whole output.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal

from rich.console import RenderableType
from rich.text import Text
from textual.content import Content
from textual.strip import Strip

from acp_tui.protocol import models as m
from acp_tui.safe_text import safe_line
from acp_tui.thread.diff import compute_diff
from acp_tui.thread.entries import ToolCallEntry
from acp_tui.thread.git_patch import patch_diffs
from acp_tui.thread.permission import PermissionAsk
from acp_tui.ui.widgets.diff_preview import DiffPreview
from acp_tui.ui.widgets.entry_renderables import (
    Look,
    blank,
    block_lines,
    boxed,
    cells,
    collapsible_title,
    fill,
    padded,
    resource_lines,
    rich_lines,
    wrap_content,
    wrap_text,
)
from acp_tui.ui.widgets.entry_state import RAW_INPUT, RAW_OUTPUT, SUBAGENT, EntryViewState
from acp_tui.ui.widgets.raw_output import readable_raw, readable_text
from acp_tui.ui.widgets.tool_call_facts import (
    RUNNING,
    folds_when_done,
    format_raw,
    header_text,
    raw_command_output,
    shows_output,
    v2_patch_text,
)
from acp_tui.ui.widgets.tool_output import OUTPUT_TAIL_LINES, tool_text_lines

RAW_LIMIT = 20_000
"""Characters of a raw input/output shown."""
RAW_OUTPUT_LINES = 12
"""Lines of the raw output shown until the user asks for all (click, or `e` on the card)."""

FOLD = "fold"
EXPAND_OUTPUT = "expand-output"
SECTION = "section:"
MEDIA = "media:"
"""Line actions: fold/unfold the card, show a command's whole output, toggle a section
(``SECTION + name``), open the image or audio that is the card's n-th content (``MEDIA + n``)."""


def resource_section(index: int) -> str:
    """The section name of the embedded resource that is the card's ``index``-th content."""
    return f"resource-{index}"


@dataclass(frozen=True)
class Slot:
    """A place between a live card's lines where a widget shows."""

    kind: Literal["terminal", "permission"]
    key: str
    """The terminal id, or the permission request id (as text)."""
    hidden: bool = False
    """A terminal of a folded card: its widget stays (scrollback, process) but is not shown."""


@dataclass
class LinePart:
    """A run of a card's lines (each exactly the card's width) and what a click on each does."""

    strips: list[Strip] = field(default_factory=list)
    actions: dict[int, str] = field(default_factory=dict)


Part = LinePart | Slot
Row = tuple[Strip, str | None] | Slot
"""A line inside the border (the inner width) with its action, or a slot."""


@dataclass(frozen=True)
class Extra:
    """What a card shows under its body: an answered permission request, an answer given
    without asking (a rule, the policy), the change monitor's notes."""

    content: Content
    style: str
    """The `Look` style name."""
    margin_top: int = 0
    boxed: bool = False


# ---------------------------------------------------------------- state


def open_question(entry: ToolCallEntry) -> bool:
    """A permission request of this call waits for the user."""
    return any(ask.asked and ask.open for ask in entry.permissions)


def asked_now(entry: ToolCallEntry) -> bool:
    """A permission request of this call is the one the user is asked now (the oldest open
    one; the others wait their turn, drawn as a line)."""
    return any(ask.current for ask in entry.permissions)


def is_folded(entry: ToolCallEntry, state: EntryViewState) -> bool:
    """Folded by hand, else unfolded while the user is asked about it, else as the status
    says."""
    if state.folded is not None:
        return state.folded
    return not asked_now(entry) and folds_when_done(entry)


def section_defaults(entry: ToolCallEntry) -> dict[str, bool]:
    """How sections show unless the user changes them: only a failed call's raw output open."""
    return {RAW_OUTPUT: entry.status == "failed"}


def section_open(entry: ToolCallEntry, state: EntryViewState, name: str) -> bool:
    """Whether a card's section is open: the user's choice if they toggled it, else the kind's
    default.
    """
    return state.sections.get(name, section_defaults(entry).get(name, False))


def toggle_section(entry: ToolCallEntry, state: EntryViewState, name: str) -> None:
    """Open or close a section; the state keeps only what differs from the default."""
    shown = not section_open(entry, state, name)
    if shown == section_defaults(entry).get(name, False):
        state.sections.pop(name, None)
    else:
        state.sections[name] = shown


def card_slots(
    entry: ToolCallEntry, state: EntryViewState, terminals: frozenset[str]
) -> list[Slot]:
    """The slots of the live card, in order (as `tool_call_parts` places them): each live
    terminal of the content (hidden while folded), then the permission request asked now."""
    hidden = is_folded(entry, state)
    slots: list[Slot] = []
    for terminal_id in _live_terminal_ids(entry, terminals):
        slots.append(Slot("terminal", terminal_id, hidden=hidden))
    for ask in entry.permissions:
        if ask.current:
            slots.append(Slot("permission", str(ask.request_id)))
    return slots


def _live_terminal_ids(entry: ToolCallEntry, terminals: frozenset[str]) -> list[str]:
    """The content's terminals that have a live view, each once, in order."""
    ids = [item.terminal_id for item in entry.content if isinstance(item, m.Terminal)]
    return [t for i, t in enumerate(ids) if t in terminals and t not in ids[:i]]


def card_extras(entry: ToolCallEntry) -> list[Extra]:
    """Answered permission requests in order (open ones are slots), then the disk notes and a
    dropped parent link."""
    extras: list[Extra] = []
    for ask in entry.permissions:
        if ask.asked and ask.open:
            continue
        answer = Content(ask.answer or "")
        if ask.asked:
            extras.append(Extra(answer, "permission-answer", margin_top=1, boxed=True))
        else:
            extras.append(Extra(answer, "auto-answer", margin_top=1))
    if entry.disk_notes:
        notes = Content("\n".join(f"⚠ {note}" for note in entry.disk_notes))
        extras.append(Extra(notes, "disk-note"))
    if entry.dropped_parent is not None:
        extras.append(Extra(Content(dropped_parent_note(entry.dropped_parent)), "disk-note"))
    return extras


def dropped_parent_note(parent_id: str) -> str:
    """The mark of a call whose parent link was dropped (it would have closed a ring)."""
    shown = safe_line(parent_id[:80]) + ("…" if len(parent_id) > 80 else "")
    return f"⚠ not nested under {shown}: the agent's parent links form a cycle"


def question_line(ask: PermissionAsk, *, prompt_shown: bool) -> Extra | None:
    """What a card says about an open question: how many are before it while it waits its
    turn (one question is asked at a time, the oldest first); under the prompt asked now, how
    many wait after it."""
    before = ask.waiting_before
    if before:
        plural = "question" if before == 1 else "questions"
        text = f"⏳ waiting: {before} {plural} before this one (f4 goes to the oldest)"
        return Extra(Content(text), "permission-answer", margin_top=1)
    after = len(ask.queue) - 1 if ask.queue is not None else 0
    if after > 0:
        plural = "question" if after == 1 else "questions"
        text = f"{after} more {plural} waiting after this one"
        return Extra(Content(text), "permission-answer", margin_top=0 if prompt_shown else 1)
    if prompt_shown:
        return None
    # (a card asked now is never frozen: this only says what the live card asks)
    return Extra(Content("⚠ The agent asks permission"), "permission-answer", margin_top=1)


def card_border_style(status: str) -> str:
    """The `Look` style name of a card's border for its status."""
    if status == "failed":
        return "card-border-failed"
    if status == "cancelled":
        return "card-border-cancelled"
    if status in RUNNING:
        return "card-border-running"
    return "card-border"


# ---------------------------------------------------------------- rows


def _plain(lines: list[Strip], action: str | None = None) -> list[Row]:
    return [(line, action) for line in lines]


def _section(
    title: str,
    name: str,
    body: RenderableType,
    shown: bool,
    look: Look,
    width: int,
    limit: int | None = None,
) -> list[Row]:
    """A raw section: its title row, and open, a blank row and the body (with ``limit``, its
    first lines and a line saying how many more, which shows them all when clicked)."""
    style = look.style("title")
    rows: list[Row] = [(collapsible_title(title, width, style, expanded=shown), SECTION + name)]
    if shown:
        if isinstance(body, Text):
            lines = wrap_text(body, look, width - 3)
        else:
            lines = rich_lines(body, look, width - 3)
        hidden = len(lines) - limit if limit is not None and len(lines) > limit + 1 else 0
        if hidden:
            noun = "line" if hidden == 1 else "lines"
            more = Text(f"⋯ {hidden} more {noun} (click or e shows all)", style="dim")
            lines = lines[:limit]
        rows += [(Strip([]), None)]
        rows += _plain(padded(lines, width, look.style("base"), left=3, right=0))
        if hidden:
            hint = padded(wrap_text(more, look, width - 3), width, look.style("base"), left=3)
            rows += _plain(hint, EXPAND_OUTPUT)
    return rows


def body_rows(
    entry: ToolCallEntry,
    look: Look,
    width: int,
    state: EntryViewState,
    terminals: frozenset[str] | None,
    hidden: bool = False,
) -> list[Row]:
    """The card's body at the inner ``width``: content, output, locations, raw sections.

    ``terminals``: the ids of the live terminals (shown as slots); None: no slots at all.
    ``hidden``: the card is folded, so only the terminal slots (hidden) are returned.
    """
    rows: list[Row] = []
    if hidden:
        return [
            Slot("terminal", t, hidden=True)
            for t in _live_terminal_ids(entry, terminals or frozenset())
        ]
    placed: set[str] = set()  # a terminal shows once
    tail = OUTPUT_TAIL_LINES if shows_output(entry) and not state.output_expanded else None

    def text_rows(text: str) -> list[Row]:
        lines = tool_text_lines(look.markdown, text, width, tail)
        hint = len(lines) - tail if tail is not None else 0  # the "earlier lines" note's
        return [(line, EXPAND_OUTPUT if i < hint else None) for i, line in enumerate(lines)]

    failed = entry.status == "failed"
    for index, item in enumerate(entry.content):
        match item:
            case m.Content(content=m.TextContent() as block):
                rows += text_rows(readable_text(block.text) if failed else block.text)
            case m.Content(content=m.ImageContent() | m.AudioContent() as block):
                rows += _plain(block_lines(block, look, width), MEDIA + str(index))
            case m.Content(content=m.EmbeddedResource() as block):
                name = resource_section(index)
                opened = section_open(entry, state, name)
                heading, *below = resource_lines(block, look, width, section=None, open_=opened)
                rows += [(heading, SECTION + name), *_plain(below)]
            case m.Content(content=block):
                rows += _plain(block_lines(block, look, width))
            case m.Diff():
                diff = compute_diff(item.path, item.old_text, item.new_text)
                rows += _plain(rich_lines(DiffPreview(diff), look, width))
            case m.Terminal(terminal_id=terminal_id):
                if terminals is not None and terminal_id in terminals:
                    if terminal_id not in placed:
                        placed.add(terminal_id)
                        rows.append(Slot("terminal", terminal_id))
                else:
                    missing = " (not found)" if terminals is not None else ""
                    text = Text(f"▶ terminal {safe_line(terminal_id)}{missing}", style="dim")
                    rows += _plain(wrap_text(text, look, width))
            case m.PatchDiff() if diffs := patch_diffs(item):  # v2: drawn as a v1 diff is
                for diff in diffs:
                    rows += _plain(rich_lines(DiffPreview(diff), look, width))
            case m.UnknownToolCallContent():
                patch = v2_patch_text(item.raw) if item.type == "patch_diff" else None
                if patch is not None:
                    rows += _plain(wrap_text(patch, look, width))
                else:
                    shown = f"[{format_raw(item.type)} content] {format_raw(item.raw)[:2000]}"
                    rows += _plain(wrap_text(Text(shown, style="dim"), look, width))
    if entry.can_cancel and entry.status not in m.FINISHED_STATUSES:  # v2 background work
        text = Text("x stops it (the agent offers that)", style="dim")
        rows += _plain(wrap_text(text, look, width))
    output = raw_command_output(entry)
    if output is not None:
        rows += text_rows(output)
    if entry.locations:
        text = Text("📍 ")
        for index, location in enumerate(entry.locations):
            if index:
                text.append("  ")
            line = location.line
            text.append(f"{location.path}:{line}" if line is not None else location.path)
        locations = look.style("locations")
        rows += _plain([line.apply_style(locations) for line in wrap_text(text, look, width)])
    if entry.raw_input is not None:
        body = Text(format_raw(entry.raw_input)[:RAW_LIMIT])
        opened = section_open(entry, state, RAW_INPUT)
        rows += _section("raw input", RAW_INPUT, body, opened, look, width)
    if entry.raw_output is not None:
        body = Text(readable_raw(entry.raw_output)[:RAW_LIMIT])
        opened = section_open(entry, state, RAW_OUTPUT)
        limit = None if state.output_expanded else RAW_OUTPUT_LINES
        rows += _section("raw output", RAW_OUTPUT, body, opened, look, width, limit)
    return rows


def subagent_rows(
    entry: ToolCallEntry, look: Look, width: int, state: EntryViewState, now: float | None
) -> list[Row]:
    """The tool calls the call's subagent ran: "▶ 3 tool calls by the subagent" (a click opens
    it, even on a folded card), open: each one's card, drawn from its data, indented."""
    children = list(entry.children)
    if not children:
        return []
    count = len(children)
    title = f"{count} tool call{'s' if count != 1 else ''} by the subagent"
    shown = section_open(entry, state, SUBAGENT)
    rows: list[Row] = [
        (collapsible_title(title, width, look.style("title"), expanded=shown), SECTION + SUBAGENT)
    ]
    if shown:
        base = look.style("base")
        for child in children:
            parts = tool_call_parts(child, look, width - 2, EntryViewState(), now=now)
            lines = [strip for part in parts if isinstance(part, LinePart) for strip in part.strips]
            rows += _plain(padded(lines, width, base, left=2, right=0))
    return rows


def extra_lines(extra: Extra, look: Look, width: int) -> list[Strip]:
    """The lines of a card's extra part (boxed or plain), with its top margin."""
    lines: list[Strip] = [Strip([])] * extra.margin_top
    style = look.style(extra.style)
    if extra.boxed:
        inner = [line.apply_style(style) for line in wrap_content(extra.content, width - 4)]
        return lines + boxed(inner, width, look.style("card-border"), look.style("base"))
    return lines + [fill(line, width, style) for line in wrap_content(extra.content, width)]


# ---------------------------------------------------------------- the card


def tool_call_parts(
    entry: ToolCallEntry,
    look: Look,
    width: int,
    state: EntryViewState,
    *,
    terminals: frozenset[str] | None = None,
    now: float | None = None,
) -> list[Part]:
    """The card at ``width``: runs of lines and, live, the slots between them.

    ``terminals``: the live terminals' ids; None draws the card with no slots (frozen).
    ``now``: the time the elapsed time of a running call counts to (default: now).
    """
    inner = width - 4
    live = terminals is not None
    header = header_text(entry, time.monotonic() if now is None else now)
    rows = _plain(wrap_text(header, look, inner), FOLD)
    rows += body_rows(entry, look, inner, state, terminals, hidden=is_folded(entry, state))
    rows += subagent_rows(entry, look, inner, state, now)
    for ask in entry.permissions:
        if ask.asked and ask.open:
            line = question_line(ask, prompt_shown=live and ask.current)
            if live and ask.current:
                rows.append(Slot("permission", str(ask.request_id)))
            if line is not None:
                rows += _plain(extra_lines(line, look, inner))
    for extra in card_extras(entry):
        rows += _plain(extra_lines(extra, look, inner))
    return frame(rows, width, look, card_border_style(str(entry.status)))


def frame(rows: list[Row], width: int, look: Look, border_style: str) -> list[Part]:
    """``rows`` inside a round border with padding 0 1, then the entry's bottom margin; the
    lines are split at the slots."""
    border, base = look.style(border_style), look.style("base")
    span = max(width - 2, 0)
    edge = cells("│", border)
    parts: list[Part] = []
    part = LinePart([fill(cells(f"╭{'─' * span}╮", border), width, base)])
    for row in rows:
        if isinstance(row, Slot):
            parts += [part, row]
            part = LinePart()
            continue
        strip, action = row
        if action is not None:
            part.actions[len(part.strips)] = action
        (inside,) = padded([strip], width - 2, base)
        part.strips.append(fill(Strip.join([edge, inside, edge]), width, base))
    part.strips.append(fill(cells(f"╰{'─' * span}╯", border), width, base))
    part.strips.append(blank(width, base))
    return [*parts, part]


def tool_call_lines(
    entry: ToolCallEntry, look: Look, width: int, state: EntryViewState | None = None
) -> list[Strip]:
    """The card as the frozen history shows it (no slots: every part's lines in order)."""
    parts = tool_call_parts(entry, look, width, state or EntryViewState())
    return [strip for part in parts if isinstance(part, LinePart) for strip in part.strips]

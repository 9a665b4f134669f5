"""A live tool call's card: drawn by `card_lines.tool_call_parts`, as the frozen history draws it.

The card is its lines (`CardLines`, Line-API widgets showing runs of the drawing) and, between
them, the widgets that must stay live in *slots*: an open permission prompt, a live terminal,
each framed by the card's border in its status colour (from the same `Look`). The card keeps no
colour or border of its own; what the user did to it (folded, sections open, output expanded)
is its `EntryViewState`, which the frozen drawing reads too.

Keys and clicks: the first lines (the header) take the focus; Enter or a click on the header
folds/unfolds, a click on a section's title ("raw input", "raw output", an embedded resource)
opens or closes it, a click on "⋯ N earlier lines" or `e` shows a command's whole output, a
click on an image or audio line opens it with the system viewer, `d` shows the full diff.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.color import Color
from textual.containers import Vertical
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from acp_tui.host.terminals import Terminal
from acp_tui.protocol import models as m
from acp_tui.thread.diff import FileDiff, compute_diff
from acp_tui.thread.entries import ToolCallEntry
from acp_tui.thread.git_patch import patch_diffs
from acp_tui.thread.v2.agent_terminals import AgentTerminal
from acp_tui.ui.widgets import card_lines as cl
from acp_tui.ui.widgets.entry_lines import EntryItem, EntryLines
from acp_tui.ui.widgets.entry_renderables import Look
from acp_tui.ui.widgets.entry_state import RAW_INPUT, EntryViewState
from acp_tui.ui.widgets.media_block_view import open_media
from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
from acp_tui.ui.widgets.tool_call_facts import (
    RUNNING,
    TerminalLookup,
    elapsed,
    ran_command,
)

if TYPE_CHECKING:
    from pathlib import Path

    from acp_tui.ui.widgets.terminal_view import TerminalView

__all__ = ["RUNNING", "CardLines", "SlotFrame", "ToolCallCard", "ran_command"]


class CardLines(EntryLines):
    """One run of a card's lines; the first (with the header) takes the focus."""

    BINDINGS: ClassVar[list[Binding]] = [  # type: ignore[assignment]
        Binding("enter", "fold", "fold/unfold", id="card.fold"),  # (the footer, when focused)
        Binding("e", "expand_output", "show all output", id="card.expand-output"),
    ]

    def __init__(self, card: ToolCallCard, index: int) -> None:
        super().__init__([EntryItem(self._draw_part, card.entry)])
        self.card = card
        self.index = index
        self.can_focus = index == 0
        self.cursor = 0  # focused: drawn as the frozen history draws its cursor
        self.actions: dict[int, str] = {}
        """What a click on each line does (`card_lines` line actions)."""

    def _draw_part(self, look: Look, width: int) -> list[Strip]:
        part = self.card.line_part(self.index, look, width)
        self.actions = part.actions
        return part.strips

    def redraw(self) -> None:
        """Draw the card's lines again."""
        self.item_changed(self.items[0])

    def on_click(self, event: events.Click) -> None:
        """Run the action of the clicked line (open a diff, fold a section ...), if it has one."""
        found = self.item_at(event.y)
        action = self.actions.get(found[1]) if found is not None else None
        if action is not None:
            event.stop()
            self.card.line_action(action)

    def action_fold(self) -> None:
        """Fold or unfold the card."""
        self.card.toggle()

    def action_expand_output(self) -> None:
        """Show the card's whole output."""
        self.card.expand_output()


class SlotFrame(Vertical):
    """A live widget inside a card: the card's left and right border around it."""

    DEFAULT_CSS = "SlotFrame { height: auto; padding: 0 1; }"

    def __init__(self, widget: Widget) -> None:
        super().__init__(widget)
        self.widget = widget

    def paint(self, color: Color) -> None:
        """Colour the frame's side borders (the card's status colour)."""
        self.styles.border_left = ("round", color)
        self.styles.border_right = ("round", color)


class ToolCallCard(Vertical):
    """A live tool call: its lines (header, body unless folded, answers, notes) and the widgets
    of its open permission prompts and live terminals."""

    DEFAULT_CSS = "ToolCallCard { height: auto; }"

    BINDINGS = [
        Binding("d", "show_diff", "full diff"),
        Binding("x", "stop_call", "stop the call", show=False, id="card.stop"),
    ]

    class StopRequested(Message):
        """The user asked to stop a tool call the agent offers to stop (v2 `tool_call/cancel`)."""

        def __init__(self, tool_call_id: str) -> None:
            super().__init__()
            self.tool_call_id = tool_call_id

    def __init__(
        self,
        entry: ToolCallEntry,
        terminal_lookup: TerminalLookup | None = None,
        state: EntryViewState | None = None,
        root: Path | None = None,
    ) -> None:
        super().__init__()
        self.entry = entry
        self.terminal_lookup = terminal_lookup
        self.root = root
        """The session's directory: its diff shows a path inside it relative to it."""
        self.state = state if state is not None else EntryViewState()
        """What the user did to this card (kept by the conversation across freezing)."""
        self.head = CardLines(self, 0)
        """The first lines (the header's): they take the focus."""
        self._parts: list[CardLines] = [self.head]
        self._frames: dict[tuple[str, str], SlotFrame] = {}
        self._slot_keys: list[tuple[str, str]] = []
        self._terminal_views: dict[str, TerminalView] = {}
        self._live_terminals: frozenset[str] = frozenset()
        self._asks_seen: set[int] = set()
        self._content_key: object = None
        self._composed = False

    def compose(self) -> ComposeResult:
        yield self.head

    def on_mount(self) -> None:
        """Draw the card from its entry (its elapsed time ticks from the conversation's timer)."""
        self._composed = True
        self.update_from_entry()

    def tick(self) -> None:
        """Redraw the elapsed time while the call runs (the conversation ticks: a timer of
        the card's own would hold it alive past the turn end's collection)."""
        if self.entry.status in RUNNING:
            self.head.redraw()  # (the header is in the first lines)

    # ------------------------------------------------------------ drawing

    def line_part(self, index: int, look: Look, width: int) -> cl.LinePart:
        """The ``index``-th run of the card's lines at ``width``."""
        parts = cl.tool_call_parts(
            self.entry, look, width, self.state, terminals=self._live_terminals
        )
        runs = [part for part in parts if isinstance(part, cl.LinePart)]
        return runs[index] if index < len(runs) else cl.LinePart()

    @property
    def text(self) -> str:
        """The plain text of the card's lines (for tests)."""
        return "\n".join(part.text for part in self._parts if part.is_mounted)

    @property
    def header(self) -> str:
        """The header's text as drawn (inside the border; for tests)."""
        lines = self.head.text.splitlines()
        shown = [lines[y] for y, action in sorted(self.head.actions.items()) if action == cl.FOLD]
        return " ".join(line.strip().strip("│").strip() for line in shown)

    @property
    def elapsed(self) -> float | None:
        """Seconds since the agent announced the call (so far, while it runs)."""
        return elapsed(self.entry, time.monotonic())

    def update_from_entry(self) -> None:
        """Draw again from the entry after it changed (and from the view state)."""
        if not self._composed:
            return  # on_mount brings it up to date
        for ask in self.entry.permissions:
            if ask.current and ask.request_id not in self._asks_seen:
                self._asks_seen.add(ask.request_id)
                if not (self.entry.content or self.entry.locations):
                    # the raw input is all that shows what is asked; else it stays folded
                    self.state.sections[RAW_INPUT] = True
        self._live_terminals = self._find_terminals()
        key = tuple(id(item) for item in self.entry.content)
        if key != self._content_key:
            self._content_key = key
            for view in self._terminal_views.values():
                if view.is_mounted:
                    view.refresh_terminal()
        self._sync_slots(cl.card_slots(self.entry, self.state, self._live_terminals))
        status = str(self.entry.status)
        self.set_class(status == "failed", "-failed")
        self.set_class(status in RUNNING, "-running")
        self.set_class(status == "cancelled", "-cancelled")
        self.set_class(cl.is_folded(self.entry, self.state), "-folded")
        for part in self._parts:
            part.redraw()
        self._paint_frames()

    def _find_terminals(self) -> frozenset[str]:
        """The terminals of the content that have a live view (made on first sight)."""
        for item in self.entry.content:
            if not isinstance(item, m.Terminal) or item.terminal_id in self._terminal_views:
                continue
            terminal: Terminal | AgentTerminal | None = None
            if self.terminal_lookup is not None:
                terminal = self.terminal_lookup(item.terminal_id)
            if terminal is not None:
                from acp_tui.ui.widgets.terminal_view import TerminalView

                self._terminal_views[item.terminal_id] = TerminalView(terminal, fit_output=True)
        return frozenset(self._terminal_views)

    def _sync_slots(self, slots: list[cl.Slot]) -> None:
        """Mount the slots' frames between runs of lines, in the drawing's order."""
        keys: list[tuple[str, str]] = [(slot.kind, slot.key) for slot in slots]
        if keys != self._slot_keys:
            self._slot_keys = keys
            for key in [key for key in self._frames if key not in keys]:
                self._frames.pop(key).remove()
            for part in self._parts[1:]:
                part.remove()
            self._parts = [self.head]
            previous: Widget = self.head
            for index, (slot, key) in enumerate(zip(slots, keys, strict=True), start=1):
                frame = self._frames.get(key)
                if frame is None:
                    frame = self._frames[key] = SlotFrame(self._slot_widget(slot))
                    self.mount(frame, after=previous)
                part = CardLines(self, index)
                self._parts.append(part)
                self.mount(part, after=frame)
                previous = part
        for slot, key in zip(slots, keys, strict=True):
            self._frames[key].display = not slot.hidden

    def _slot_widget(self, slot: cl.Slot) -> Widget:
        if slot.kind == "terminal":
            return self._terminal_views[slot.key]
        ask = next(a for a in self.entry.permissions if str(a.request_id) == slot.key)
        return PermissionPrompt(self.entry, ask)

    def _paint_frames(self) -> None:
        if not self._frames:
            return
        style = self.head.look.style(cl.card_border_style(str(self.entry.status)))
        color = Color.from_rich_color(style.color) if style.color is not None else None
        for frame in self._frames.values():
            if color is not None:
                frame.paint(color)

    # ------------------------------------------------------------ what the user does

    def line_action(self, action: str) -> None:
        """A click on a line that does something (see `card_lines`)."""
        if action == cl.FOLD:
            self.toggle()
        elif action == cl.EXPAND_OUTPUT:
            self.expand_output()
        elif action.startswith(cl.SECTION):
            cl.toggle_section(self.entry, self.state, action.removeprefix(cl.SECTION))
            self.update_from_entry()
        elif action.startswith(cl.MEDIA):
            item = self.entry.content[int(action.removeprefix(cl.MEDIA))]
            if isinstance(item, m.Content) and isinstance(
                item.content, m.ImageContent | m.AudioContent
            ):
                open_media(self, item.content)

    def toggle(self) -> None:
        """Fold or unfold the card; from now on the user's choice, not the status, decides."""
        self.state.folded = not cl.is_folded(self.entry, self.state)
        self.update_from_entry()

    def expand_output(self) -> None:
        """Show a command's whole output, not only its last lines."""
        if not self.state.output_expanded:
            self.state.output_expanded = True
            self.update_from_entry()

    @property
    def output_expanded(self) -> bool:
        """The user asked to see the whole output (not only its last lines)."""
        return self.state.output_expanded

    @property
    def user_toggled(self) -> bool:
        """The user folded or unfolded this card by hand (so it keeps that state)."""
        return self.state.user_toggled

    def diffs(self) -> list[FileDiff]:
        """The diffs the call proposes, computed from its diff contents (a v2 diff's from its
        git patch)."""
        diffs: list[FileDiff] = []
        for item in self.entry.content:
            if isinstance(item, m.Diff):
                diffs.append(compute_diff(item.path, item.old_text, item.new_text))
            elif isinstance(item, m.PatchDiff):
                diffs += patch_diffs(item)
        return diffs

    def action_stop_call(self) -> None:
        """Ask to stop the call, when the agent offers that and it has not finished."""
        entry = self.entry
        if entry.can_cancel and entry.status not in m.FINISHED_STATUSES:
            self.post_message(self.StopRequested(entry.tool_call_id))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`d` only on a card with a diff (nor in the footer otherwise)."""
        if action == "show_diff":  # (no diff computed for it: this runs at every key refresh)
            return any(isinstance(item, m.Diff | m.PatchDiff) for item in self.entry.content)
        return True

    def action_show_diff(self) -> None:
        """Open the card's diffs in the diff screen."""
        from acp_tui.ui.screens.diff_screen import DiffScreen

        diffs = self.diffs()
        if diffs:
            self.app.push_screen(DiffScreen(diffs, root=self.root))

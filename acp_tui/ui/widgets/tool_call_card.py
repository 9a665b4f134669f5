"""A tool call: kind icon, title, status, elapsed time, content, diff preview, terminal,
locations, raw input/output. Failed calls open by default; finished ones fold to one line,
unless they have something to look at: a diff, a terminal, or the output of a command (shown
by its last lines, see `tool_output`)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from acp_tui.host.terminals import Terminal
from acp_tui.protocol import models as m
from acp_tui.safe_text import safe_line, safe_text
from acp_tui.session.agent_terminals import AgentTerminal
from acp_tui.session.diff import FileDiff, compute_diff
from acp_tui.session.entries import ToolCallEntry
from acp_tui.ui.widgets.content_block_view import block_widget
from acp_tui.ui.widgets.entry_state import RAW_INPUT, RAW_OUTPUT, EntryViewState
from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
from acp_tui.ui.widgets.status_bar import format_elapsed
from acp_tui.ui.widgets.tool_output import OUTPUT_TAIL_LINES, ToolTextView

if TYPE_CHECKING:
    from acp_tui.ui.widgets.terminal_view import TerminalView

KIND_ICONS = {
    "read": "⇲",
    "edit": "✎",
    "delete": "✗",
    "move": "⇄",
    "search": "⌕",
    "execute": "▶",
    "think": "◆",
    "fetch": "⇣",
    "switch_mode": "⇆",
    "other": "•",
}
STATUS_LOOK = {
    "pending": ("○ pending", "dim"),
    "in_progress": ("◐ running", "bold yellow"),
    "completed": ("✓ completed", "green"),
    "failed": ("✗ failed", "bold red"),
    "cancelled": ("⊘ cancelled", "magenta"),
}
RUNNING = frozenset({"pending", "in_progress"})

TerminalLookup = Callable[[str], Terminal | AgentTerminal | None]


# Where agents that return a command's output only in rawOutput put it (codex-acp, OpenCode).
_RAW_OUTPUT_KEYS = ("output", "aggregated_output", "formatted_output", "stdout")


def ran_command(entry: ToolCallEntry) -> bool:
    """An execute call, or one whose input names a command (codex-acp calls `ls` "search")."""
    raw_input = entry.raw_input
    return entry.kind == "execute" or (isinstance(raw_input, dict) and "command" in raw_input)


def _has_text(entry: ToolCallEntry) -> bool:
    return any(
        isinstance(item, m.Content) and isinstance(item.content, m.TextContent)
        for item in entry.content
    )


def raw_command_output(entry: ToolCallEntry) -> str | None:
    """A command's output that only its rawOutput carries (no text content shows it)."""
    if not ran_command(entry) or _has_text(entry):
        return None
    raw = entry.raw_output
    if isinstance(raw, dict):
        raw = next((raw[k] for k in _RAW_OUTPUT_KEYS if isinstance(raw.get(k), str)), None)
    return raw if isinstance(raw, str) and raw.strip() else None


def shows_output(entry: ToolCallEntry) -> bool:
    """A command that returned text: its output stays in view (by its last lines)."""
    return ran_command(entry) and (_has_text(entry) or raw_command_output(entry) is not None)


def folds_when_done(entry: ToolCallEntry) -> bool:
    """A completed call folds to its header, unless it has a diff, a terminal or output."""
    if entry.status != "completed" or shows_output(entry):
        return False
    return not any(isinstance(item, m.Diff | m.Terminal) for item in entry.content)


def status_text(status: str, elapsed: float | None) -> Text:
    """A tool call's status mark and label, with its elapsed time if known."""
    label, style = STATUS_LOOK.get(status, (f"? {status}", "magenta"))
    text = Text(label, style=style)
    if elapsed is not None:
        text.append(f" {format_elapsed(elapsed)}" if elapsed >= 1 else f" {elapsed:.1f}s", "dim")
    return text


def format_raw(value: object) -> str:
    """A raw value the agent sent (rawInput, rawOutput, an unknown variant) as display text.

    Raw values are kept exact in the model (rules and reviews read them), so they are made
    safe here, where they are turned into text to show.
    """
    if isinstance(value, str):
        return safe_text(value)
    try:
        return safe_text(json.dumps(value, indent=2, ensure_ascii=False))
    except (TypeError, ValueError):
        return safe_text(repr(value))


class ToolCallHeader(Static, can_focus=True):
    """The card's one-line header; Enter or a click folds/unfolds the card."""

    DEFAULT_CSS = """
    ToolCallHeader { height: auto; }
    ToolCallHeader:focus { background: $boost; }
    """


class ToolCallCard(Vertical):
    """A live tool call: its header (kind, title, status), and unfolded its content, diffs,
    terminal, output, locations, raw input/output and permission prompt."""

    DEFAULT_CSS = """
    ToolCallCard {
        height: auto;
        border: round $primary 40%;
        padding: 0 1;
        margin: 0 0 1 0;
    }
    ToolCallCard.-failed { border: round $error; }
    ToolCallCard.-running { border: round $warning 70%; }
    ToolCallCard.-cancelled { border: round $secondary 50%; }
    ToolCallCard #body { height: auto; }
    ToolCallCard.-folded #body { display: none; }
    ToolCallCard .locations { color: $text-accent; }
    ToolCallCard Collapsible { border: none; padding: 0; background: transparent; }
    ToolCallCard .auto-answer { color: $success; margin: 1 0 0 0; }
    ToolCallCard .disk-note { color: $warning; }
    """

    BINDINGS = [Binding("d", "show_diff", "full diff", show=False)]

    def __init__(
        self,
        entry: ToolCallEntry,
        terminal_lookup: TerminalLookup | None = None,
        state: EntryViewState | None = None,
    ) -> None:
        super().__init__()
        self.entry = entry
        self.terminal_lookup = terminal_lookup
        self.state = state if state is not None else EntryViewState()
        """What the user did to this card (kept by the conversation across freezing)."""
        self._content_key: object = None
        self._terminal_views: dict[str, TerminalView] = {}
        self._sections: dict[Collapsible, str] = {}  # the raw input/output sections shown
        self._composed = False
        self._permission_views: dict[int, Widget] = {}
        self._disk_note: Static | None = None

    def compose(self) -> ComposeResult:
        yield ToolCallHeader(self._header(), id="header")
        yield Vertical(id="body")

    def on_mount(self) -> None:
        self._composed = True
        self.update_from_entry()
        self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        if self.entry.status in RUNNING:
            self.query_one("#header", Static).update(self._header())

    @property
    def elapsed(self) -> float | None:
        """Seconds the call ran (so far, while it runs); None before it started."""
        started: float | None = self.entry.started_at
        if started is None:
            return None
        finished: float | None = self.entry.finished_at
        return (finished if finished is not None else time.monotonic()) - started

    def _header(self) -> Text:
        kind = str(self.entry.kind or "other")
        text = Text(f"{KIND_ICONS.get(kind, '•')} ", style="bold")
        text.append(str(self.entry.title or "tool call"), style="bold")
        text.append("  ")
        text.append_text(status_text(str(self.entry.status), self.elapsed))
        return text

    def update_from_entry(self) -> None:
        """Redraw from the entry after it changed: status classes, fold state, header, and the body
        when its content changed."""
        if not self._composed:
            return  # on_mount brings it up to date
        status = str(self.entry.status)
        for name in ("failed", "running", "cancelled"):
            self.remove_class(f"-{name}")
        if status == "failed":
            self.add_class("-failed")
        elif status in RUNNING:
            self.add_class("-running")
        elif status == "cancelled":
            self.add_class("-cancelled")
        folded = self.state.folded
        if folded is None:
            folded = folds_when_done(self.entry)
        self.set_class(folded, "-folded")
        self.query_one("#header", Static).update(self._header())
        key = self._content_signature()
        if key != self._content_key:
            self._content_key = key
            self._rebuild_body()
        self._sync_permissions()
        self._sync_disk_notes()

    def _content_signature(self) -> object:
        return (
            tuple(id(item) for item in self.entry.content),
            tuple(id(loc) for loc in self.entry.locations),
            id(self.entry.raw_input),
            id(self.entry.raw_output),
            self.entry.status == "failed",
        )

    def _rebuild_body(self) -> None:
        body = self.query_one("#body", Vertical)
        widgets: list[Widget] = []
        for item in self.entry.content:
            widget = self._content_widget(item)
            if widget is not None:
                widgets.append(widget)
        output = raw_command_output(self.entry)
        if output is not None:
            widgets.append(ToolTextView(output, tail=self._output_tail()))
        if self.entry.locations:
            widgets.append(Static(self._locations(), classes="locations"))
        failed = self.entry.status == "failed"
        sections = self.state.sections
        self._sections = {}
        if self.entry.raw_input is not None:
            open_ = sections.get(RAW_INPUT, False)
            widgets.append(self._raw("raw input", RAW_INPUT, self.entry.raw_input, open_=open_))
        if self.entry.raw_output is not None:
            open_ = sections.get(RAW_OUTPUT, failed)
            widgets.append(self._raw("raw output", RAW_OUTPUT, self.entry.raw_output, open_=open_))
        # live terminal views stay mounted across updates; everything else is rebuilt
        for child in list(body.children):
            if child not in widgets:
                child.remove()
        body.mount_all([w for w in widgets if w.parent is None])

    def _content_widget(self, item: m.ToolCallContent) -> Widget | None:
        match item:
            case m.Content(content=m.TextContent() as block):
                return ToolTextView(block.text, tail=self._output_tail())
            case m.Content(content=block):
                return block_widget(block)
            case m.Diff():
                from acp_tui.ui.widgets.diff_view import DiffPreview

                diff = compute_diff(item.path, item.old_text, item.new_text)
                return Static(DiffPreview(diff), classes="diff-preview")
            case m.Terminal(terminal_id=terminal_id):
                return self._terminal_widget(terminal_id)
            case m.UnknownToolCallContent():
                patch = v2_patch_text(item.raw) if item.type == "patch_diff" else None
                if patch is not None:
                    return Static(patch, classes="diff-preview")
                shown = f"[{format_raw(item.type)} content] {format_raw(item.raw)[:2000]}"
                return Static(Text(shown, style="dim"))

    def _terminal_widget(self, terminal_id: str) -> Widget:
        existing = self._terminal_views.get(terminal_id)
        if existing is not None:
            if existing.is_mounted:
                existing.refresh_terminal()
            return existing
        terminal = self.terminal_lookup(terminal_id) if self.terminal_lookup else None
        if terminal is None:
            shown = safe_line(terminal_id)
            return Static(Text(f"▶ terminal {shown} (not found)", style="dim"))
        from acp_tui.ui.widgets.terminal_view import TerminalView

        view = TerminalView(terminal, fit_output=True)
        self._terminal_views[terminal_id] = view
        return view

    def _output_tail(self) -> int | None:
        if shows_output(self.entry) and not self.state.output_expanded:
            return OUTPUT_TAIL_LINES
        return None

    def _locations(self) -> RenderableType:
        text = Text("📍 ")
        for index, location in enumerate(self.entry.locations):
            if index:
                text.append("  ")
            line = location.line
            text.append(f"{location.path}:{line}" if line is not None else location.path)
        return text

    def _raw(self, title: str, section: str, value: object, *, open_: bool) -> Widget:
        collapsible = Collapsible(
            Static(Text(format_raw(value)[:20_000]), markup=False),
            title=title,
            collapsed=not open_,
        )
        self._sections[collapsible] = section
        return collapsible

    def on_collapsible_toggled(self, event: Collapsible.Toggled) -> None:
        """Remember a section the user opened or closed against its default."""
        section = self._sections.get(event.collapsible)
        if section is None:
            return
        shown = not event.collapsible.collapsed
        if shown == self.section_defaults().get(section, False):
            self.state.sections.pop(section, None)
        else:
            self.state.sections[section] = shown

    def section_defaults(self) -> dict[str, bool]:
        """How the raw sections show unless the user changes them: output open if failed."""
        return {RAW_INPUT: False, RAW_OUTPUT: self.entry.status == "failed"}

    def on_click(self, event: events.Click) -> None:
        if event.widget is not None and event.widget.id == "header":
            self.toggle()

    def on_key(self, event: events.Key) -> None:
        if event.key == "enter" and isinstance(self.screen.focused, ToolCallHeader):
            self.toggle()
            event.stop()

    def on_tool_text_view_expanded(self, event: ToolTextView.Expanded) -> None:
        event.stop()
        self.state.output_expanded = True
        for view in self.query(ToolTextView):
            view.action_expand()

    @property
    def output_expanded(self) -> bool:
        """The user asked to see the whole output (not only its last lines)."""
        return self.state.output_expanded

    @property
    def user_toggled(self) -> bool:
        """The user folded or unfolded this card by hand (so it keeps that state)."""
        return self.state.user_toggled

    def _sync_permissions(self) -> None:
        """Show the entry's permission requests: a prompt while open, then the answer."""
        for ask in self.entry.permissions:
            view = self._permission_views.get(ask.request_id)
            if view is None:
                if ask.asked:
                    view = PermissionPrompt(self.entry, ask)
                    if ask.open:
                        self._open_for_permission()
                else:
                    view = Static(Text(ask.answer or ""), classes="auto-answer")
                self._permission_views[ask.request_id] = view
                self.mount(view)
            elif isinstance(view, PermissionPrompt) and not ask.open:
                view.show_answer()

    def _sync_disk_notes(self) -> None:
        """The change monitor's notes: a file on disk unlike what this card's diff shows."""
        notes = list(self.entry.disk_notes)
        if not notes:
            if self._disk_note is not None:
                self._disk_note.remove()
                self._disk_note = None
            return
        text = Text("\n".join(f"⚠ {note}" for note in notes))
        if self._disk_note is None:
            self._disk_note = Static(text, classes="disk-note", markup=False)
            self.mount(self._disk_note)
        else:
            self._disk_note.update(text)

    def _open_for_permission(self) -> None:
        """Unfold the card and open its raw input, so the user sees what is asked."""
        self.remove_class("-folded")
        for collapsible, section in self._sections.items():
            if section == RAW_INPUT:
                collapsible.collapsed = False
                self.state.sections[RAW_INPUT] = True

    def diffs(self) -> list[FileDiff]:
        """The diffs the call proposes, computed from its diff contents."""
        return [
            compute_diff(item.path, item.old_text, item.new_text)
            for item in self.entry.content
            if isinstance(item, m.Diff)
        ]

    def action_show_diff(self) -> None:
        from acp_tui.ui.screens.diff_screen import DiffScreen

        diffs = self.diffs()
        if diffs:
            self.app.push_screen(DiffScreen(diffs))

    def toggle(self) -> None:
        """Fold or unfold the card; from now on the user's choice, not the status, decides."""
        self.toggle_class("-folded")
        self.state.folded = self.has_class("-folded")


def v2_patch_text(raw: object) -> Text | None:
    """A v2 diff (`changes` + a git patch) as coloured text (the patch is shown, not parsed as
    markup); None if it carries no patch text."""
    patch = raw.get("patch") if isinstance(raw, dict) else None
    body = patch.get("text") if isinstance(patch, dict) else None
    if not isinstance(body, str):
        return None
    text = Text()
    for line in body.splitlines()[:400]:
        line = safe_line(line)  # agent text: controls shown, never markup
        style = "green" if line.startswith("+") else "red" if line.startswith("-") else ""
        if line.startswith(("+++", "---", "@@")):
            style = "bold cyan" if line.startswith("@@") else "bold"
        text.append(line + "\n", style=style)
    return text

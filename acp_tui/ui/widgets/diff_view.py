"""A scrollable unified / side-by-side viewer of one `FileDiff`, drawn with the Line API.

Only the visible lines are rendered (`render_line`), each line's strip is cached per layout,
width and horizontal offset, and syntax highlighting is done per line on first display.
Row 0 is a sticky header (path, flags, +N -M, the current hunk); diff rows scroll beneath it.
The header fits its width: the path is shown relative to the project (`root`) when inside it,
and when the line is short the layout's name goes first, then "hunk", then the path's head
(`path_tail`: its file name stays), so the counts and the file's name show at 80 columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Literal

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from acp_tui.host.write_report import display_path
from acp_tui.safe_text import safe_line
from acp_tui.thread.diff import DiffLine, FileDiff, split_rows
from acp_tui.ui.widgets.diff_highlight import LineHighlighter, display_text, emphasis_spans
from acp_tui.ui.widgets.diff_preview import SIGNS, DiffPreview, diff_flags
from acp_tui.ui.widgets.path_fit import path_tail

__all__ = ["SPLIT_MIN_WIDTH", "DiffLayout", "DiffPreview", "DiffView", "HunkState"]

DiffLayout = Literal["auto", "unified", "split"]
HunkState = Literal["accepted", "rejected"]
SPLIT_MIN_WIDTH = 120
"""In "auto" layout, the widget shows old and new side by side from this many columns."""

EOL_NAMES = {"\n": "LF", "\r\n": "CRLF", "\r": "CR", "": "no newline at end of file"}
"""Shown after a modified line whose only or extra change is its line ending."""
STATE_MARKERS: dict[HunkState | None, str] = {
    "accepted": "✓ accepted",
    "rejected": "✗ rejected",
    None: "",
}


@dataclass(frozen=True)
class _Row:
    """One scrolling row: a hunk header, a note, or a line (unified) / line pair (split)."""

    kind: Literal["hunk", "line", "note"]
    hunk: int
    old: DiffLine | None = None
    new: DiffLine | None = None
    note: str = ""


def _build_rows(diff: FileDiff, split: bool) -> list[_Row]:
    rows: list[_Row] = []
    for hunk in diff.hunks:
        rows.append(_Row("hunk", hunk.index))
        if split:
            rows.extend(_Row("line", hunk.index, old, new) for old, new in split_rows(hunk))
        else:
            for line in hunk.lines:
                old = line if line.kind != "add" else None
                new = line if line.kind != "remove" else None
                rows.append(_Row("line", hunk.index, old, new))
    if not diff.hunks:
        rows.append(
            _Row(
                "note", -1, note="No changes." if diff.new_text or diff.old_text else "Empty file."
            )
        )
    return rows


def _pairs(diff: FileDiff) -> dict[DiffLine, DiffLine]:
    """Each modified line's counterpart (remove <-> add), for word-level highlighting."""
    partners: dict[DiffLine, DiffLine] = {}
    for hunk in diff.hunks:
        for old, new in split_rows(hunk):
            if old is not None and new is not None and old.kind == "remove":
                partners[old] = new
                partners[new] = old
    return partners


class DiffView(ScrollView, can_focus=True):
    """Unified or side-by-side diff of one file, with hunk navigation and per-hunk state marks."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "toggle_layout", "Split/unified"),
        Binding("n,right_square_bracket", "next_hunk", "Next hunk"),
        Binding("p,left_square_bracket", "previous_hunk", "Previous hunk"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff-view--header",
        "diff-view--warning",
        "diff-view--hunk",
        "diff-view--hunk-current",
        "diff-view--accepted",
        "diff-view--rejected",
        "diff-view--context",
        "diff-view--add",
        "diff-view--remove",
        "diff-view--add-word",
        "diff-view--remove-word",
        "diff-view--line-number",
        "diff-view--filler",
        "diff-view--note",
    }

    DEFAULT_CSS = """
    DiffView {
        background: $surface;
        & > .diff-view--header { background: $panel; color: $text; text-style: bold; }
        & > .diff-view--warning { background: $panel; color: $warning; text-style: bold; }
        & > .diff-view--hunk { background: $boost; color: $text-accent; }
        & > .diff-view--hunk-current { background: $accent 40%; color: $text; text-style: bold; }
        & > .diff-view--accepted { color: $text-success; text-style: bold; }
        & > .diff-view--rejected { color: $text-error; text-style: bold; }
        & > .diff-view--context { color: $text; }
        & > .diff-view--add { background: $success 15%; }
        & > .diff-view--remove { background: $error 15%; }
        & > .diff-view--add-word { background: $success 45%; }
        & > .diff-view--remove-word { background: $error 45%; }
        & > .diff-view--line-number { color: $text-muted; }
        & > .diff-view--filler { background: $panel-darken-1; }
        & > .diff-view--note { color: $text-muted; text-style: italic; }
    }
    """

    layout_mode: reactive[DiffLayout] = reactive[DiffLayout]("auto", init=False)
    """Requested layout; "auto" picks split from `SPLIT_MIN_WIDTH` columns, unified below."""
    current_hunk: reactive[int] = reactive(0, init=False)
    """Index of the hunk that navigation and review act on (its header is highlighted)."""

    class CurrentHunkChanged(Message):
        """The current hunk moved (by keys, a click, or `go_to_hunk`)."""

        def __init__(self, diff_view: DiffView, index: int) -> None:
            super().__init__()
            self.diff_view = diff_view
            self.index = index

        @property
        def control(self) -> DiffView:
            return self.diff_view

    def __init__(
        self,
        diff: FileDiff,
        *,
        layout: DiffLayout = "auto",
        root: Path | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """`root`: the project's directory; a path inside it is shown relative to it."""
        super().__init__(name=name, id=id, classes=classes)
        self.diff = diff
        self._shown_path = (
            display_path(Path(diff.path), root)
            if root is not None and diff.path.strip()
            else safe_line(diff.path)
        )
        self.set_reactive(DiffView.layout_mode, layout)
        self._hunk_states: dict[int, HunkState] = {}
        self._partners = _pairs(diff)
        self._highlighter = LineHighlighter(diff.path)
        self._rows_by_layout: dict[bool, list[_Row]] = {}
        self._split = False
        self._rows: list[_Row] = []
        self._hunk_rows: list[int] = []
        self._number_width = len(str(max(_last_line_number(diff), 1)))
        self._strips: LRUCache[tuple[bool, int, int, int], Strip] = LRUCache(2048)
        self._max_text_width: int | None = None

    # ---- public API -----------------------------------------------------------------------

    @property
    def effective_layout(self) -> Literal["unified", "split"]:
        """The layout actually drawn ("auto" resolved against the current width)."""
        return "split" if self._split else "unified"

    @property
    def hunk_states(self) -> dict[int, HunkState]:
        """The review mark of each marked hunk, by hunk index (a copy)."""
        return dict(self._hunk_states)

    def set_hunk_state(self, index: int, state: HunkState | None) -> None:
        """Show a review mark ("accepted"/"rejected") on a hunk's header, or clear it."""
        if state is None:
            self._hunk_states.pop(index, None)
        else:
            self._hunk_states[index] = state
        self.refresh()

    def go_to_hunk(self, index: int) -> None:
        """Make hunk `index` current and scroll its header to the top of the view."""
        if not self.diff.hunks:
            return
        self.current_hunk = max(0, min(index, len(self.diff.hunks) - 1))
        self._scroll_to_current()

    def hunk_row(self, index: int) -> int:
        """The scrolling row (0-based, below the sticky header) of a hunk's header."""
        return self._hunk_rows[index]

    def action_next_hunk(self) -> None:
        """Move to the next hunk."""
        self.go_to_hunk(self.current_hunk + 1)

    def action_previous_hunk(self) -> None:
        """Move to the previous hunk."""
        self.go_to_hunk(self.current_hunk - 1)

    def action_toggle_layout(self) -> None:
        """Switch between the split and the unified layout."""
        self.layout_mode = "unified" if self._split else "split"

    # ---- layout -----------------------------------------------------------------------------

    def on_mount(self) -> None:
        """Lay the rows out for the first size."""
        self._relayout()

    def on_resize(self, event: events.Resize) -> None:
        """Lay the rows out again for the new size, keeping the current hunk in view."""
        self._relayout(keep_hunk=True)

    def watch_layout_mode(self) -> None:
        """Lay the rows out again in the new layout, keeping the current hunk in view."""
        self._relayout(keep_hunk=True)

    def watch_current_hunk(self, index: int) -> None:
        """Redraw and tell the screen which hunk is current."""
        self.refresh()
        self.post_message(self.CurrentHunkChanged(self, index))

    def _relayout(self, keep_hunk: bool = False) -> None:
        width = self.scrollable_content_region.width or self.size.width
        split = self.layout_mode == "split" or (
            self.layout_mode == "auto" and width >= SPLIT_MIN_WIDTH
        )
        changed = split != self._split or not self._rows
        self._split = split
        if split not in self._rows_by_layout:
            self._rows_by_layout[split] = _build_rows(self.diff, split)
        self._rows = self._rows_by_layout[split]
        self._hunk_rows = [i for i, row in enumerate(self._rows) if row.kind == "hunk"]
        content_width = width if split else self._unified_width()
        self.virtual_size = Size(content_width, len(self._rows) + 1)
        if changed:
            self._strips.clear()
            if keep_hunk and self.scroll_y > 0:
                self.call_after_refresh(self._scroll_to_current)
        self.refresh()

    def _unified_width(self) -> int:
        if self._max_text_width is None:
            widths = (
                cell_len(display_text(line.text)) for h in self.diff.hunks for line in h.lines
            )
            self._max_text_width = max(widths, default=0)
        return self._unified_gutter_width() + self._max_text_width

    def _unified_gutter_width(self) -> int:
        return 2 * self._number_width + 4

    def _scroll_to_current(self) -> None:
        if self._hunk_rows:
            self.scroll_to(y=self._hunk_rows[self.current_hunk], animate=False, immediate=True)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()
        self._highlighter.set_dark(self.app.current_theme.dark if self.is_attached else True)

    def on_click(self, event: events.Click) -> None:
        """A click on a hunk's header makes it the current hunk."""
        row = self._row_at(event.y)
        if row is not None and row.kind == "hunk" and row.hunk != self.current_hunk:
            self.current_hunk = row.hunk

    def _row_at(self, y: int) -> _Row | None:
        index = int(self.scroll_y) + y - 1
        return self._rows[index] if y >= 1 and 0 <= index < len(self._rows) else None

    # ---- rendering ----------------------------------------------------------------------------

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"diff-view--{name}")

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if y == 0:
            return self._header_strip(width)
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y - 1
        if index >= len(self._rows):
            return Strip.blank(width, self.rich_style)
        row = self._rows[index]
        if row.kind == "hunk":
            return self._hunk_strip(row.hunk, width)
        if row.kind == "note":
            note = Text(f"  {row.note}", style=self._style("note"))
            return self._segments(note).crop_extend(0, width, self.rich_style)
        key = (self._split, index, width, 0 if self._split else scroll_x)
        strip = self._strips.get(key)
        if strip is None:
            strip = (
                self._split_strip(row, width)
                if self._split
                else self._unified_strip(row, width, scroll_x)
            )
            self._strips[key] = strip
        return strip

    def _segments(self, text: Text) -> Strip:
        # Text.render leaves the base style to its caller when the text has no spans
        console = self.app.console
        base = console.get_style(text.style) if text.style else None
        return Strip(Segment.apply_style(text.render(console), style=base), text.cell_len)

    def header_text(self, width: int) -> Text:
        """The sticky header's line for `width` cells (see the module's docstring)."""
        diff = self.diff
        path = self._shown_path or "(no path)"
        flags = diff_flags(diff, warning_style=self._style("warning"))
        count = f"{self.current_hunk + 1}/{len(diff.hunks)}"
        rests = [f"   hunk {count} · {self.effective_layout}", f"   hunk {count}", f"  {count}"]
        if not diff.hunks:
            rests = [""]
        # the fullest that shows the whole path, else the shortest (the path shortened)
        room = {rest: width - 1 - flags.cell_len - cell_len(rest) for rest in rests}
        rest = next((rest for rest in rests if room[rest] >= cell_len(path)), rests[-1])
        text = Text(" ", style=self._style("header"), no_wrap=True, overflow="crop")
        text.append(path_tail(path, max(room[rest], 1)))
        text.append_text(flags)
        text.append(rest, style="dim")
        return text

    def _header_strip(self, width: int) -> Strip:
        text = self.header_text(width)
        return self._segments(text).crop_extend(0, width, self._style("header"))

    def _hunk_strip(self, index: int, width: int) -> Strip:
        current = index == self.current_hunk
        style = self._style("hunk-current" if current else "hunk")
        text = Text("▶ " if current else "  ", style=style, no_wrap=True)
        text.append(self.diff.hunks[index].header)
        state = self._hunk_states.get(index)
        if state is not None:
            text.append("  ")
            text.append(STATE_MARKERS[state], style=self._style(state))
        return self._segments(text).crop_extend(0, width, style)

    def _line_style(self, line: DiffLine | None) -> Style:
        return self._style(line.kind if line is not None else "filler")

    def _content(self, line: DiffLine) -> Text:
        """A line's text: syntax colours, then word emphasis if it is half of a modified pair."""
        shown = display_text(line.text)
        text = self._highlighter.highlight(shown).copy()
        text.style = self._line_style(line)
        partner = self._partners.get(line)
        if partner is not None:
            old, new = (line, partner) if line.kind == "remove" else (partner, line)
            spans = emphasis_spans(display_text(old.text), display_text(new.text))
            word_style = self._style(f"{line.kind}-word")
            for start, end in spans[0 if line.kind == "remove" else 1]:
                text.stylize(word_style, start, end)
        if partner is not None and partner.eol != line.eol:
            text.append(f"  [{EOL_NAMES.get(line.eol, repr(line.eol))}]", style="dim")
        return text

    def _gutter(self, number: int | None, sign: str, style: Style) -> Text:
        shown = str(number) if number is not None else ""
        return Text(f"{shown:>{self._number_width}} {sign} ", style=style)

    def _unified_strip(self, row: _Row, width: int, scroll_x: int) -> Strip:
        line = row.old if row.old is not None else row.new
        assert line is not None
        base = self._line_style(line)
        numbers = self._style("line-number")
        gutter = Text.assemble(
            (f"{line.old_no if line.old_no is not None else '':>{self._number_width}} ", base),
            (f"{line.new_no if line.new_no is not None else '':>{self._number_width}} ", base),
            (f"{SIGNS[line.kind]} ", base),
        )
        gutter.stylize(numbers, 0, 2 * self._number_width + 2)
        gutter_strip = self._segments(gutter)
        body_width = max(0, width - gutter_strip.cell_length)
        body = self._segments(self._content(line)).crop_extend(
            scroll_x, scroll_x + body_width, base
        )
        return Strip.join([gutter_strip, body])

    def _split_strip(self, row: _Row, width: int) -> Strip:
        left_width = (width - 1) // 2
        right_width = width - 1 - left_width
        separator = self._segments(Text("│", style=self._style("line-number")))
        return Strip.join(
            [
                self._side_strip(row.old, left_width, old_side=True),
                separator,
                self._side_strip(row.new, right_width, old_side=False),
            ]
        )

    def _side_strip(self, line: DiffLine | None, width: int, *, old_side: bool) -> Strip:
        base = self._line_style(line)
        if line is None:
            return Strip.blank(width, base)
        number = line.old_no if old_side else line.new_no
        gutter = self._gutter(number, SIGNS[line.kind], base)
        gutter.stylize(self._style("line-number"), 0, self._number_width)
        text = gutter + self._content(line)
        if text.cell_len > width > 1:  # cut, and say so
            text.truncate(width - 1)
            text.append("…", style=self._style("line-number"))
        return self._segments(text).crop_extend(0, width, base)


def _last_line_number(diff: FileDiff) -> int:
    if not diff.hunks:
        return 0
    last = diff.hunks[-1]
    return max(last.old_start + last.old_count, last.new_start + last.new_count)

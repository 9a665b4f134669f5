"""The inspector's frame list: one line per row, drawn from the store (Line API, no child widgets).

Only the lines on screen are rendered, so 100k frames cost no more than 40. Agent text (method
names, update kinds, frame previews) goes through `safe_text` and into plain `Segment`s: it is
never parsed as markup.
"""

from __future__ import annotations

import time

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from acp_tui.protocol.traffic_rows import RowFilter, RowIndex
from acp_tui.protocol.traffic_store import FrameRecord, TrafficStore
from acp_tui.ui.inspector.safe import safe_text

PREVIEW_CHARS = 400
FIXED_COLUMNS = 91
"""Cells before the preview: time, direction, kind, id, label, latency, status, marks."""

_DIM = Style(dim=True)
_IN = Style(color="cyan")
_OUT = Style(color="magenta")
_ERROR = Style(color="red", bold=True)
_OK = Style(color="green")
_MARK = Style(color="yellow", bold=True)
_CURSOR = Style(reverse=True)


def _time_text(seconds: float) -> str:
    return f"{seconds:9.3f}s"


def _latency_text(frame: FrameRecord) -> str:
    if frame.latency is None:
        return "   …   " if frame.kind == "request" and frame.pair < 0 else "       "
    ms = frame.latency * 1000
    return f"{ms:5.0f}ms" if ms < 100_000 else f"{frame.latency:5.0f}s "


def row_segments(
    frame: FrameRecord, count: int, origin: float, preview: int = PREVIEW_CHARS
) -> list[Segment]:
    """The cells of one row (before cropping): time, direction, kind, id, label, latency,
    status, marks, preview."""
    arrow, arrow_style = ("←", _IN) if frame.direction == "in" else ("→", _OUT)
    kind = {"request": "req", "response": "res", "notification": "ntf"}.get(frame.kind, "bad")
    ident = "" if frame.id is None else f"#{frame.id}"
    if count > 1:
        ident = f"×{count}"  # noqa: RUF001
    segments = [
        Segment(_time_text(frame.time - origin) + " ", _DIM),
        Segment(f"{arrow} {kind} ", arrow_style),
        Segment(f"{safe_text(ident)[:8]:<8} "),
        Segment(f"{safe_text(frame.label)[:44]:<44} "),
        Segment(_latency_text(frame) + " ", _DIM),
    ]
    if frame.error_code is not None:
        segments.append(Segment(f"E{frame.error_code:<7}", _ERROR))
    elif frame.kind == "response":
        segments.append(Segment(f"{'ok':<8}", _OK))
    else:
        segments.append(Segment(" " * 8))
    segments.append(Segment(f"⚠{len(frame.marks):<2} " if frame.marks else "    ", _MARK))
    if preview > 0:
        text = safe_text(frame.raw[:preview]) if frame.kept else "(not kept)"
        segments.append(Segment(text, _DIM))
    return segments


class FrameList(ScrollView, can_focus=True):
    """Rows of a `TrafficStore` under a `RowFilter`; a cursor selects one row."""

    DEFAULT_CSS = """
    FrameList { height: 1fr; scrollbar-gutter: stable; }
    """
    BINDINGS = [
        Binding("up", "cursor(-1)", "up", show=False),
        Binding("down", "cursor(1)", "down", show=False),
        Binding("pageup", "page(-1)", "page up", show=False),
        Binding("pagedown", "page(1)", "page down", show=False),
        Binding("home", "jump(0)", "first", show=False),
        Binding("end", "jump(-1)", "last", show=False),
    ]

    cursor: reactive[int] = reactive(-1, always_update=True, repaint=False)

    class Selected(Message):
        """The highlighted row changed: its first frame (None: the list is empty) and how many
        frames the row groups."""

        def __init__(self, frame: FrameRecord | None, count: int) -> None:
            super().__init__()
            self.frame = frame
            self.count = count

    def __init__(self, store: TrafficStore, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.store = store
        self.index: RowIndex = store.rows
        self.follow = True
        self.origin = store.frames[0].time if store.frames else time.time()
        self._lines: dict[tuple[int, int, int, int, bool, int, bool], Strip] = {}
        """Drawn lines by what they show (a frame's row can only change in these fields)."""

    # ---- data ---------------------------------------------------------------------------

    def set_filter(self, row_filter: RowFilter) -> None:
        """Show the rows `row_filter` lets through, keeping the selected frame selected when it is
        still listed."""
        selected = self.selected_frame
        if row_filter == RowFilter():
            self.index = self.store.rows
        else:
            self.index = RowIndex(self.store, row_filter)
        self.index.sync()
        self._resize()
        if selected is not None and len(self.index):
            self.move_to_frame(selected.index)
        else:
            self.cursor = len(self.index) - 1
        self.refresh()

    def poll(self) -> bool:
        """Take in frames that arrived since the last poll; True if there were any."""
        frames = len(self.store.frames)
        if frames == self._seen_frames:
            return False
        self._seen_frames = frames
        if frames:
            self.origin = self.store.frames[0].time  # times are shown from the first frame
        self.index.sync()
        at_end = self.cursor >= self._shown_rows - 1
        self._resize()
        if self.follow and at_end:
            self.cursor = len(self.index) - 1
        self.refresh()
        return True

    _shown_rows = 0
    _seen_frames = -1

    def _resize(self) -> None:
        self._shown_rows = len(self.index)
        self.virtual_size = Size(0, self._shown_rows)  # rows are cropped: no horizontal scroll

    @property
    def selected(self) -> tuple[FrameRecord, int] | None:
        """The highlighted row's first frame and how many frames it groups; None when nothing is
        listed."""
        if not 0 <= self.cursor < len(self.index):
            return None
        first, count = self.index.row(self.cursor)
        return self.store.frames[first], count

    @property
    def selected_frame(self) -> FrameRecord | None:
        """The highlighted row's first frame, if any."""
        selected = self.selected
        return selected[0] if selected else None

    def move_to_frame(self, frame_index: int) -> None:
        """Highlight the row that holds the frame at `frame_index` in the store."""
        self.cursor = self.index.row_of(frame_index)

    # ---- cursor -------------------------------------------------------------------------

    def watch_cursor(self, old: int, new: int) -> None:
        """Keep the cursor on an existing row and scroll it into view."""
        rows = len(self.index)
        if rows == 0:
            return
        clamped = max(0, min(new, rows - 1))
        if clamped != new:
            self.cursor = clamped
            return
        self.follow = clamped == rows - 1
        self.scroll_to_region(Region(0, clamped, 1, 1), animate=False, force=True, immediate=True)
        self.refresh()
        selected = self.selected
        self.post_message(self.Selected(*(selected if selected else (None, 0))))

    def action_cursor(self, delta: int) -> None:
        """Move the cursor `delta` rows."""
        self.cursor = max(0, self.cursor + delta)

    def action_page(self, direction: int) -> None:
        """Move the cursor one page up (-1) or down (1)."""
        self.cursor = max(0, self.cursor + direction * max(1, self.size.height - 1))

    def action_jump(self, where: int) -> None:
        """Move the cursor to the first (0) or last row."""
        self.cursor = 0 if where == 0 else len(self.index) - 1

    def on_click(self, event: events.Click) -> None:
        """Put the cursor on the clicked row."""
        self.cursor = int(self.scroll_offset.y) + event.y

    # ---- drawing ------------------------------------------------------------------------

    def on_resize(self) -> None:
        """Keep the virtual size at the row count (rows are cropped to the width, so no second
        layout).
        """
        # the virtual width stays 0 (rows are cropped to the width): a new size is no new
        # virtual size, so no second layout
        self.virtual_size = Size(0, len(self.index))

    def render_line(self, y: int) -> Strip:
        row = int(self.scroll_offset.y) + y
        width = self.size.width
        if not 0 <= row < len(self.index):
            return Strip.blank(width)
        first, count = self.index.row(row)
        frame = self.store.frames[first]
        key = (first, count, len(frame.marks), frame.pair, row == self.cursor, width, frame.kept)
        cached = self._lines.get(key)
        if cached is not None:
            return cached
        segments = row_segments(frame, count, self.origin, width - FIXED_COLUMNS)
        strip = Strip(segments).crop(0, width)
        if row == self.cursor:
            strip = strip.apply_style(_CURSOR)
        strip = strip.extend_cell_length(width, _CURSOR if row == self.cursor else None)
        if len(self._lines) > 4 * max(self.size.height, 1):
            self._lines.clear()
        self._lines[key] = strip
        return strip

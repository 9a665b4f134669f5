"""FrozenHistory: many finished conversation entries as ONE Line-API widget.

The conversation keeps only recent entries as live widgets; older finished ones become
`FrozenItem`s here. Each item renders itself from its data (see `entry_renderables`) and keeps
its lines for the current width as packed data (`compact_lines`: no `Strip` the garbage
collector has to walk), so layout and compositing cost one widget however long the history is;
strips are built only for the lines on the screen (a small cache keeps the recent ones). Lines
are rendered lazily per width; a resize or theme change re-renders.
A click on an item, or Enter on the item under the cursor (the history takes focus; up/down move
the cursor between entries), posts `FrozenHistory.ThawRequested` (the conversation turns it
back into a live widget, for example to unfold a tool call's raw input).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from acp_tui.session.entries import Entry
from acp_tui.ui.compact_lines import PackedLine, StripCache, pack_all, packed_text, unpack
from acp_tui.ui.markdown.render import RenderContext
from acp_tui.ui.widgets.entry_renderables import Look

Render = Callable[[Look, int], list[Strip]]


class FrozenItem:
    """One frozen entry (or note): how to render it, and its lines (packed) for one width."""

    __slots__ = ("_lines", "_width", "entry", "render")

    def __init__(self, render: Render, entry: Entry | None = None) -> None:
        self.render = render
        self.entry = entry
        """The thread entry this item shows (None for notes and stop reasons)."""
        self._width = -1
        self._lines: list[PackedLine | Strip] = []

    def lines(self, look: Look, width: int) -> list[PackedLine | Strip]:
        """The item's lines at ``width``, packed (see `compact_lines.unpack`)."""
        if width != self._width:
            self._lines = pack_all(self.render(look, width))
            self._width = width
        return self._lines

    def strips(self, look: Look, width: int) -> list[Strip]:
        return [unpack(line) for line in self.lines(look, width)]

    def invalidate(self) -> None:
        self._width = -1
        self._lines = []

    @property
    def entry_id(self) -> int | None:
        return self.entry.id if self.entry is not None else None


@dataclass(frozen=True)
class _Layout:
    width: int
    offsets: list[int]  # first line of each item
    total: int


class FrozenHistory(Widget, can_focus=True):
    """Finished entries, rendered once per width, shown through `render_line`."""

    BINDINGS: ClassVar[list[Binding]] = [  # type: ignore[assignment]
        Binding("up", "cursor(-1)", "previous entry", show=False, id="frozen.previous"),
        Binding("down", "cursor(1)", "next entry", show=False, id="frozen.next"),
        Binding("enter", "thaw", "open entry", show=False, id="frozen.thaw"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "frozen--user",
        "frozen--user-bar",
        "frozen--user-bar-not-kept",
        "frozen--not-kept",
        "frozen--title",
        "frozen--resource-title",
        "frozen--card-border",
        "frozen--card-border-failed",
        "frozen--card-border-cancelled",
        "frozen--card-border-running",
        "frozen--locations",
        "frozen--plan-bar",
        "frozen--unknown",
        "frozen--unknown-border",
        "frozen--stop-reason",
        "frozen--notice",
        "frozen--permission-answer",
        "frozen--auto-answer",
        "frozen--disk-note",
        "frozen--cursor",
    }
    # mirrors the live widgets' CSS (message_view, tool_call_card, plan_view, conversation)
    DEFAULT_CSS = """
    FrozenHistory { height: auto; width: 1fr; }
    FrozenHistory > .frozen--user { background: $secondary 10%; }
    FrozenHistory > .frozen--user-bar { color: $secondary; background: $secondary 10%; }
    FrozenHistory > .frozen--user-bar-not-kept { color: $error; background: $secondary 10%; }
    FrozenHistory > .frozen--not-kept { color: $error; }
    FrozenHistory > .frozen--title { color: $block-cursor-blurred-foreground; }
    FrozenHistory > .frozen--resource-title {
        background: $surface; color: $block-cursor-blurred-foreground;
    }
    FrozenHistory > .frozen--card-border { color: $primary 40%; }
    FrozenHistory > .frozen--card-border-failed { color: $error; }
    FrozenHistory > .frozen--card-border-cancelled { color: $secondary 50%; }
    FrozenHistory > .frozen--card-border-running { color: $warning 70%; }
    FrozenHistory > .frozen--locations { color: $text-accent; }
    FrozenHistory > .frozen--plan-bar { color: $accent 60%; }
    FrozenHistory > .frozen--unknown { color: $text-muted; }
    FrozenHistory > .frozen--unknown-border { color: $secondary 40%; }
    FrozenHistory > .frozen--stop-reason { color: $warning; }
    FrozenHistory > .frozen--notice { color: $text-muted; text-style: italic; }
    FrozenHistory > .frozen--permission-answer { color: $text-muted; }
    FrozenHistory > .frozen--auto-answer { color: $success; }
    FrozenHistory > .frozen--disk-note { color: $warning; }
    FrozenHistory > .frozen--cursor { background: $boost; }
    """

    class ThawRequested(Message):
        """The user clicked a frozen item."""

        def __init__(
            self, history: FrozenHistory, item: FrozenItem, *, keyboard: bool = False
        ) -> None:
            super().__init__()
            self.history = history
            self.item = item
            self.keyboard = keyboard
            """Enter asked (not a click): the thawed view takes the focus."""

    def __init__(self, items: Iterable[FrozenItem] = ()) -> None:
        super().__init__()
        self.items: list[FrozenItem] = list(items)
        self._layout: _Layout | None = None
        self._look: Look | None = None
        self._markdown: RenderContext | None = None
        self._styles_checked = False
        self._styles_key: tuple[Style, ...] = ()
        self._cache = StripCache(128)
        self.cursor: int | None = None
        """Index of the item Enter thaws while the history has focus (entries only)."""

    # ------------------------------------------------------------ items

    def set_items(self, items: Iterable[FrozenItem]) -> None:
        self.items = list(items)
        self.cursor = None
        self._changed()

    def index_of(self, item: FrozenItem) -> int:
        return next(i for i, candidate in enumerate(self.items) if candidate is item)

    def item_changed(self, item: FrozenItem) -> None:
        item.invalidate()
        self._changed()

    def _changed(self) -> None:
        self._layout = None
        self._cache.clear()
        self.refresh(layout=True)

    # ------------------------------------------------------------ rendering

    @property
    def look(self) -> Look:
        if self._look is None:
            if self._markdown is None:
                self._markdown = RenderContext(self.app.console)
            self._look = Look(
                console=self.app.console,
                options=self.app.console_options,
                markdown=self._markdown,
                style=self._style,
            )
        return self._look

    def _style(self, name: str) -> Style:
        if name == "base":
            return self.rich_style
        return self.get_component_rich_style(f"frozen--{name}")

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles_checked = False

    def _check_styles(self) -> None:
        """Re-render every item if the theme or CSS changed what the items look like."""
        self._styles_checked = True
        key = (
            self.rich_style,
            *(self.get_component_rich_style(n) for n in sorted(self.COMPONENT_CLASSES)),
        )
        if key != self._styles_key:
            self._styles_key = key
            for item in self.items:
                item.invalidate()
            self._layout = None
            self._cache.clear()

    def layout_for(self, width: int) -> _Layout:
        if not self._styles_checked:
            self._check_styles()
        layout = self._layout
        if layout is None or layout.width != width:
            look = self.look
            offsets: list[int] = []
            total = 0
            for item in self.items:
                offsets.append(total)
                total += len(item.lines(look, width))
            layout = self._layout = _Layout(width, offsets, total)
            self._cache.clear()
        return layout

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.layout_for(width).total if width > 0 else 0

    def item_at(self, y: int) -> tuple[FrozenItem, int] | None:
        """The item shown on line ``y`` and the line's index within the item."""
        layout = self.layout_for(self.size.width)
        if not self.items or not 0 <= y < layout.total:
            return None
        index = bisect_right(layout.offsets, y) - 1
        return self.items[index], y - layout.offsets[index]

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        found = self.item_at(y)
        if found is None:
            return Strip.blank(width, self.rich_style)
        cached = self._cache.get(y)
        if cached is not None:
            return cached
        item, line = found
        lines = item.lines(self.look, width)
        if line >= len(lines):
            return Strip.blank(width, self.rich_style)
        strip = unpack(lines[line])
        if self.has_focus and self.cursor is not None and self.items[self.cursor] is item:
            cursor = self.get_component_rich_style("frozen--cursor")
            strip = Strip(Segment.apply_style(strip, post_style=cursor), strip.cell_length)
        return self._cache.put(y, strip)

    @property
    def text(self) -> str:
        """Plain text of every line (for tests)."""
        width = self.size.width or 80
        look = self.look
        return "\n".join(
            packed_text(line).rstrip() for item in self.items for line in item.lines(look, width)
        )

    # ------------------------------------------------------------ keyboard

    def _entries(self) -> list[int]:
        return [index for index, item in enumerate(self.items) if item.entry is not None]

    def _repaint_cursor(self) -> None:
        self._cache.clear()
        self.refresh()

    def on_focus(self) -> None:
        """Show the cursor (on the entry nearest the live ones, the first time)."""
        entries = self._entries()
        if self.cursor not in entries:
            self.cursor = entries[-1] if entries else None
        self._repaint_cursor()

    def on_blur(self) -> None:
        self._repaint_cursor()

    def action_cursor(self, step: int) -> None:
        """Move the cursor to the previous (-1) or next (1) entry."""
        entries = self._entries()
        if not entries:
            return
        position = entries.index(self.cursor) if self.cursor in entries else len(entries) - 1
        self.cursor = entries[max(0, min(len(entries) - 1, position + step))]
        self._repaint_cursor()
        self._show_cursor()

    def _show_cursor(self) -> None:
        if self.cursor is None or self.parent is None or self.size.width <= 0:
            return
        layout = self.layout_for(self.size.width)
        top = layout.offsets[self.cursor]
        bottom = (
            layout.offsets[self.cursor + 1] if self.cursor + 1 < len(self.items) else layout.total
        )
        region = Region(0, self.virtual_region.y + top, self.size.width, bottom - top)
        parent = self.parent
        if isinstance(parent, Widget):
            parent.scroll_to_region(region, animate=False, immediate=True)

    def action_thaw(self) -> None:
        """Thaw the entry under the cursor, as a click on it does."""
        if self.cursor is not None and self.cursor < len(self.items):
            item = self.items[self.cursor]
            self.post_message(self.ThawRequested(self, item, keyboard=True))

    def on_click(self, event: events.Click) -> None:
        found = self.item_at(event.y)
        if found is not None and found[0].entry is not None:
            event.stop()
            self.cursor = self.index_of(found[0])
            self.post_message(self.ThawRequested(self, found[0]))

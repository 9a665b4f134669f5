"""EntryLines: conversation entries drawn from their data, as ONE Line-API widget.

The one rendering path for conversation entries. An `EntryItem` is an entry (or a note) with
the function that draws it (`entry_renderables`: ``render(look, width) -> list[Strip]``); an
`EntryLines` widget shows a list of items one after the other. A live entry is an
`EntryLines` with one item, redrawn when the entry changes; the frozen history
(`FrozenHistory`) is an `EntryLines` with many. Both draw with the same functions and the same
`Look`, whose styles are this module's component classes (defined once, here), so an entry
looks the same live and frozen by construction.

Each item keeps its lines for the current width as packed data (`compact_lines`: no `Strip`
the garbage collector has to walk); strips are built only for the lines on the screen (a small
cache keeps the recent ones). A resize or a theme change re-renders.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

from acp_tui.thread.entries import Entry
from acp_tui.ui.compact_lines import EMPTY, PackedLines, StripCache, pack_all
from acp_tui.ui.markdown.render import RenderContext
from acp_tui.ui.widgets.entry_renderables import Look

Render = Callable[[Look, int], list[Strip]]

STYLE_PREFIX = "entry--"

ENTRY_STYLES = """
EntryLines > .entry--user { background: $secondary 10%; }
EntryLines > .entry--user-bar { color: $secondary; background: $secondary 10%; }
EntryLines > .entry--user-bar-not-kept { color: $error; background: $secondary 10%; }
EntryLines > .entry--not-kept { color: $error; }
EntryLines > .entry--title { color: $block-cursor-blurred-foreground; }
EntryLines > .entry--resource-title {
    background: $surface; color: $block-cursor-blurred-foreground;
}
EntryLines > .entry--card-border { color: $primary 40%; }
EntryLines > .entry--card-border-failed { color: $error; }
EntryLines > .entry--card-border-cancelled { color: $secondary 50%; }
EntryLines > .entry--card-border-running { color: $warning 70%; }
EntryLines > .entry--locations { color: $text-accent; }
EntryLines > .entry--plan-bar { color: $accent 60%; }
EntryLines > .entry--unknown { color: $text-muted; }
EntryLines > .entry--unknown-border { color: $secondary 40%; }
EntryLines > .entry--stop-reason { color: $warning; }
EntryLines > .entry--stop-error { color: $error; text-style: bold; }
EntryLines > .entry--notice { color: $text-muted; text-style: italic; }
EntryLines > .entry--permission-answer { color: $text-muted; }
EntryLines > .entry--auto-answer { color: $success; }
EntryLines > .entry--disk-note { color: $warning; }
EntryLines > .entry--thought { color: $text-muted; text-style: italic; }
EntryLines > .entry--background-mark { color: $accent; text-style: italic; }
EntryLines > .entry--background-bar { color: $accent 60%; }
EntryLines > .entry--cursor { background: $boost; }
"""
"""Every colour an entry is drawn with (the `Look` style names, prefixed ``entry--``)."""


class EntryItem:
    """One entry (or note): how to draw it, and its lines (packed) for one width."""

    __slots__ = ("_lines", "_width", "entry", "lazy", "render", "styles")

    def __init__(self, render: Render, entry: Entry | None = None, *, lazy: bool = False) -> None:
        self.render = render
        self.entry = entry
        """The thread entry this item shows (None for notes and stop reasons)."""
        self.lazy = lazy
        """Drawn only when on the screen: until then its height is estimated (an item of a
        flood: ten thousand tool calls are not drawn to know how tall they are)."""
        self._width = -1
        self._lines: PackedLines = EMPTY
        self.styles: tuple[Style, ...] | None = None
        """The resolved styles its lines are drawn with (those of the widget showing it: an
        item moved to a widget with the same styles keeps its lines; see `_check_styles`)."""

    def drawn(self, width: int) -> bool:
        """Whether the item's lines are cached for `width`."""
        return self._width == width

    def lines(self, look: Look, width: int) -> PackedLines:
        """The item's lines at ``width``, packed (indexing one builds its strip)."""
        if width != self._width:
            self._lines = pack_all(self.render(look, width))
            self._width = width
        return self._lines

    def strips(self, look: Look, width: int) -> list[Strip]:
        """The item's lines at `width`, unpacked into strips."""
        return list(self.lines(look, width))

    def invalidate(self) -> None:
        """Forget the cached lines: the next draw renders the item again."""
        self._width = -1
        self._lines = EMPTY

    @property
    def entry_id(self) -> int | None:
        """The id of the thread entry drawn, if the item draws one."""
        return self.entry.id if self.entry is not None else None


@dataclass(frozen=True)
class ItemLayout:
    """Where each item's lines start, for one width."""

    width: int
    offsets: list[int]  # first line of each item
    total: int


class EntryLines(Widget):
    """Items drawn one after the other from their data, shown through `render_line`."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        f"{STYLE_PREFIX}{name}"
        for name in (
            "user",
            "user-bar",
            "user-bar-not-kept",
            "not-kept",
            "title",
            "resource-title",
            "card-border",
            "card-border-failed",
            "card-border-cancelled",
            "card-border-running",
            "locations",
            "plan-bar",
            "unknown",
            "unknown-border",
            "stop-reason",
            "stop-error",
            "notice",
            "permission-answer",
            "auto-answer",
            "disk-note",
            "thought",
            "background-mark",
            "background-bar",
            "cursor",
        )
    }
    DEFAULT_CSS = "EntryLines { height: auto; width: 1fr; }\n" + ENTRY_STYLES

    def __init__(
        self,
        items: Iterable[EntryItem] = (),
        *,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.items: list[EntryItem] = list(items)
        self._layout: ItemLayout | None = None
        self._look: Look | None = None
        self._markdown: RenderContext | None = None
        self._styles_checked = False
        self._styles_key: tuple[Style, ...] = ()
        self._cache = StripCache(128)
        self._estimate = 3
        """The height of a lazy item not drawn yet: that of the last one drawn."""
        self.cursor: int | None = None
        """Index of the item shown as the cursor while the widget has focus (drawn with the
        ``cursor`` style; a live entry's is its one item)."""

    # ------------------------------------------------------------ items

    def set_items(self, items: Iterable[EntryItem]) -> None:
        """Replace every item and lay them out again (an item drawn with other styles than
        this widget's is drawn again)."""
        self.items = list(items)
        self._styles_checked = False
        self.changed()

    def extend_items(self, items: Iterable[EntryItem]) -> None:
        """Add items after the last one: what is laid out already stays, and only the new
        items are styled and laid out (a turn end adds its entries to a history of hundreds,
        so its cost does not grow with the history)."""
        added = list(items)
        if not added:
            return
        self.items.extend(added)
        if self._styles_checked:
            self._restyle(added)  # (laid out below: nothing above them moves)
        layout = self._layout
        if layout is not None:
            offsets, total = layout.offsets, layout.total
            look = self.look
            for item in added:
                offsets.append(total)
                total += self._item_height(item, look, layout.width)
            self._layout = ItemLayout(layout.width, offsets, total)  # (the strips cached
            # for the lines above stay right)
        else:
            self._cache.clear()
        self.refresh(layout=True)

    def index_of(self, item: EntryItem) -> int:
        """The position of `item` (by identity)."""
        return next(i for i, candidate in enumerate(self.items) if candidate is item)

    def item_changed(self, item: EntryItem) -> None:
        """``item``'s entry changed: draw it again."""
        item.invalidate()
        self.changed()

    def changed(self) -> None:
        """Something changed what the items draw (their number, their lines)."""
        self._layout = None
        self._cache.clear()
        self.refresh(layout=True)

    # ------------------------------------------------------------ rendering

    @property
    def look(self) -> Look:
        """The console, Markdown context and styles every item is drawn with."""
        if self._look is None:
            if self._markdown is None:
                self._markdown = RenderContext(self.app.console)
            self._look = Look(
                console=self.app.console,
                options=self.app.console_options,
                markdown=self._markdown,
                style=self.entry_style,
            )
        return self._look

    def entry_style(self, name: str) -> Style:
        """The resolved style called ``name`` in the `Look` ("base": the widget's own)."""
        if name == "base":
            return self.rich_style
        return self.get_component_rich_style(f"{STYLE_PREFIX}{name}")

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles_checked = False

    def _check_styles(self) -> None:
        """Draw again every item drawn with other styles than this widget's (the theme or CSS
        changed what the items look like, or the item was drawn by another widget)."""
        self._styles_checked = True
        key = (
            self.rich_style,
            *(self.get_component_rich_style(n) for n in sorted(self.COMPONENT_CLASSES)),
        )
        if key != self._styles_key:
            self._styles_key = key
            self._layout = None
            self._cache.clear()
        if self._restyle(self.items):
            self._layout = None
            self._cache.clear()

    def _restyle(self, items: list[EntryItem]) -> bool:
        """Forget the lines of each of `items` drawn with other styles than this widget's
        (drawn again when next laid out); whether any was."""
        key = self._styles_key
        restyled = False
        for item in items:
            if item.styles is not key:
                if item.styles != key:
                    item.invalidate()
                    restyled = True
                item.styles = key
        return restyled

    def layout_for(self, width: int) -> ItemLayout:
        """Where each item's lines start at `width`, computed once per width and change."""
        if not self._styles_checked:
            self._check_styles()
        layout = self._layout
        if layout is None or layout.width != width:
            look = self.look
            offsets: list[int] = []
            total = 0
            for item in self.items:
                offsets.append(total)
                total += self._item_height(item, look, width)
            layout = self._layout = ItemLayout(width, offsets, total)
            self._cache.clear()
        return layout

    def _item_height(self, item: EntryItem, look: Look, width: int) -> int:
        """Lines `item` takes at `width` (estimated for a lazy item not drawn yet)."""
        if item.lazy and not item.drawn(width):
            return self._estimate
        return len(item.lines(look, width))

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.layout_for(width).total if width > 0 else 0

    def item_at(self, y: int) -> tuple[EntryItem, int] | None:
        """The item shown on line ``y`` and the line's index within the item."""
        layout = self.layout_for(self.size.width)
        if not self.items or not 0 <= y < layout.total:
            return None
        index = bisect_right(layout.offsets, y) - 1
        return self.items[index], y - layout.offsets[index]

    def decorate(self, strip: Strip, item: EntryItem) -> Strip:
        """How ``item``'s line is shown: with the cursor style if it is the focused cursor."""
        if self.has_focus and self.cursor is not None and self.items[self.cursor] is item:
            cursor = self.get_component_rich_style(f"{STYLE_PREFIX}cursor")
            return Strip(Segment.apply_style(strip, post_style=cursor), strip.cell_length)
        return strip

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        found = self.item_at(y)
        if found is None:
            return Strip.blank(width, self.rich_style)
        cached = self._cache.get(y)
        if cached is not None:
            return cached
        item, line = found
        guessed = item.lazy and not item.drawn(width)
        lines = item.lines(self.look, width)
        if guessed:
            self._estimate = len(lines)  # (items of a flood look alike)
            layout = self.layout_for(width)
            index = bisect_right(layout.offsets, y) - 1
            end = layout.offsets[index + 1] if index + 1 < len(self.items) else layout.total
            if end - layout.offsets[index] != len(lines):
                self.changed()  # the estimate was wrong: lay out again with the real height
        if line >= len(lines):
            return Strip.blank(width, self.rich_style)
        return self._cache.put(y, self.decorate(lines[line], item))

    def repaint(self) -> None:
        """Paint again without drawing the items again (a cursor moved)."""
        self._cache.clear()
        self.refresh()

    def drop_strips(self) -> None:
        """Forget the strips built for the screen (built again when next painted; the turn
        end's collection frees them: see `acp_tui.ui.collector`)."""
        self._cache.clear()

    def on_focus(self) -> None:
        """Repaint to show the focused look."""
        self.repaint()

    def on_blur(self) -> None:
        """Repaint to show the unfocused look."""
        self.repaint()

    @property
    def text(self) -> str:
        """Plain text of every line (for tests)."""
        width = self.size.width or 80
        look = self.look
        return "\n".join(
            line.rstrip() for item in self.items for line in item.lines(look, width).texts()
        )

"""Rendered lines kept as plain data, turned back into `Strip`s only when shown.

A `Strip` is a list of `Segment`s, each a tuple holding a `Style`: about a dozen objects the
garbage collector tracks, per line. A long conversation keeps tens of thousands of lines that
are not on the screen, and every full collection walks all of them (pauses that grow with the
history). A packed line is one tuple of the line's cell length then ``text, style id`` pairs:
only strings and ints, so the collector stops tracking it after one pass, and nothing in it
refers to a `Style`. Styles are interned in one table for the process (a theme has a few
hundred at most).

`StripCache` keeps the strips most recently built from packed lines (the visible ones).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Iterable
from typing import cast

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

PackedLine = tuple[object, ...]
"""``(cell_length, text0, style_id0, text1, style_id1, ...)``; style id -1 is no style."""

# The interning table of styles, process-wide and safe to share: a `Style` is immutable and the
# same style means the same id in every session and view; it grows with distinct styles (the
# theme's, a few hundred), never with the text drawn.
_styles: list[Style] = []
_style_ids: dict[Style, int] = {}


def style_id(style: Style | None) -> int:
    """The interned id of ``style`` (-1 for None)."""
    if style is None:
        return -1
    found = _style_ids.get(style)
    if found is None:
        found = _style_ids[style] = len(_styles)
        _styles.append(style)
    return found


def pack(strip: Strip) -> PackedLine | Strip:
    """``strip`` as plain data (a strip with control codes is kept as it is: never from us)."""
    packed: list[object] = [strip.cell_length]
    for text, style, control in strip:
        if control:
            return strip
        packed.append(text)
        packed.append(style_id(style))
    return tuple(packed)


def pack_all(strips: Iterable[Strip]) -> list[PackedLine | Strip]:
    return [pack(strip) for strip in strips]


def unpack(line: PackedLine | Strip) -> Strip:
    """The strip a packed line was made from (equal segments, same cell length)."""
    if isinstance(line, Strip):
        return line
    styles = _styles
    texts = cast("tuple[str, ...]", line[1::2])
    ids = cast("tuple[int, ...]", line[2::2])
    segments = [
        Segment(text, styles[index] if index >= 0 else None)
        for text, index in zip(texts, ids, strict=True)
    ]
    return Strip(segments, cast("int", line[0]))


def packed_text(line: PackedLine | Strip) -> str:
    """The plain text of a packed line."""
    if isinstance(line, Strip):
        return line.text
    return "".join(cast("tuple[str, ...]", line[1::2]))


class StripCache:
    """The last ``size`` strips built, by key (least recently used dropped first)."""

    __slots__ = ("_items", "size")

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, Strip] = OrderedDict()

    def get(self, key: Hashable) -> Strip | None:
        strip = self._items.get(key)
        if strip is not None:
            self._items.move_to_end(key)
        return strip

    def put(self, key: Hashable, strip: Strip) -> Strip:
        self._items[key] = strip
        self._items.move_to_end(key)
        if len(self._items) > self.size:
            self._items.popitem(last=False)
        return strip

    def clear(self) -> None:
        self._items.clear()

    def __len__(self) -> int:
        return len(self._items)

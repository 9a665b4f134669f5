"""Rendered lines kept as plain data, turned back into `Strip`s only when shown.

A `Strip` is a list of `Segment`s, each a tuple holding a `Style`: about a dozen objects the
garbage collector tracks, per line. A long conversation keeps tens of thousands of lines that
are not on the screen, and every full collection walks all of them (pauses that grow with the
history). A packed line is one tuple of the line's cell length then ``text, style id`` pairs:
only strings and ints, so the collector stops tracking it after one pass, and nothing in it
refers to a `Style`. The lines of an entry or a finished document are packed together
(`PackedLines`: one string and a few arrays, about the size of their text). Styles are
interned in one table for the process (a theme has a few hundred at most).

`StripCache` keeps the strips most recently built from packed lines (the visible ones).
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Sequence
from typing import cast, overload

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


def pack_all(strips: Iterable[Strip]) -> PackedLines:
    """Many lines (an entry's, a finished document's) packed together: see `PackedLines`."""
    return PackedLines(strips)


class PackedLines(Sequence[Strip]):
    """Lines kept as one string and a few arrays; indexing builds the line's `Strip`.

    Kept one packed tuple per line, a finished turn's lines cost a tuple and a string per
    segment (several times the text they show, for the whole session). Here the segments'
    texts are joined into one string, with arrays of each segment's length and style id, where
    each line's segments start and its cell length: about the text's size plus six bytes a
    segment. A segment of spaces only (the padding to the width) keeps no text, only its
    length (its style id is stored as ``BLANK - id``). A line with control codes (never ours)
    is kept as its strip."""

    __slots__ = ("_cells", "_firsts", "_kept", "_lengths", "_starts", "_styles", "_text")

    def __init__(self, strips: Iterable[Strip] = ()) -> None:
        texts: list[str] = []
        lengths: list[int] = []
        styles: list[int] = []
        firsts: list[int] = []
        cells: list[int] = []
        starts: list[int] = []  # the text position of each line's first segment
        kept: dict[int, Strip] = {}
        position = 0
        for number, strip in enumerate(strips):
            firsts.append(len(styles))
            starts.append(position)
            cells.append(strip.cell_length)
            if any(control for _text, _style, control in strip):
                kept[number] = strip
                continue
            for text, style, _control in strip:
                lengths.append(len(text))
                if text and not text.strip(" "):
                    styles.append(BLANK - style_id(style))
                else:
                    texts.append(text)
                    position += len(text)
                    styles.append(style_id(style))
        firsts.append(len(styles))
        self._text = "".join(texts)
        self._lengths, self._styles = _smallest(lengths), _smallest(styles)
        self._firsts, self._cells, self._starts = (
            _smallest(firsts),
            _smallest(cells),
            _smallest(starts),
        )
        self._kept = kept or None

    def __len__(self) -> int:
        return len(self._cells)

    @overload
    def __getitem__(self, index: int) -> Strip: ...
    @overload
    def __getitem__(self, index: slice) -> list[Strip]: ...
    def __getitem__(self, index: int | slice) -> Strip | list[Strip]:
        if isinstance(index, slice):
            return [self[number] for number in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("line index out of range")
        kept = self._kept.get(index) if self._kept is not None else None
        if kept is not None:
            return kept
        styles, lengths, text, table = self._styles, self._lengths, self._text, _styles
        position = self._starts[index]
        segments = []
        for segment in range(self._firsts[index], self._firsts[index + 1]):
            length, style = lengths[segment], styles[segment]
            if style < -1:  # a space-only segment
                piece = " " * length
                style = BLANK - style
            else:
                piece = text[position : position + length]
                position += length
            segments.append(Segment(piece, table[style] if style >= 0 else None))
        return Strip(segments, self._cells[index])

    def text(self, index: int) -> str:
        """The plain text of line `index`."""
        return self[index].text

    def texts(self) -> list[str]:
        """The plain text of every line."""
        return [self.text(index) for index in range(len(self))]


def _smallest(values: list[int]) -> array[int]:
    """`values` in an array of the smallest item size that holds them all (exactly sized)."""
    low, high = min(values, default=0), max(values, default=0)
    for typecode in ("b", "h", "i") if low < 0 else ("B", "H", "I"):
        limit = 1 << (8 * array(typecode).itemsize - typecode.islower())
        if -limit <= low and high < limit:
            return array(typecode, values)
    return array("q", values)


BLANK = -3
"""A space-only segment's style id is stored as ``BLANK - id`` (below -1: no style is -1)."""

EMPTY = PackedLines()


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

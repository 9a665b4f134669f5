"""A path shortened to a width for a one-line header: the file's name is the part kept.

A path too long for its line loses its head, not its tail: `…/widgets/diff_view.py`, cut at
a separator where one falls in the room, so what shows is whole directory names and the file's
name; a name alone too long keeps its end (`…iew.py`). Widths are in cells (safe text may hold
wide characters).
"""

from __future__ import annotations

from rich.cells import cell_len

from acp_tui.ui.cell_fit import ELLIPSIS, take_tail


def path_tail(path: str, width: int) -> str:
    """`path` in at most `width` cells: whole, or "…" and as much of its tail as fits, from a
    "/" when one is in that tail."""
    if cell_len(path) <= width:
        return path
    if width <= 1:
        return ELLIPSIS[:width]
    tail = take_tail(path, width - 1)
    separator = tail.find("/")
    if 0 < separator < len(tail) - 1:
        tail = tail[separator:]  # (from a separator: no piece of a directory's name)
    return ELLIPSIS + tail

"""The head or the tail of a text that fits in a number of terminal cells (safe text may hold
wide characters), and the ellipsis that stands where a text was cut."""

from __future__ import annotations

from rich.cells import cell_len

ELLIPSIS = "…"


def take_head(value: str, cells: int) -> str:
    """The start of `value` that fits in `cells` cells."""
    used = 0
    for index, char in enumerate(value):
        used += cell_len(char)
        if used > cells:
            return value[:index]
    return value


def take_tail(value: str, cells: int) -> str:
    """The end of `value` that fits in `cells` cells."""
    if cells <= 0:
        return ""
    used = 0
    for index in range(len(value) - 1, -1, -1):
        used += cell_len(value[index])
        if used > cells:
            return value[index + 1 :]
    return value

"""Fitting the tab bar's labels into its width so that every tab stays distinguishable.

A label is `N name: title [state]`. When the labels do not fit, the state becomes a glyph, the
width left is shared fairly between the tabs (a short label keeps all of it, the rest share
what is left) and each name and title is cut in the middle, keeping its head and the tail where
it differs from the other tabs' (the worktree branch's number, the title's end). The index
(alt+N) and the state glyph are never cut. Pure text: no widget, no markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len

from acp_tui.ui.cell_fit import ELLIPSIS, take_head, take_tail

SEPARATOR = " │ "

STATE_GLYPHS = {
    "working": "●",
    "needs you": "!",
    "finished unread": "✓",
    "crashed": "✗",
    "idle": "",
}

# Below this many cells a title is dropped rather than shown as a stub beside the name.
_MIN_TITLE = 4
# What a name every tab shares keeps beside a title that tells the tabs apart.
_MIN_NAME = 8


@dataclass(frozen=True)
class TabParts:
    """One tab as drawn: `key` (`"N "`), `name`, `title` (empty: none), `state` (the word in
    brackets, a glyph, or empty for none)."""

    key: str
    name: str
    title: str
    state: str

    @property
    def label(self) -> str:
        """The key, the name and the title (`N name: title`), without the state."""
        return self.key + ": ".join(part for part in (self.name, self.title) if part)

    @property
    def text(self) -> str:
        """The tab as one string (what a plain reader of the bar sees)."""
        return f"{self.label} {self.state}" if self.state else self.label

    @property
    def width(self) -> int:
        return cell_len(self.text)


@dataclass(frozen=True)
class TabSource:
    """What one tab has to show, already made safe: its name (agent, branch), title and state,
    and whether its state is worth saying (not for the current tab when idle)."""

    name: str
    title: str
    state: str
    show_state: bool


def full_parts(number: int, tab: TabSource) -> TabParts:
    """The tab as it is drawn when there is room: the state as a word."""
    return TabParts(_key(number), tab.name, tab.title, _state_word(tab))


def fit_tabs(tabs: Sequence[TabSource], width: int) -> list[TabParts]:
    """Each tab's parts, fitted into `width` cells (separators included) when they can be."""
    full = [full_parts(number, tab) for number, tab in enumerate(tabs, start=1)]
    separators = cell_len(SEPARATOR) * max(0, len(tabs) - 1)
    if sum(part.width for part in full) + separators <= width:
        return full
    keys = [_key(number) for number in range(1, len(tabs) + 1)]
    glyphs = [_state_glyph(tab) for tab in tabs]
    fixed = [
        cell_len(key) + (cell_len(glyph) + 1 if glyph else 0)
        for key, glyph in zip(keys, glyphs, strict=True)
    ]
    needs = [_content_width(tab.name, tab.title) for tab in tabs]
    shares = fair_shares(needs, width - separators - sum(fixed))
    name_keeps = distinguishing_positions([tab.name for tab in tabs])
    title_keeps = distinguishing_positions([tab.title for tab in tabs])
    names_alone = _distinct([tab.name for tab in tabs])
    titles_alone = _distinct([tab.title for tab in tabs])
    common = (len({tab.name for tab in tabs}) == 1, len({tab.title for tab in tabs}) == 1)
    fitted = []
    for index, tab in enumerate(tabs):
        name, title = _fit_name_title(
            tab,
            shares[index],
            (name_keeps[index], title_keeps[index]),
            (names_alone[index], titles_alone[index]),
            common,
        )
        fitted.append(TabParts(keys[index], name, title, glyphs[index]))
    return fitted


def fair_shares(needs: Sequence[int], total: int) -> list[int]:
    """`total` cells shared between items needing `needs`: no item gets more than it needs,
    and the ones needing more share what the others leave equally (max-min fair)."""
    shares = [0] * len(needs)
    remaining = max(0, total)
    left = len(needs)
    for index in sorted(range(len(needs)), key=lambda i: needs[i]):
        share = min(needs[index], remaining // left)
        shares[index] = share
        remaining -= share
        left -= 1
    return shares


def distinguishing_positions(values: Sequence[str]) -> list[int | None]:
    """For each value, the first position where it differs from the value most like it among
    the others that are not equal to it (None: it equals one of them, or no other differs)."""
    positions: list[int | None] = []
    for index, value in enumerate(values):
        others = [other for j, other in enumerate(values) if j != index and other != value]
        if not value or not others or values.count(value) > 1:
            positions.append(None)
            continue
        common = max(_common_prefix(value, other) for other in others)
        positions.append(min(common, len(value) - 1))
    return positions


def middle_ellipsis(value: str, width: int, keep: int | None = None) -> str:
    """`value` in at most `width` cells: its head, "…", its tail (the tail the larger part).
    `keep`: the index of a character that must stay visible (where it differs from others);
    when neither head nor tail can hold it, a window around it between two ellipses."""
    if cell_len(value) <= width:
        return value
    if width <= 1:
        return ELLIPSIS[:width]
    room = width - 1
    tail_cells = room - room // 3 if room >= 2 else room
    if keep is not None and keep < len(value):
        head_needed = cell_len(value[: keep + 1])
        tail_needed = cell_len(value[keep:])
        if head_needed <= room - tail_cells:
            pass
        elif tail_needed <= room - 1:
            tail_cells = max(tail_cells, tail_needed)
        elif head_needed <= room - 1:
            tail_cells = room - head_needed
        else:
            return _window(value, width, keep)
    head = take_head(value, room - tail_cells)
    tail = take_tail(value, tail_cells)
    return f"{head}{ELLIPSIS}{tail}"


def _window(value: str, width: int, keep: int) -> str:
    """`…middle…` in `width` cells with the character at `keep` inside the middle."""
    if width < 3:
        return ELLIPSIS
    room = width - 2
    start = max(0, keep - room // 3)
    middle = take_head(value[start:], room)
    while start > 0 and keep >= start + len(middle):
        start += 1
        middle = take_head(value[start:], room)
    return f"{ELLIPSIS}{middle}{ELLIPSIS}"


def _fit_name_title(
    tab: TabSource,
    cells: int,
    keeps: tuple[int | None, int | None],
    alone: tuple[bool, bool],
    common: tuple[bool, bool],
) -> tuple[str, str]:
    """The name and title of one tab in `cells` cells (": " between them included). `alone`:
    whether its name, its title, is its own (no other tab's is the same); `common`: whether
    every tab has the same name, the same title (that part gives way to the other)."""
    name_keep, title_keep = keeps
    name_alone, title_alone = alone
    name_common, title_common = common
    if not tab.title:
        return middle_ellipsis(tab.name, cells, name_keep), ""
    if cell_len(tab.name) + 2 + cell_len(tab.title) <= cells:
        return tab.name, tab.title
    room = cells - 2
    if room < 1 + _MIN_TITLE:
        # No room for both: the part that tells this tab from the others, alone.
        if title_alone and not name_alone:
            return "", middle_ellipsis(tab.title, cells, title_keep)
        return middle_ellipsis(tab.name, cells, name_keep), ""
    name_need, title_need = cell_len(tab.name), cell_len(tab.title)
    if title_common and not name_common:  # the name first, the title in what is left
        name_cells = min(name_need, room)
        title_cells = room - name_cells
    elif name_common and not title_common:  # the title first, the name a short head
        title_cells = min(title_need, room - min(name_need, _MIN_NAME))
        name_cells = room - title_cells
    else:
        name_weight = 2 if name_alone and not title_alone else 1
        title_weight = 2 if title_alone and not name_alone else 1
        name_cells, title_cells = _weighted_split(
            (name_need, title_need), (name_weight, title_weight), room
        )
    if title_cells < _MIN_TITLE:
        return middle_ellipsis(tab.name, cells, name_keep), ""
    return (
        middle_ellipsis(tab.name, max(1, name_cells), name_keep),
        middle_ellipsis(tab.title, title_cells, title_keep),
    )


def _weighted_split(
    needs: tuple[int, int], weights: tuple[int, int], total: int
) -> tuple[int, int]:
    """`total` cells for two parts, by weight, neither getting more than it needs."""
    first = total * weights[0] // (weights[0] + weights[1])
    first = min(needs[0], max(1, first))
    second = min(needs[1], total - first)
    first = min(needs[0], total - second)
    return first, second


def _content_width(name: str, title: str) -> int:
    return cell_len(name) + (2 + cell_len(title) if title else 0)


def _key(number: int) -> str:
    return f"{number} " if number <= 9 else ""


def _state_word(tab: TabSource) -> str:
    return f"[{tab.state}]" if tab.show_state else ""


def _state_glyph(tab: TabSource) -> str:
    return STATE_GLYPHS.get(tab.state, "?") if tab.show_state else ""


def _distinct(values: Sequence[str]) -> list[bool]:
    """For each value: whether it is non-empty and no other tab's equals it."""
    return [bool(value) and values.count(value) == 1 for value in values]


def _common_prefix(first: str, second: str) -> int:
    length = 0
    for a, b in zip(first, second, strict=False):
        if a != b:
            break
        length += 1
    return length

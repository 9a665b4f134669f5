"""The rows an inspector shows over a `TrafficStore`: filtered, runs of one update kind grouped.

A row is a frame, or a run of consecutive incoming `session/update` notifications of one
`sessionUpdate` kind (a streamed message is one row, not thousands). Rows are kept as two flat
arrays (first frame, frame count) and extended as frames arrive; nothing is rebuilt per frame.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol, TypeVar

from acp_tui.protocol.traffic import Direction

T_co = TypeVar("T_co", covariant=True)


class FrameView(Protocol):
    """What a filter reads of one frame (a `traffic_store.FrameRecord`)."""

    @property
    def direction(self) -> Direction: ...
    @property
    def is_error(self) -> bool: ...
    @property
    def marks(self) -> Sequence[object]: ...
    @property
    def label(self) -> str: ...


class Column(Protocol[T_co]):
    """One column of a store: a value by frame index (`traffic_columns`)."""

    def __getitem__(self, index: int, /) -> T_co: ...
    def __len__(self) -> int: ...


class FrameColumns(Protocol):
    """What the rows read of a store's columns (a `traffic_store.TrafficStore`, which builds its
    default `RowIndex` itself: this module does not import it)."""

    @property
    def directions(self) -> Column[Direction]: ...
    @property
    def kinds(self) -> Column[str]: ...
    @property
    def updates(self) -> Column[str | None]: ...
    @property
    def error_codes(self) -> Column[int | None]: ...
    @property
    def marks(self) -> Mapping[int, Sequence[object]]: ...

    def __len__(self) -> int: ...
    def label(self, index: int) -> str: ...


@dataclass(frozen=True)
class RowFilter:
    """Which frames the inspector lists: direction, method text, errors or marked frames only, and
    whether runs of one update kind are grouped."""

    direction: Direction | None = None
    method: str = ""
    """Shows frames whose method (or update kind) contains this text."""
    errors_only: bool = False
    marked_only: bool = False
    grouped: bool = True

    @property
    def filters(self) -> bool:
        """True when some frames are hidden."""
        return bool(self.direction or self.method or self.errors_only or self.marked_only)

    def accepts(self, frame: FrameView) -> bool:
        """Whether `frame` is listed under this filter."""
        if self.direction is not None and frame.direction != self.direction:
            return False
        if self.errors_only and not frame.is_error:
            return False
        if self.marked_only and not frame.marks:
            return False
        return not self.method or self.method.lower() in frame.label.lower()

    def with_(self, **changes: object) -> RowFilter:
        """A copy with some fields changed."""
        return replace(self, **changes)  # type: ignore[arg-type]

    def describe(self) -> str:
        """The filter for the inspector's title line, e.g. "sent, method~fs, errors"."""
        parts = []
        if self.direction:
            parts.append("received" if self.direction == "in" else "sent")
        if self.method:
            parts.append(f"method~{self.method}")
        if self.errors_only:
            parts.append("errors")
        if self.marked_only:
            parts.append("marked")
        if not self.grouped:
            parts.append("ungrouped")
        return ", ".join(parts) or "all frames"


class RowIndex:
    """Rows over a store's frames for one filter; `sync()` takes in frames that arrived since.

    It reads the store's columns directly (no per-frame objects): a full scan for a new filter
    touches only strings and numbers."""

    def __init__(self, store: FrameColumns, row_filter: RowFilter | None = None) -> None:
        self.store = store
        self.filter = row_filter or RowFilter()
        self.starts = array("q")
        self.counts = array("q")
        self.scanned = 0
        self._last_key: str | None = None

    def __len__(self) -> int:
        if self._identity:
            return len(self.store)
        return len(self.starts)

    @property
    def _identity(self) -> bool:
        return not self.filter.grouped and not self.filter.filters

    def sync(self) -> bool:
        """Add rows for new frames; True when there are any."""
        store = self.store
        end = len(store)
        if self.scanned == end:
            return False
        if self._identity:
            self.scanned = end
            return True
        row_filter = self.filter
        direction = row_filter.direction
        errors_only = row_filter.errors_only
        marked_only = row_filter.marked_only
        needle = row_filter.method.lower()
        grouped = row_filter.grouped
        directions, kinds, updates = store.directions, store.kinds, store.updates
        error_codes, marks = store.error_codes, store.marks
        label = store.label
        found: dict[str, bool] = {}  # label → contains the needle (labels repeat a lot)
        starts, counts = self.starts, self.counts
        last_key = self._last_key
        for index in range(self.scanned, end):
            if (
                (direction is not None and directions[index] != direction)
                or (errors_only and error_codes[index] is None and kinds[index] != "invalid")
                or (marked_only and index not in marks)
            ):
                last_key = None  # a run is contiguous: its frames are first + 0..count-1
                continue
            if needle:
                name = label(index)
                hit = found.get(name)
                if hit is None:
                    hit = found[name] = needle in name.lower()
                if not hit:
                    last_key = None
                    continue
            key: str | None = None
            if (
                grouped
                and kinds[index] == "notification"
                and directions[index] == "in"
                and index not in marks  # a marked frame stands alone, so its marks stay visible
            ):
                key = updates[index]
            if key is not None and key == last_key:
                counts[-1] += 1
            else:
                starts.append(index)
                counts.append(1)
            last_key = key
        self._last_key = last_key
        self.scanned = end
        return True

    def row(self, row: int) -> tuple[int, int]:
        """(first frame index, number of frames) of a row."""
        if self._identity:
            return row, 1
        return self.starts[row], self.counts[row]

    def row_of(self, frame_index: int) -> int:
        """The row holding a frame (or the nearest row before it, when it is filtered out)."""
        if self._identity:
            return min(frame_index, len(self.store) - 1)
        return max(0, bisect_right(self.starts, frame_index) - 1)

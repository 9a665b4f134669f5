"""Every frame of a session, kept for the inspector and `acp-tui check`: cheap to append.

Frames are stored by column (one list or array per field, an entry per frame), not as one object
per frame: a long session holds 100k frames, and 100k objects are 100k more things for every
full garbage collection to walk (a pass that lands while the inspector opens is felt). The
columns hold only strings, numbers and None (methods and update kinds interned, so a repeated
name is one string), none of which the collector tracks; times, pairs and latencies are
`array`s. A frame keeps its raw text (pretty-printing happens only when one is shown) and the
fields read once on arrival: direction, time, kind, method, id, `sessionUpdate` kind, error
code, the index of its pair (request ↔ response) with the latency, and its conformance marks
(sparse: a dict by index). `FrameRecord` is a view of one frame, made when one is asked for.
The raw texts are kept compressed by blocks (`traffic_raw.RawFrames`): past its budget the
oldest frames' text is dropped (`dropped_texts`; their summaries stay), which the inspector says.

The marks are the inspector's and `check`'s, never the first screen's: a new store does not
check its first frames as they come (the checker validates answers with the protocol models,
whose validators would be built on the way to "ready" for nothing). It keeps their text and
checks them, in order, the first time its marks or schema fit are read, when `CATCH_UP`
frames wait, or when the connection closes; from then on every frame is checked as it comes.
"""

from __future__ import annotations

import json
import logging
import math
from array import array
from collections import Counter, deque
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

from acp_tui.protocol import methods
from acp_tui.protocol.schema_fit import SchemaFit
from acp_tui.protocol.serving import is_valid_id
from acp_tui.protocol.traffic import NOT_PARSED, Direction, TrafficEvent
from acp_tui.protocol.traffic_columns import CodedColumn, SparseColumn
from acp_tui.protocol.traffic_raw import RawFrames
from acp_tui.protocol.traffic_rows import RowIndex

if TYPE_CHECKING:  # (the checker is imported with the first frame checked)
    from acp_tui.protocol.conformance import ConformanceChecker, Mark, MarkKind

FrameKind = Literal["request", "response", "notification", "invalid"]
FRAME_KINDS: tuple[FrameKind, ...] = ("request", "response", "notification", "invalid")
NAMES = 4096
"""Distinct method names (and update kinds) coded; more (names come from the agent) are kept
aside by frame."""

_NO_LATENCY = math.nan
CATCH_UP = 64
"""Frames a new store lets wait unchecked before it checks them all and then checks as they come."""
logger = logging.getLogger("acp_tui.protocol.traffic_store")


class FrameRecord:
    """One frame of a `TrafficStore`, read from its columns. `pair` is the index of the matching
    request/response, or -1. Two views of the same frame of the same store are equal."""

    __slots__ = ("index", "store")

    def __init__(self, store: TrafficStore, index: int) -> None:
        self.store = store
        self.index = index

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, FrameRecord)
            and other.store is self.store
            and other.index == self.index
        )

    def __hash__(self) -> int:
        return hash((id(self.store), self.index))

    def __repr__(self) -> str:
        return f"FrameRecord({self.index}, {self.direction}, {self.kind}, {self.label!r})"

    @property
    def direction(self) -> Direction:
        return self.store.directions[self.index]

    @property
    def time(self) -> float:
        return self.store.times[self.index]

    @property
    def raw(self) -> str:
        """The frame as it crossed the wire; "" when its text was not kept (see `kept`)."""
        return self.store.raws.get(self.index) or ""

    @property
    def kept(self) -> bool:
        """Whether the frame's text is still kept (the oldest are dropped past a budget)."""
        return self.index >= self.store.raws.dropped

    @property
    def kind(self) -> FrameKind:
        return self.store.kinds[self.index]

    @property
    def method(self) -> str | None:
        return self.store.methods[self.index]

    @property
    def id(self) -> Any:
        return self.store.ids[self.index]

    @property
    def update(self) -> str | None:
        """The `sessionUpdate` kind of a `session/update` notification."""
        return self.store.updates[self.index]

    @property
    def error_code(self) -> int | None:
        return self.store.error_codes[self.index]

    @property
    def pair(self) -> int:
        return self.store.pairs[self.index]

    @property
    def latency(self) -> float | None:
        latency = self.store.latencies[self.index]
        return None if math.isnan(latency) else latency

    @property
    def marks(self) -> tuple[Mark, ...]:
        return self.store.marks.get(self.index, ())

    @property
    def is_error(self) -> bool:
        """An error answer, or a frame that is not valid JSON-RPC."""
        return self.store.is_error(self.index)

    @property
    def label(self) -> str:
        """Method (with the update kind for session/update), or what a response answers."""
        return self.store.label(self.index)

    def pretty(self) -> str:
        """The frame as indented JSON (or its raw text if it is not JSON)."""
        try:
            return json.dumps(json.loads(self.raw), indent=2, ensure_ascii=False)
        except (ValueError, RecursionError):
            return self.raw


class Frames(Sequence[FrameRecord]):
    """The store's frames as a sequence of views (made on access)."""

    __slots__ = ("_store",)

    def __init__(self, store: TrafficStore) -> None:
        self._store = store

    def __len__(self) -> int:
        return len(self._store.times)

    @overload
    def __getitem__(self, index: int) -> FrameRecord: ...
    @overload
    def __getitem__(self, index: slice) -> list[FrameRecord]: ...
    def __getitem__(self, index: int | slice) -> FrameRecord | list[FrameRecord]:
        size = len(self)
        if isinstance(index, slice):
            return [FrameRecord(self._store, i) for i in range(*index.indices(size))]
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("frame index out of range")
        return FrameRecord(self._store, index)

    def __iter__(self) -> Iterator[FrameRecord]:
        store = self._store
        for index in range(len(self)):
            yield FrameRecord(store, index)


def _key(request_id: Any) -> tuple[str, Any]:
    return (type(request_id).__name__, request_id)


FPS_WINDOW = 1.0


class TrafficStore:
    """Frames in arrival order, paired and checked as they come. Use `record` as a tap."""

    def __init__(self, raws: RawFrames | None = None) -> None:
        self.directions: CodedColumn[Direction] = CodedColumn("B", ("in", "out"), 255)
        self.times = array("d")
        self.raws = raws if raws is not None else RawFrames()
        """The frames' text, compressed; the oldest dropped past its budget."""
        self.kinds: CodedColumn[FrameKind] = CodedColumn("B", FRAME_KINDS, 255)
        self.methods: CodedColumn[str | None] = CodedColumn("H", (None,), NAMES)
        self.ids: SparseColumn[Any] = SparseColumn(None, self.times.__len__)
        self.updates: CodedColumn[str | None] = CodedColumn("H", (None,), NAMES)
        self.error_codes: SparseColumn[int | None] = SparseColumn(None, self.times.__len__)
        self.pairs: SparseColumn[int] = SparseColumn(-1, self.times.__len__)
        self.latencies: SparseColumn[float] = SparseColumn(_NO_LATENCY, self.times.__len__)
        """Seconds from request to response on both frames of a pair; NaN when there is none."""
        self._marks: dict[int, tuple[Mark, ...]] = {}
        self.frames = Frames(self)
        self._mark_counts: Counter[MarkKind] = Counter()
        self.update_counts: Counter[str] = Counter()
        self.method_counts: Counter[str] = Counter()
        self._schema_fit = SchemaFit()
        self._checker: ConformanceChecker | None = None
        self._unchecked: list[tuple[int, Direction, str]] | None = []
        """The frames not checked yet (index, direction, text); None once the store checks
        each frame as it comes."""
        self._waiting: dict[tuple[Direction, tuple[str, Any]], int] = {}
        self._recent: deque[float] = deque()
        self._labels: dict[tuple[str | None, str | None], str] = {}
        self.rows = RowIndex(self)
        """The default rows (all frames, runs of one update kind grouped), kept up to date."""

    def __len__(self) -> int:
        return len(self.times)

    @property
    def dropped_texts(self) -> int:
        """How many of the oldest frames' text was dropped to keep memory bounded."""
        return self.raws.dropped

    @property
    def marks(self) -> dict[int, tuple[Mark, ...]]:
        """Conformance marks by frame index (only frames that have some)."""
        self._catch_up()
        return self._marks

    @property
    def mark_counts(self) -> Counter[MarkKind]:
        """How many marks of each kind."""
        self._catch_up()
        return self._mark_counts

    @property
    def schema_fit(self) -> SchemaFit:
        """Which ACP schema the agent's frames fit (all connections of the session)."""
        self._catch_up()
        return self._schema_fit

    def record(self, event: TrafficEvent) -> None:
        """The tap: summarise, pair and check one frame (or keep it to check later)."""
        index = len(self.times)
        direction = event.direction
        self.directions.append(direction)
        self.times.append(event.time)
        self.raws.append(event.raw)
        recent = self._recent
        recent.append(event.time)
        while recent[0] < event.time - FPS_WINDOW:  # amortised O(1): each time leaves once
            recent.popleft()
        try:
            parsed: Any = event.frame
            if parsed is NOT_PARSED:
                parsed = json.loads(event.raw)
        except (ValueError, RecursionError):
            parsed = NOT_PARSED
            self._summarise(index, direction, None)
        else:
            try:
                self._summarise(index, direction, parsed)
            except Exception:  # a bug must not leave the columns out of step
                logger.exception("summarising frame %d failed", index)
                self._summarise(index, direction, None)
        unchecked = self._unchecked
        if unchecked is None:
            self._check(index, direction, parsed)
            self.rows.sync()
        else:  # (the text, not the parsed frame: a handler may still change that; the rows
            # group by marks, so they wait too: the inspector syncs them when it opens)
            unchecked.append((index, direction, event.raw))
            if len(unchecked) >= CATCH_UP:
                self._catch_up()

    def _check(self, index: int, direction: Direction, parsed: Any) -> None:
        """Check one frame (`NOT_PARSED`: not JSON) and keep its marks."""
        checker = self._checker
        if checker is None:
            from acp_tui.protocol.conformance import ConformanceChecker

            checker = self._checker = ConformanceChecker(self._schema_fit)
        try:
            if parsed is NOT_PARSED:
                if direction == "in":
                    from acp_tui.protocol.conformance import Mark, MarkKind

                    self._mark(index, [Mark(MarkKind.NOT_JSON_RPC, "not JSON")])
            elif direction == "in":
                self._mark(index, checker.incoming(parsed))
            else:
                checker.outgoing(index, parsed)
        except Exception:
            logger.exception("checking frame %d failed", index)

    def _catch_up(self) -> None:
        """Check the frames kept unchecked, in order; from now on each is checked as it comes."""
        unchecked, self._unchecked = self._unchecked, None
        if unchecked is None:
            return
        for index, direction, raw in unchecked:
            try:
                parsed: Any = json.loads(raw)
            except (ValueError, RecursionError):
                parsed = NOT_PARSED
            self._check(index, direction, parsed)
        self.rows.sync()  # (a sync that asked for the marks finds its frames taken in)

    def connection_closed(self) -> None:
        """The connection ended: requests of ours still waiting are marked never answered."""
        self._catch_up()
        if self._checker is not None:
            for index, mark in self._checker.finish():
                self._mark(index, [mark])
        self._checker = None  # (the next connection's: made with its first frame)
        self._waiting.clear()

    def frames_per_second(self, now: float) -> int:
        """How many frames were stored in the `FPS_WINDOW` (one second) before `now`."""
        recent = self._recent
        while recent and recent[0] < now - FPS_WINDOW:
            recent.popleft()
        return len(recent)

    def marked(self) -> list[FrameRecord]:
        """The frames with conformance marks, in order."""
        return [FrameRecord(self, index) for index in sorted(self.marks)]  # (caught up)

    def is_error(self, index: int) -> bool:
        """Whether frame `index` is an error answer or not valid JSON-RPC."""
        return self.error_codes[index] is not None or self.kinds[index] == "invalid"

    def label(self, index: int) -> str:
        """Frame `index`'s method (with the update kind for session/update), or what a response
        answers; "?" when there is neither."""
        key = (self.methods[index], self.updates[index])
        label = self._labels.get(key)
        if label is None:
            method, update = key
            label = f"{method or '?'} {update}" if update else method or "?"
            if len(self._labels) < 4096:  # names come from the agent: keep the cache bounded
                self._labels[key] = label
        return label

    def _mark(self, index: int, marks: list[Mark]) -> None:
        if marks:
            self._marks[index] = (*self._marks.get(index, ()), *marks)
            self._mark_counts.update(mark.kind for mark in marks)

    def _summarise(self, index: int, direction: Direction, parsed: Any) -> None:
        kind: FrameKind = "invalid"
        method: str | None = None
        frame_id: Any = None
        update: str | None = None
        error_code: int | None = None
        if type(parsed) is dict:
            name = parsed.get("method")
            frame_id = parsed.get("id")
            if not is_valid_id(frame_id):  # an object, array or bool: JSON-RPC allows none
                name, frame_id = name if isinstance(name, str) else None, None
                if name is not None:
                    method = name
                    self.method_counts[method] += 1
            elif isinstance(name, str):
                method = name
                self.method_counts[method] += 1
                if "id" in parsed:
                    kind = "request"
                    self._waiting[(direction, _key(frame_id))] = index
                else:
                    kind = "notification"
                    if method == methods.SESSION_UPDATE:
                        params = parsed.get("params")
                        body = params.get("update") if type(params) is dict else None
                        found = body.get("sessionUpdate") if type(body) is dict else None
                        if isinstance(found, str):
                            update = found
                            self.update_counts[update] += 1
            elif "result" in parsed or "error" in parsed:
                kind = "response"
                if "error" in parsed:
                    error = parsed["error"]
                    code = error.get("code") if type(error) is dict else None
                    error_code = code if type(code) is int else 0
                asker: Direction = "out" if direction == "in" else "in"
                request = self._waiting.pop((asker, _key(frame_id)), None)
                if request is not None:
                    method = self.methods[request]
                    self.pairs[index], self.pairs[request] = request, index
                    latency = self.times[index] - self.times[request]
                    self.latencies[index] = self.latencies[request] = latency
        self.kinds.append(kind)
        self.methods.append(method)
        self.updates.append(update)
        if frame_id is not None:
            self.ids[index] = frame_id
        if error_code is not None:
            self.error_codes[index] = error_code

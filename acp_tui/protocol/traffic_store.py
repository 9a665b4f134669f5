"""Every frame of a session, kept for the inspector and `acp-tui check`: cheap to append.

Each frame keeps its raw text (pretty-printing happens only when one is shown) and a handful of
fields read once on arrival: direction, time, kind, method, id, `sessionUpdate` kind, error code,
the index of its pair (request ↔ response) with the latency, and its conformance marks.
"""

from __future__ import annotations

import json
from collections import Counter, deque
from typing import Any, Literal

from acp_tui.protocol.conformance import ConformanceChecker, Mark, MarkKind
from acp_tui.protocol.traffic import Direction, TrafficEvent
from acp_tui.protocol.traffic_rows import RowIndex

FrameKind = Literal["request", "response", "notification", "invalid"]


class FrameRecord:
    """One frame, summarised. `pair` is the index of the matching request/response, or -1."""

    __slots__ = (
        "direction",
        "error_code",
        "id",
        "index",
        "kind",
        "latency",
        "marks",
        "method",
        "pair",
        "raw",
        "time",
        "update",
    )

    def __init__(self, index: int, direction: Direction, time: float, raw: str) -> None:
        self.index = index
        self.direction: Direction = direction
        self.time = time
        self.raw = raw
        self.kind: FrameKind = "invalid"
        self.method: str | None = None
        self.id: Any = None
        self.update: str | None = None
        self.error_code: int | None = None
        self.pair = -1
        self.latency: float | None = None
        self.marks: tuple[Mark, ...] = ()

    @property
    def is_error(self) -> bool:
        """An error answer, or a frame that is not valid JSON-RPC."""
        return self.error_code is not None or self.kind == "invalid"

    @property
    def label(self) -> str:
        """Method (with the update kind for session/update), or what a response answers."""
        name = self.method or "?"
        if self.update:
            name = f"{name} {self.update}"
        return name

    def pretty(self) -> str:
        """The frame as indented JSON (or its raw text if it is not JSON)."""
        try:
            return json.dumps(json.loads(self.raw), indent=2, ensure_ascii=False)
        except (ValueError, RecursionError):
            return self.raw


def _key(request_id: Any) -> tuple[str, Any]:
    return (type(request_id).__name__, request_id)


FPS_WINDOW = 1.0


class TrafficStore:
    """Frames in arrival order, paired and checked as they come. Use `record` as a tap."""

    def __init__(self) -> None:
        self.frames: list[FrameRecord] = []
        self.mark_counts: Counter[MarkKind] = Counter()
        self.update_counts: Counter[str] = Counter()
        self.method_counts: Counter[str] = Counter()
        self._checker = ConformanceChecker()
        self._waiting: dict[tuple[Direction, tuple[str, Any]], int] = {}
        self._recent: deque[float] = deque()
        self.rows = RowIndex(self.frames)
        """The default rows (all frames, runs of one update kind grouped), kept up to date."""

    def __len__(self) -> int:
        return len(self.frames)

    def record(self, event: TrafficEvent) -> None:
        """The tap: summarise, pair and check one frame."""
        frame = FrameRecord(len(self.frames), event.direction, event.time, event.raw)
        self.frames.append(frame)
        recent = self._recent
        recent.append(event.time)
        while recent[0] < event.time - FPS_WINDOW:  # amortised O(1): each time leaves once
            recent.popleft()
        try:
            parsed: Any = json.loads(event.raw)
        except (ValueError, RecursionError):
            parsed = None
            if event.direction == "in":
                self._mark(frame, [Mark(MarkKind.NOT_JSON_RPC, "not JSON")])
        else:
            self._summarise(frame, parsed)
            if event.direction == "in":
                self._mark(frame, self._checker.incoming(parsed))
            else:
                self._checker.outgoing(frame.index, parsed)
        self.rows.sync()

    def connection_closed(self) -> None:
        """The connection ended: requests of ours still waiting are marked never answered."""
        for index, mark in self._checker.finish():
            self._mark(self.frames[index], [mark])
        self._checker = ConformanceChecker()
        self._waiting.clear()

    def frames_per_second(self, now: float) -> int:
        """How many frames were stored in the `FPS_WINDOW` (one second) before `now`."""
        recent = self._recent
        while recent and recent[0] < now - FPS_WINDOW:
            recent.popleft()
        return len(recent)

    def marked(self) -> list[FrameRecord]:
        """The frames with conformance marks, in order."""
        return [frame for frame in self.frames if frame.marks]

    def _mark(self, frame: FrameRecord, marks: list[Mark]) -> None:
        if marks:
            frame.marks = (*frame.marks, *marks)
            self.mark_counts.update(mark.kind for mark in marks)

    def _summarise(self, frame: FrameRecord, parsed: Any) -> None:
        if type(parsed) is not dict:
            return
        method = parsed.get("method")
        has_id = "id" in parsed
        frame.id = parsed.get("id")
        if isinstance(method, str):
            frame.method = method
            self.method_counts[method] += 1
            if has_id:
                frame.kind = "request"
                self._waiting[(frame.direction, _key(frame.id))] = frame.index
            else:
                frame.kind = "notification"
                if method == "session/update":
                    params = parsed.get("params")
                    update = params.get("update") if type(params) is dict else None
                    kind = update.get("sessionUpdate") if type(update) is dict else None
                    if isinstance(kind, str):
                        frame.update = kind
                        self.update_counts[kind] += 1
        elif "result" in parsed or "error" in parsed:
            frame.kind = "response"
            error = parsed.get("error")
            if "error" in parsed:
                code = error.get("code") if type(error) is dict else None
                frame.error_code = code if type(code) is int else 0
            asker: Direction = "out" if frame.direction == "in" else "in"
            index = self._waiting.pop((asker, _key(frame.id)), None)
            if index is not None:
                request = self.frames[index]
                frame.method = request.method
                frame.pair, request.pair = index, frame.index
                frame.latency = request.latency = frame.time - request.time

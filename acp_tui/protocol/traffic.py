"""Every frame that crosses the wire, as seen by taps (the inspector, `acp-tui --log FILE`)."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

logger = logging.getLogger(__name__)

Direction = Literal["in", "out"]


@dataclass(frozen=True, slots=True)
class TrafficEvent:
    """One frame: `raw` is the line exactly as sent or received, without its newline."""

    direction: Direction
    time: float  # time.time() when the frame was read or written
    raw: str


class JsonlTrafficLog:
    """A tap that appends one JSON object per frame to a file.

    Each line is `{"dir": "in"|"out", "t": <unix time>, "frame": <the frame>}`; a frame that is
    not valid JSON is kept as its raw string. The file is flushed after every line. I/O errors
    are logged once and then the log stops writing: the app never crashes because of it.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._file: IO[str] | None = None
        self._failed = False

    def __call__(self, event: TrafficEvent) -> None:
        if self._failed:
            return
        frame: Any
        try:
            frame = json.loads(event.raw)
        except (ValueError, RecursionError):
            frame = event.raw
        try:
            line = json.dumps(
                {"dir": event.direction, "t": event.time, "frame": frame}, ensure_ascii=False
            )
        except (ValueError, RecursionError):
            line = json.dumps({"dir": event.direction, "t": event.time, "frame": event.raw})
        try:
            if self._file is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = self.path.open("a", encoding="utf-8")
            self._file.write(line + "\n")
            self._file.flush()
        except OSError as exc:
            self._failed = True
            logger.warning("traffic log %s disabled: %s", self.path, exc)

    def close(self) -> None:
        if self._file is not None:
            try:
                self._file.close()
            except OSError as exc:
                logger.warning("closing traffic log %s: %s", self.path, exc)
            self._file = None

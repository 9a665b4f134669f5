"""Every frame that crosses the wire, as seen by taps (the inspector, `acp-tui --log FILE`)."""

from __future__ import annotations

import asyncio
import atexit
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal, Protocol

logger = logging.getLogger(__name__)

Direction = Literal["in", "out"]

NOT_PARSED: Final[Any] = type("NotParsed", (), {"__repr__": lambda self: "NOT_PARSED"})()
"""`TrafficEvent.frame` when nobody parsed the line (JSON ``null`` parses to None)."""


@dataclass(frozen=True, slots=True)
class TrafficEvent:
    """One frame: `raw` is the line exactly as sent or received, without its newline."""

    direction: Direction
    time: float  # time.time() when the frame was read or written
    raw: str
    json_ok: bool | None = None
    """True when the connection already knows `raw` is valid JSON (it encoded or parsed it);
    None when nobody checked."""
    frame: Any = NOT_PARSED
    """The value the connection parsed `raw` into (an incoming frame), so that taps need not
    parse it again; taps must not change it (the connection acts on it after them)."""


FLUSH_SECONDS = 0.25
"""Buffered lines reach the file at most this long after they were logged (and at close)."""
BUFFER_BYTES = 256 * 1024
"""Lines buffered beyond this are written at once, without waiting for the scheduled flush."""


class LineSink(Protocol):
    """Where the log's lines go: a file the host opened (`acp_tui.host.append_log.AppendLog`);
    the protocol layer opens no file itself."""

    def append(self, data: bytes, *, patient: bool = False) -> bool:
        """Append whole lines in one piece; False when it cannot now (try again later), unless
        `patient`."""
        ...

    def close(self) -> None:
        """Close the file."""
        ...


LogOpener = Callable[[Path], LineSink]
"""Opens the log file at a path (`acp_tui.host.append_log.open_append_log`); raises `OSError`."""


class JsonlTrafficLog:
    """A tap that appends one JSON object per frame to a file.

    Each line is `{"dir": "in"|"out", "t": <unix time>, "frame": <the frame>}`; a frame that is
    not valid JSON is kept as its raw string. A valid frame is written as it came (not parsed
    and dumped again). The file is opened by `opener` at the first frame (the host's rules: no
    symlink followed, locked against another acp-tui logging there). Lines are buffered: on an
    event loop the buffer is written `FLUSH_SECONDS` after the first unwritten line (later
    again while another process holds the file's lock), without one at once; always by
    `flush()`, `close()` and at interpreter exit. I/O errors are logged once (and told to
    `on_failure`, the reason in words) and then the log stops writing: the app never crashes
    because of it.
    """

    def __init__(
        self, path: str | Path, opener: LogOpener, on_failure: Callable[[str], None] | None = None
    ) -> None:
        self.path = Path(path)
        self._opener = opener
        self._on_failure = on_failure
        self._sink: LineSink | None = None
        self._pending: list[str] = []
        self._pending_size = 0
        self._failed = False
        self._flush_scheduled = False

    def __call__(self, event: TrafficEvent) -> None:
        if self._failed:
            return
        if self._sink is None:
            try:
                self._sink = self._opener(self.path)
            except OSError as exc:
                self._fail(exc)
                return
            atexit.register(self.flush)
        line = _log_line(event)
        self._pending.append(line)
        self._pending_size += len(line)
        if self._pending_size > BUFFER_BYTES:
            self._write(patient=self._pending_size > 8 * BUFFER_BYTES)
            if self._failed or not self._pending:
                return
        self._schedule_flush()

    def _schedule_flush(self) -> None:
        if self._flush_scheduled:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.flush()
            return
        self._flush_scheduled = True
        loop.call_later(FLUSH_SECONDS, self._flush_soon)

    def _flush_soon(self) -> None:
        self._flush_scheduled = False
        if not self._write(patient=False):
            self._schedule_flush()  # another acp-tui is writing this file: in a moment

    def flush(self) -> None:
        """Write what is buffered to the file now (scheduled within `FLUSH_SECONDS` of a frame, and
        at exit)."""
        self._flush_scheduled = False
        self._write(patient=True)

    def _write(self, *, patient: bool) -> bool:
        """Write the buffered lines; False when they wait for another writer's lock."""
        if not self._pending or self._failed or self._sink is None:
            return True
        try:
            if not self._sink.append("".join(self._pending).encode("utf-8"), patient=patient):
                return False
        except OSError as exc:
            self._fail(exc)
            return True
        self._pending.clear()
        self._pending_size = 0
        return True

    def _fail(self, exc: Exception) -> None:
        self._failed = True
        self._pending.clear()
        logger.warning("traffic log %s disabled: %s", self.path, exc)
        if self._on_failure is not None:
            strerror, filename = getattr(exc, "strerror", None), getattr(exc, "filename", None)
            self._on_failure(f"{filename}: {strerror}" if strerror and filename else str(exc))

    def close(self) -> None:
        """Flush and close the file; later frames are not written."""
        self.flush()
        self._failed = True
        if self._sink is not None:
            atexit.unregister(self.flush)
            try:
                self._sink.close()
            except OSError as exc:
                logger.warning("closing traffic log %s: %s", self.path, exc)
            self._sink = None


def _log_line(event: TrafficEvent) -> str:
    raw = event.raw
    head = f'{{"dir":"{event.direction}","t":{event.time!r},"frame":'
    if event.json_ok is None:  # not checked by the connection: check here
        try:
            json.loads(raw)
        except (ValueError, RecursionError):
            return head + json.dumps(raw, ensure_ascii=False) + "}\n"
    elif not event.json_ok:
        return head + json.dumps(raw, ensure_ascii=False) + "}\n"
    if "\r" in raw:  # in valid JSON only whitespace between tokens; it would split the line
        raw = raw.replace("\r", " ")
    return head + raw + "}\n"


def tab_log_path(path: Path, tab: int) -> Path:
    """The `--log` file of the app's `tab`-th session: `path` itself for the first, then
    `<stem>.tab<N><suffix>` beside it (`log.jsonl` → `log.tab2.jsonl`): each tab records its
    own agent, and each file replays on its own."""
    if tab <= 1:
        return path
    return path.with_name(f"{path.stem}.tab{tab}{path.suffix}")


def is_tab_log_of(candidate: Path, path: Path) -> bool:
    """Whether `candidate` is the `--log` file of a later tab of the app logging to `path`."""
    if candidate.parent != path.parent:
        return False
    name, stem, suffix = candidate.name, path.stem, path.suffix
    if not (name.startswith(f"{stem}.tab") and name.endswith(suffix)):
        return False
    number = name[len(stem) + 4 : len(name) - len(suffix) if suffix else None]
    return number.isdigit()

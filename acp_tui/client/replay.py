"""`acp-tui --replay FILE.jsonl`: a recorded `--log` session shown again, with no agent running.

The log's frames are fed to the session in order, at the recorded pace times `speed` (0: as
fast as possible), or one at a time while paused. Nothing is executed: the agent's requests
(files, terminals, permissions) are "answered" by the client's recorded responses, which are
simply replayed as the next frames. Going back rebuilds the thread from the first frame.

The file is read as the connection reads an agent: in blocks, with the frame cap
(`max_frame_bytes`); a line over it is skipped as it streams in, and a line that is not a log
entry (not JSON, nested too deep for the parser, no direction) is skipped; both are counted
into notes shown when the replay starts. What is kept of each frame is where it is in the file
and when it was recorded (`RecordedFrames`, 24 bytes a frame): a frame is read again from the
file (kept open) when it is applied, so a replay holds what a live session holds (the traffic
store, the conversation), not the recording: 1M frames held as objects took 2 GB.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, overload

from acp_tui.client.events import Notice, SessionState
from acp_tui.client.permission_state import show_permissions_in
from acp_tui.client.session.agent_session import AgentSession
from acp_tui.client.session.open import apply_session_setup
from acp_tui.client.ui_port import ClientUi
from acp_tui.host.local_files import LocalFileError, open_regular
from acp_tui.protocol import methods
from acp_tui.protocol.connection import DEFAULT_MAX_FRAME_BYTES
from acp_tui.protocol.line_reader import READ_BLOCK, read_file_lines
from acp_tui.protocol.models import (
    AgentCapabilities,
    Implementation,
    LoadSessionResponse,
    PromptResponse,
    ToolCallUpdate,
    parse_content_block,
)
from acp_tui.protocol.traffic import Direction, TrafficEvent
from acp_tui.protocol.traffic_store import TrafficStore
from acp_tui.signal import Signal
from acp_tui.thread.thread import Thread

LOG_ENTRY_BYTES = 4096
"""Room a log line takes around its frame (`{"dir": ..., "t": ..., "frame": ...}`)."""
SHOWN_LINE_NUMBERS = 5
MAX_GAP = 5.0
"""Longer pauses in the recording are shortened to this (seconds, before `speed`)."""


@dataclass(frozen=True, slots=True)
class LoggedFrame:
    direction: Direction
    time: float
    raw: str
    frame: Any  # the parsed frame, or None when the line was not JSON


class ReplayError(Exception):
    """The file is not a `--log` recording."""


class RecordedFrames(Sequence[LoggedFrame]):
    """The frames of a recording, read again from its file when asked: only each frame's offset,
    length and time are held (the file stays open until `close`; read by position)."""

    def __init__(self, file: BinaryIO) -> None:
        self._file = file
        self._offsets = array("q")
        self._lengths = array("q")
        self.times = array("d")
        """Each frame's recorded time (the replay's pace reads them without the frames)."""
        self._recent: dict[int, LoggedFrame] = {}

    def add(self, offset: int, length: int, time: float) -> None:
        self._offsets.append(offset)
        self._lengths.append(length)
        self.times.append(time)

    def __len__(self) -> int:
        return len(self.times)

    @overload
    def __getitem__(self, index: int) -> LoggedFrame: ...
    @overload
    def __getitem__(self, index: slice) -> list[LoggedFrame]: ...
    def __getitem__(self, index: int | slice) -> LoggedFrame | list[LoggedFrame]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("frame index out of range")
        found = self._recent.get(index)
        if found is None:
            found = self._read(index)
            if len(self._recent) >= 4:
                self._recent.clear()
            self._recent[index] = found
        return found

    def _read(self, index: int) -> LoggedFrame:
        line = os.pread(self._file.fileno(), self._lengths[index], self._offsets[index])
        found = _logged_frame(line)
        if found is None:  # the file changed since it was read: shown as a frame that is not JSON
            return LoggedFrame("in", self.times[index], line.decode("utf-8", "replace"), None)
        return found

    def close(self) -> None:
        self._file.close()


@dataclass
class _Skipped:
    """Lines skipped for one reason: how many, and the first few line numbers."""

    count: int = 0
    first: tuple[int, ...] = ()

    def add(self, number: int) -> None:
        self.count += 1
        if len(self.first) < SHOWN_LINE_NUMBERS:
            self.first = (*self.first, number)


def load_log(
    path: Path,
    *,
    max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES,
    problems: list[str] | None = None,
    block_size: int = READ_BLOCK,
) -> RecordedFrames:
    """The frames of a `--log` file, read in blocks of `block_size`. Lines longer than
    `max_frame_bytes` (plus a log entry's wrapping) and lines that are not log entries are
    skipped; what was skipped is added to `problems`, one message per kind. The file stays
    open for the frames to be read again (`RecordedFrames.close`)."""
    too_long = _Skipped()
    unreadable = _Skipped()
    number = 0
    offset = 0

    try:
        file = open_regular(path.absolute())
    except LocalFileError as error:
        raise ReplayError(str(error)) from error
    except OSError as error:
        raise ReplayError(f"cannot read {path}: {error.strerror or error}") from error
    frames = RecordedFrames(file)

    def on_line(line: bytes) -> None:
        nonlocal number, offset
        number += 1
        start, offset = offset, offset + len(line) + 1
        if not line.strip():
            return
        frame = _logged_frame(line)
        if frame is None:
            unreadable.add(number)
        else:
            frames.add(start, len(line), frame.time)

    def on_discarded(length: int) -> None:
        nonlocal number, offset
        number += 1
        offset += length + 1
        too_long.add(number)

    try:
        read_file_lines(file, max_frame_bytes + LOG_ENTRY_BYTES, on_line, on_discarded, block_size)
    except OSError as error:
        frames.close()
        raise ReplayError(f"cannot read {path}: {error.strerror or error}") from error
    notes = problems if problems is not None else []
    if too_long.count:
        limit = f"the {max_frame_bytes:,}-byte frame limit (setting max_frame_bytes)"
        notes.append(f"{path}: skipped {_lines(too_long)}: longer than {limit}")
    if unreadable.count:
        kinds = "not JSON, nested too deep, or not a frame"
        notes.append(f"{path}: skipped {_lines(unreadable)}: not a log entry ({kinds})")
    if not frames:
        frames.close()
        raise ReplayError(f"{path} has no recorded frames (is it an `acp-tui --log` file?)")
    return frames


def _logged_frame(line: bytes) -> LoggedFrame | None:
    """The frame a log line records, or None when it is not a log entry."""
    try:
        entry = json.loads(line.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):  # not JSON, or nested deeper than the parser goes
        return None
    if type(entry) is not dict or entry.get("dir") not in ("in", "out"):
        return None
    t = entry.get("t")
    frame = entry.get("frame")
    try:
        raw = frame if isinstance(frame, str) else json.dumps(frame, ensure_ascii=False)
    except (ValueError, RecursionError):
        return None
    parsed = frame if isinstance(frame, dict) else None
    return LoggedFrame(entry["dir"], float(t) if isinstance(t, int | float) else 0.0, raw, parsed)


def _lines(skipped: _Skipped) -> str:
    """ "3 lines (2, 5, 9)": how many, and the first few line numbers."""
    shown = ", ".join(str(n) for n in skipped.first)
    more = ", …" if skipped.count > SHOWN_LINE_NUMBERS else ""
    if skipped.count == 1:
        return f"line {shown}"
    return f"{skipped.count} lines ({shown}{more})"


class ReplaySession(AgentSession):
    """An `AgentSession` fed from a recording instead of an agent process."""

    def __init__(
        self,
        frames: Sequence[LoggedFrame],
        cwd: Path,
        ui: ClientUi,
        *,
        speed: float = 1.0,
        paused: bool = False,
        notes: Sequence[str] = (),
        **kwargs: Any,
    ) -> None:
        """``notes``: what reading the recording skipped, shown when the replay starts."""
        super().__init__(["replay"], cwd, ui, **kwargs)
        self.frames: Sequence[LoggedFrame] = (
            frames if isinstance(frames, RecordedFrames) else list(frames)
        )
        self._times = (
            frames.times
            if isinstance(frames, RecordedFrames)
            else array("d", (frame.time for frame in self.frames))
        )
        self.notes = list(notes)
        self.position = 0
        """How many frames have been applied."""
        self.speed = speed
        self.paused = paused
        self.progress: Signal[ReplaySession] = Signal("replay progress")
        self.rebuilt: Signal[ReplaySession] = Signal("replay rebuilt")
        """The thread was replaced (after going back): views must bind to the new one."""
        self._wake = asyncio.Event()
        self._feeder: asyncio.Task[None] | None = None
        self._methods: dict[tuple[Direction, str], str] = {}

    @property
    def agent_name(self) -> str:
        """ "replay: <agent>" for the replayed log's agent."""
        info = self.agent_info
        name = info.title or info.name if info is not None else None
        return f"replay: {name}" if name else "replay"

    async def start(self) -> bool:
        self.set_state(SessionState.READY)
        for note in self.notes:
            self.notices.emit(Notice(note, "warning"))
        self._feeder = self.tasks.spawn("replay feed", self._feed())
        return True

    async def restart(self) -> bool:
        self.seek(0)
        return True

    async def close(self) -> None:
        await self.tasks.close()  # the feeder
        if isinstance(self.frames, RecordedFrames):
            self.frames.close()
        self.set_state(SessionState.CLOSED)

    def submit(self, text: str) -> None:
        self.notices.emit(Notice("This is a replay: nothing is sent to an agent.", "warning"))

    async def cancel(self) -> None:
        return None

    async def set_mode(self, mode_id: str) -> str | None:
        return "this is a replay"

    # ---- controls -----------------------------------------------------------------------

    def toggle_pause(self) -> None:
        """Pause or resume the replay."""
        self.paused = not self.paused
        self._wake.set()
        self.progress.emit(self)

    def step(self, count: int = 1) -> None:
        """Apply the next `count` frames now (any speed, paused or not)."""
        self.seek(self.position + count)

    def seek(self, position: int) -> None:
        """Jump to just after `position` frames: forward applies, back rebuilds from the start."""
        position = max(0, min(position, len(self.frames)))
        if position < self.position:
            self._reset()
        while self.position < position:
            self._apply_next()
        self._wake.set()
        self.progress.emit(self)

    def _reset(self) -> None:
        self.thread = Thread()
        show_permissions_in(self.thread, self.permissions)
        self.traffic_store = TrafficStore()
        self.position = 0
        self._methods.clear()
        self.session_id = None
        self.rebuilt.emit(self)

    # ---- feeding ------------------------------------------------------------------------

    async def _feed(self) -> None:
        while True:
            self._wake.clear()
            if self.paused or self.position >= len(self.frames):
                await self._wake.wait()
                continue
            delay = 0.0
            if self.speed > 0 and self.position > 0:
                gap = self._times[self.position] - self._times[self.position - 1]
                delay = min(max(gap, 0.0), MAX_GAP) / self.speed
            if delay > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), delay)
                if self._wake.is_set():
                    continue  # paused, stepped or sought meanwhile: look again
            self._apply_next()
            if self.position % 50 == 0 or self.position == len(self.frames) or delay > 0:
                self.progress.emit(self)
            if delay == 0:
                await asyncio.sleep(0)  # let the UI breathe when replaying as fast as possible

    def _apply_next(self) -> None:
        logged = self.frames[self.position]
        self.position += 1
        event = TrafficEvent(logged.direction, logged.time, logged.raw)
        self.traffic_store.record(event)
        self.traffic.emit(event)
        frame = logged.frame
        if frame is not None:
            self._apply(logged.direction, frame)

    def _apply(self, direction: Direction, frame: dict[str, Any]) -> None:
        method = frame.get("method")
        params = frame.get("params")
        if isinstance(method, str):
            if "id" in frame:
                self._methods[(direction, json.dumps(frame["id"]))] = method
            if direction == "in" and method == methods.SESSION_UPDATE:
                self.thread.apply_notification(params)
            elif direction == "in" and method == methods.SESSION_REQUEST_PERMISSION:
                tool_call = params.get("toolCall") if isinstance(params, dict) else None
                if isinstance(tool_call, dict):
                    with contextlib.suppress(ValueError):
                        self.thread.upsert_tool_call(ToolCallUpdate.model_validate(tool_call))
            elif direction == "out" and method == methods.SESSION_PROMPT:
                self._prompt_sent(params)
            return
        asker: Direction = "out" if direction == "in" else "in"
        asked = self._methods.pop((asker, json.dumps(frame.get("id"))), None)
        result = frame.get("result")
        if asked is not None:
            self._answered(asked, result if isinstance(result, dict) else None)

    def _prompt_sent(self, params: Any) -> None:
        blocks = params.get("prompt") if isinstance(params, dict) else None
        parsed = [parse_content_block(b) for b in blocks] if isinstance(blocks, list) else []
        self.thread.add_user_prompt(parsed)
        self.thread.begin_turn()
        self.set_state(SessionState.RUNNING)

    def _answered(self, method: str, result: dict[str, Any] | None) -> None:
        if method == methods.INITIALIZE and result is not None:
            with contextlib.suppress(ValueError):
                self.agent_info = Implementation.model_validate(result.get("agentInfo"))
            with contextlib.suppress(ValueError):
                self.agent_capabilities = AgentCapabilities.model_validate(
                    result.get("agentCapabilities") or {}
                )
        elif method in (methods.SESSION_NEW, methods.SESSION_LOAD) and result is not None:
            with contextlib.suppress(ValueError):
                setup = LoadSessionResponse.model_validate(result)
                session_id = (setup.model_extra or {}).get("sessionId")
                if isinstance(session_id, str):
                    self.session_id = session_id
                apply_session_setup(self.thread, setup)
        elif method == methods.SESSION_PROMPT:
            reason: str | None = None
            with contextlib.suppress(ValueError):
                reason = PromptResponse.model_validate(result).stop_reason
            self.thread.end_turn(reason)
            self.set_state(SessionState.READY)

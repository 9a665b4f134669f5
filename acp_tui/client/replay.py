"""`acp-tui --replay FILE.jsonl`: a recorded `--log` session shown again, with no agent running.

The log's frames are fed to the session in order, at the recorded pace times `speed` (0: as
fast as possible), or one at a time while paused. Nothing is executed: the agent's requests
(files, terminals, permissions) are "answered" by the client's recorded responses, which are
simply replayed as the next frames. Going back rebuilds the thread from the first frame.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_tui.client.agent_session import AgentSession
from acp_tui.client.events import Notice, SessionState
from acp_tui.client.permission_state import show_permissions_in
from acp_tui.client.session_open import apply_session_setup
from acp_tui.client.ui_port import ClientUi
from acp_tui.protocol.models import (
    AgentCapabilities,
    Implementation,
    ToolCallUpdate,
    parse_content_block,
)
from acp_tui.protocol.traffic import Direction, TrafficEvent
from acp_tui.protocol.traffic_store import TrafficStore
from acp_tui.session.thread import Thread
from acp_tui.signal import Signal

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


def load_log(path: Path) -> list[LoggedFrame]:
    """The frames of a `--log` file; lines that are not log entries are skipped."""
    frames: list[LoggedFrame] = []
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as error:
        raise ReplayError(f"cannot read {path}: {error.strerror}") from error
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if type(entry) is not dict or entry.get("dir") not in ("in", "out"):
            continue
        t = entry.get("t")
        frame = entry.get("frame")
        raw = frame if isinstance(frame, str) else json.dumps(frame, ensure_ascii=False)
        parsed = frame if isinstance(frame, dict) else None
        frames.append(
            LoggedFrame(entry["dir"], float(t) if isinstance(t, int | float) else 0.0, raw, parsed)
        )
    if not frames:
        raise ReplayError(f"{path} has no recorded frames (is it an `acp-tui --log` file?)")
    return frames


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
        **kwargs: Any,
    ) -> None:
        super().__init__(["replay"], cwd, ui, **kwargs)
        self.frames = list(frames)
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
        info = self.agent_info
        name = info.title or info.name if info is not None else None
        return f"replay: {name}" if name else "replay"

    async def start(self) -> bool:
        self.set_state(SessionState.READY)
        self._feeder = self.tasks.spawn("replay feed", self._feed())
        return True

    async def restart(self) -> bool:
        self.seek(0)
        return True

    async def close(self) -> None:
        await self.tasks.close()  # the feeder
        self.set_state(SessionState.CLOSED)

    def submit(self, text: str) -> None:
        self.notices.emit(Notice("This is a replay: nothing is sent to an agent.", "warning"))

    async def cancel(self) -> None:
        return None

    async def set_mode(self, mode_id: str) -> str | None:
        return "this is a replay"

    # ---- controls -----------------------------------------------------------------------

    def toggle_pause(self) -> None:
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
                gap = self.frames[self.position].time - self.frames[self.position - 1].time
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
            if direction == "in" and method == "session/update":
                self.thread.apply_notification(params)
            elif direction == "in" and method == "session/request_permission":
                tool_call = params.get("toolCall") if isinstance(params, dict) else None
                if isinstance(tool_call, dict):
                    with contextlib.suppress(ValueError):
                        self.thread.upsert_tool_call(ToolCallUpdate.model_validate(tool_call))
            elif direction == "out" and method == "session/prompt":
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
        if method == "initialize" and result is not None:
            with contextlib.suppress(ValueError):
                self.agent_info = Implementation.model_validate(result.get("agentInfo"))
            with contextlib.suppress(ValueError):
                self.agent_capabilities = AgentCapabilities.model_validate(
                    result.get("agentCapabilities") or {}
                )
        elif method in ("session/new", "session/load") and result is not None:
            session_id = result.get("sessionId")
            if isinstance(session_id, str):
                self.session_id = session_id
            apply_session_setup(self, result)
        elif method == "session/prompt":
            reason = result.get("stopReason") if result is not None else None
            self.thread.end_turn(reason if isinstance(reason, str) else None)
            self.set_state(SessionState.READY)

"""A session's ACP traffic as it passes: every frame told (the inspector's live view), recorded
paired and checked (`TrafficStore`) and written to the `--log` file; a frame discarded over the
size cap, and a log file that cannot be written, said as the session's notices.

A part `AgentSession` owns (`AgentSession.traffic_tap`): the connector calls `record` for each
frame and `on_oversized_frame` for each one it discarded.
"""

from __future__ import annotations

from pathlib import Path

from acp_tui.client.events import Notice
from acp_tui.host.append_log import open_append_log
from acp_tui.host.own_files import OwnFiles
from acp_tui.protocol.traffic import JsonlTrafficLog, TrafficEvent
from acp_tui.protocol.traffic_store import TrafficStore
from acp_tui.safe_text import safe_text
from acp_tui.signal import Signal


class TrafficTap:
    """Where a session's frames go (see the module docstring).

    Args:
        log_path: the `--log` file every frame is written to (None: not logged).
        notices: the session's notices (a discarded frame, a log that failed).
        own_files: acp-tui's own files, which the agent's file requests may not touch: the log
            is one, and so is every tab's beside `log_base`.
        log_base: the `--log` file the app was given, when `log_path` is a later tab's.
    """

    def __init__(
        self,
        log_path: Path | None,
        notices: Signal[Notice],
        own_files: OwnFiles | None = None,
        log_base: Path | None = None,
    ) -> None:
        self._notices = notices
        if log_path is not None and own_files is not None:
            own_files.add_tab_logs(log_base if log_base is not None else log_path)
        self.traffic: Signal[TrafficEvent] = Signal("traffic")
        """Each frame, as it passes."""
        self.store = TrafficStore()
        """Every frame of every connection, paired and checked (the inspector, `check`)."""
        self._log = (
            JsonlTrafficLog(log_path, open_append_log, self._log_failed) if log_path else None
        )

    def record(self, event: TrafficEvent) -> None:
        """One frame: told, recorded and logged."""
        self.traffic.emit(event)
        self.store.record(event)
        if self._log is not None:
            self._log(event)

    def on_oversized_frame(self, length: int, cap: int) -> None:
        """The connection discarded a frame of `length` bytes over the `cap`: said."""
        text = f"Discarded a message of {length:,} bytes from the agent (over the {cap:,}-byte "
        self._notices.emit(Notice(text + "limit, setting max_frame_bytes).", "warning"))

    def close(self) -> None:
        """Write what is buffered and close the log file (the session closes)."""
        if self._log is not None:
            self._log.close()

    def _log_failed(self, reason: str) -> None:
        """The `--log` file was not opened or written (a link planted at its path, a full
        disk): said, since the tab said where its traffic goes."""
        text = f"This tab's ACP traffic is not logged: {safe_text(reason)}"
        self._notices.emit(Notice(text, "warning"))

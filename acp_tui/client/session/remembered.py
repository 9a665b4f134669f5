"""The sessions acp-tui created with an agent that cannot list its own, per directory and agent.

Each directory has its own file, `$XDG_DATA_HOME/acp-tui/sessions/<sha256 of the directory>.json`
(`{"cwd": ..., "agents": {agent: [summary, ...newest first]}}`), read with a size bound and
replaced atomically (`atomic_write`): a write costs what one directory remembers, not what every
directory ever used does, and two acp-tui in different directories never write the same file.
Sessions remembered in the single `sessions.json` of earlier versions are still read for a
directory that has no file of its own yet (and copied into it at its first write); that file is
never written again. Unreadable means empty. Nothing here imports Textual.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from acp_tui.client.session.session_summary import SessionSummary, summary_from
from acp_tui.host.atomic_write import atomic_write_text
from acp_tui.host.permission_rules import directory_file, user_data_dir
from acp_tui.host.settings_file import read_settings_file

MAX_REMEMBERED = 50
"""Sessions kept per directory and agent, the newest."""
MAX_FILE_BYTES = 1024 * 1024
"""A directory's file larger than this is not read (it holds at most `MAX_REMEMBERED` per
agent: some kilobytes)."""
MAX_LEGACY_BYTES = 16 * 1024 * 1024
"""The earlier versions' `sessions.json` (every directory in one file) is not read past this."""


def remembered_path(cwd: Path, data_dir: Path | None = None) -> Path:
    """Where the sessions remembered for directory `cwd` are kept."""
    return directory_file("sessions", cwd, data_dir)


class RememberedSessions:
    """Remembered sessions, by directory and agent, newest first."""

    def __init__(self, data_dir: Path | None = None) -> None:
        self.data_dir = data_dir if data_dir is not None else user_data_dir()

    def _read_agents(self, cwd: Path) -> dict[str, Any]:
        """`{agent: [summary json, ...]}` of `cwd`: its own file, else the legacy file's."""
        try:
            data = json.loads(read_settings_file(self._path(cwd), MAX_FILE_BYTES))
        except FileNotFoundError:
            return self._legacy(cwd)
        except (OSError, ValueError, RecursionError):
            return {}
        agents = data.get("agents") if isinstance(data, dict) else None
        return agents if isinstance(agents, dict) else {}

    def _legacy(self, cwd: Path) -> dict[str, Any]:
        try:
            data = json.loads(read_settings_file(self.data_dir / "sessions.json", MAX_LEGACY_BYTES))
        except (OSError, ValueError, RecursionError):
            return {}
        agents = data.get(str(cwd)) if isinstance(data, dict) else None
        return agents if isinstance(agents, dict) else {}

    def _path(self, cwd: Path) -> Path:
        return remembered_path(cwd, self.data_dir)

    def recent(self, cwd: Path, agent: str) -> list[SessionSummary]:
        """The sessions remembered for this directory and agent, newest first (malformed
        entries skipped)."""
        return _summaries(self._read_agents(cwd), agent)

    def add(self, cwd: Path, agent: str, summary: SessionSummary) -> None:
        """Remember a session first, keeping at most `MAX_REMEMBERED`."""
        agents = self._read_agents(cwd)
        old = [s for s in _summaries(agents, agent) if s.id != summary.id]
        self._store(cwd, agents, agent, [summary, *old][:MAX_REMEMBERED])

    def forget(self, cwd: Path, agent: str, session_id: str) -> None:
        """Forget a session (nothing is written if it was not remembered)."""
        agents = self._read_agents(cwd)
        old = _summaries(agents, agent)
        kept = [s for s in old if s.id != session_id]
        if len(kept) != len(old):
            self._store(cwd, agents, agent, kept)

    def _store(
        self, cwd: Path, agents: dict[str, Any], agent: str, summaries: list[SessionSummary]
    ) -> None:
        """Write `cwd`'s file: `agents` as read, with `agent`'s sessions now `summaries`."""
        agents[agent] = [
            {"id": s.id, "title": s.title, "updatedAt": s.updated_at, "cwd": s.cwd}
            for s in summaries
        ]
        text = json.dumps({"cwd": str(cwd), "agents": agents}, indent=1) + "\n"
        with contextlib.suppress(OSError):  # (a convenience: a read-only data directory)
            atomic_write_text(self._path(cwd), text)


def _summaries(agents: dict[str, Any], agent: str) -> list[SessionSummary]:
    """`agent`'s summaries in `agents` as read (malformed entries skipped)."""
    items = agents.get(agent, [])
    if not isinstance(items, list):
        return []
    found = [summary_from({**i, "sessionId": i.get("id")}) for i in items if isinstance(i, dict)]
    return [s for s in found if s is not None]

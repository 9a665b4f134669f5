"""The saved workspace of a directory: every session it had, for `acp-tui --continue`.

One JSON file per directory (resolved), beside the remembered sessions and the permission rules:
``$XDG_DATA_HOME/acp-tui/workspaces/<sha256 of the directory>.json``, written with the host's
atomic write and read with its bounded reader (`read_settings_file`: a regular file of at most
`MAX_STORE_BYTES`, opened non-blocking). A record holds how to start the agent (a preset name
and/or its argv), the session's cwd, its worktree (path, branch, base), the session id, title,
creation time and whether the agent could load or resume sessions when it was saved.

`load` never raises for a bad file: a missing file is an empty workspace; an unreadable, corrupt
or oversized file, or a record that does not parse, is a problem listed (the rest still loads).
`save` moves a file it could not read aside (``*.corrupt``) before replacing it, so nothing is
lost. `restore_plan` says which sessions can come back and why each other one cannot.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from acp_tui.host import new_files
from acp_tui.host.atomic_write import atomic_write_text
from acp_tui.host.permission_rules import user_data_dir
from acp_tui.host.settings_file import SettingsFileError, read_settings_file
from acp_tui.safe_text import safe_line
from acp_tui.worktrees.worktrees import Worktree

FILE_VERSION = 1
MAX_STORE_BYTES = 1024 * 1024
MAX_RECORDS = 64


class StoreError(Exception):
    """The workspace could not be saved; a one-line message naming the file."""


@dataclass(frozen=True)
class WorktreeRecord:
    """A session's worktree as saved: `Worktree` without its subdirectory's meaning lost."""

    path: Path
    branch: str
    base: str
    repo: Path | None = None
    subdir: str = ""

    @classmethod
    def of(cls, wt: Worktree) -> WorktreeRecord:
        return cls(wt.path, wt.branch, wt.base, wt.repo, wt.subdir)

    def worktree(self) -> Worktree | None:
        """The `Worktree` back (None when the repository was not saved)."""
        if self.repo is None:
            return None
        return Worktree(self.repo, self.path, self.branch, self.base, self.subdir)


@dataclass(frozen=True)
class SessionRecord:
    """One session of a saved workspace. `preset` (a preset's name) or `argv` (the command)
    says how to start the agent; `can_open`: whether the agent could load or resume sessions
    (None: not known)."""

    cwd: Path
    argv: tuple[str, ...] = ()
    preset: str | None = None
    worktree: WorktreeRecord | None = None
    session_id: str | None = None
    title: str | None = None
    created: str = field(default_factory=lambda: now())
    can_open: bool | None = None

    @property
    def label(self) -> str:
        """The record for a message: its title or agent, made safe for the terminal."""
        agent = self.preset or (self.argv[0] if self.argv else "agent")
        return safe_line(f"{agent}: {self.title}" if self.title else agent)

    def to_json(self) -> dict[str, Any]:
        worktree = self.worktree
        return {
            "cwd": str(self.cwd),
            "argv": list(self.argv),
            "preset": self.preset,
            "worktree": None
            if worktree is None
            else {
                "path": str(worktree.path),
                "branch": worktree.branch,
                "base": worktree.base,
                "repo": None if worktree.repo is None else str(worktree.repo),
                "subdir": worktree.subdir,
            },
            "sessionId": self.session_id,
            "title": self.title,
            "created": self.created,
            "canOpen": self.can_open,
        }

    @classmethod
    def from_json(cls, raw: Any) -> SessionRecord:
        """The record in `raw`; ValueError saying what is wrong."""
        if not isinstance(raw, dict):
            raise ValueError("not an object")
        cwd = _text(raw, "cwd")
        if not cwd or not os.path.isabs(cwd):
            raise ValueError("no absolute cwd")
        argv = raw.get("argv", [])
        if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
            raise ValueError("argv is not a list of strings")
        preset = _text(raw, "preset")
        if not argv and not preset:
            raise ValueError("neither a preset nor a command for the agent")
        can_open = raw.get("canOpen")
        return cls(
            cwd=Path(cwd),
            argv=tuple(argv),
            preset=preset,
            worktree=_worktree(raw.get("worktree")),
            session_id=_text(raw, "sessionId"),
            title=_text(raw, "title"),
            created=_text(raw, "created") or "",
            can_open=can_open if isinstance(can_open, bool) else None,
        )


def _text(raw: Mapping[str, Any], key: str) -> str | None:
    value = raw.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{key} is not a string")
    return value


def _worktree(raw: Any) -> WorktreeRecord | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ValueError("worktree is not an object")
    path, branch, base = _text(raw, "path"), _text(raw, "branch"), _text(raw, "base")
    if not path or not os.path.isabs(path) or not branch or not base:
        raise ValueError("worktree needs an absolute path, a branch and a base")
    repo, subdir = _text(raw, "repo"), _text(raw, "subdir") or ""
    if repo is not None and not os.path.isabs(repo):
        raise ValueError("worktree's repo is not an absolute path")
    if os.path.isabs(subdir) or ".." in Path(subdir).parts:
        raise ValueError("worktree's subdir is not a relative path inside it")
    return WorktreeRecord(Path(path), branch, base, None if repo is None else Path(repo), subdir)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def store_path(directory: Path, data_dir: Path | None = None) -> Path:
    """Where the workspace of `directory` (resolved) is saved."""
    resolved = os.fsencode(str(Path(directory).resolve()))
    digest = hashlib.sha256(resolved).hexdigest()[:24]
    return (data_dir or user_data_dir()) / "workspaces" / f"{digest}.json"


def _parse(text: str, path: Path) -> tuple[list[SessionRecord], list[str]]:
    try:
        data = json.loads(text)
    except ValueError as error:
        return [], [f"the saved workspace {path} is not valid JSON ({error}): ignored"]
    except RecursionError:  # (json's nesting limit; the file is bounded, its depth is not)
        return [], [f"the saved workspace {path} is nested too deeply: ignored"]
    sessions = data.get("sessions") if isinstance(data, dict) else None
    if not isinstance(sessions, list):
        return [], [f"the saved workspace {path} has no list of sessions: ignored"]
    records: list[SessionRecord] = []
    problems: list[str] = []
    for index, raw in enumerate(sessions[:MAX_RECORDS], start=1):
        try:
            records.append(SessionRecord.from_json(raw))
        except ValueError as error:
            problems.append(f"session {index} of the saved workspace is left out: {error}")
    if len(sessions) > MAX_RECORDS:
        problems.append(
            f"the saved workspace has more than {MAX_RECORDS} sessions: the rest left out"
        )
    return records, problems


def load(directory: Path, *, path: Path | None = None) -> tuple[list[SessionRecord], list[str]]:
    """The sessions saved for `directory` and the problems found reading them (blocking)."""
    path = path if path is not None else store_path(directory)
    try:
        text = read_settings_file(path, MAX_STORE_BYTES)
    except FileNotFoundError:
        return [], []
    except SettingsFileError as error:
        return [], [f"the saved workspace {path} is {error}: ignored"]
    except OSError as error:
        return [], [f"cannot read the saved workspace {path}: {error.strerror or error}"]
    records, problems = _parse(text, path)
    return records, [safe_line(p) for p in problems]


def save(directory: Path, records: Sequence[SessionRecord], *, path: Path | None = None) -> None:
    """Replace the saved workspace of `directory` with `records` (blocking); `StoreError`."""
    path = path if path is not None else store_path(directory)
    _, problems = load(directory, path=path)
    if problems:  # keep what could not be read: never overwrite it unseen
        with contextlib.suppress(OSError):
            real = Path(os.path.realpath(path))
            new_files.move_into_place(real, real.with_name(real.name + ".corrupt"))
    data = {
        "version": FILE_VERSION,
        "directory": str(directory),
        "sessions": [r.to_json() for r in records[:MAX_RECORDS]],
    }
    try:
        atomic_write_text(path, json.dumps(data, indent=1) + "\n")
    except OSError as error:
        raise StoreError(
            f"cannot save the workspace to {path}: {error.strerror or error}"
        ) from None


@dataclass(frozen=True)
class RestorePlan:
    """What `--continue` can bring back: the records to reopen, and each one that cannot come
    back with the reason (for the user: never dropped silently)."""

    restorable: list[SessionRecord]
    lost: list[tuple[SessionRecord, str]]


def restore_plan(
    records: Sequence[SessionRecord],
    *,
    can_reopen: Callable[[SessionRecord], str | None] | None = None,
) -> RestorePlan:
    """Which sessions can come back (blocking: a few `stat`s). `can_reopen` is the caller's own
    check (e.g. the preset still exists): the reason a record cannot come back, or None."""
    restorable: list[SessionRecord] = []
    lost: list[tuple[SessionRecord, str]] = []
    for record in records:
        reason = _why_not(record)
        if reason is None and can_reopen is not None:
            reason = can_reopen(record)
        if reason is None:
            restorable.append(record)
        else:
            lost.append((record, safe_line(reason)))
    return RestorePlan(restorable, lost)


def _why_not(record: SessionRecord) -> str | None:
    if record.session_id is None:
        return "the agent never opened a session there (no session id was saved)"
    if record.can_open is False:
        return "the agent cannot load or resume sessions"
    worktree = record.worktree
    if worktree is not None and not (worktree.path / ".git").exists():
        return f"its worktree {worktree.path} is gone (branch {worktree.branch})"
    if not record.cwd.is_dir():
        return f"its directory {record.cwd} no longer exists"
    return None

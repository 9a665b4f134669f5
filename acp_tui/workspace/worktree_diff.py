"""What changed in a worktree since its base commit: committed, uncommitted and untracked files
(agents write files without committing), each with its +/- line counts and its `FileDiff`.

Texts are read exactly (UTF-8, line endings kept): the base side from git (`git cat-file`), the
worktree side through the host's `read_regular` (no symbolic link followed, regular files only,
size bounded). A binary file, a file over `MAX_DIFF_BYTES`, a symbolic link or anything else that
is not a regular file is listed with what it is, not diffed.
"""

from __future__ import annotations

import asyncio
import enum
from dataclasses import dataclass
from pathlib import Path

from acp_tui.host.local_files import LocalFileError, read_regular
from acp_tui.session.diff import FileDiff, compute_diff
from acp_tui.workspace.git import GitError, git
from acp_tui.workspace.worktrees import Worktree, WorktreeError

MAX_DIFF_BYTES = 2 * 1024 * 1024
"""Files larger than this (either side) are listed, not diffed."""

_SYMLINK_MODE = "120000"
_GITLINK_MODE = "160000"


class Status(enum.StrEnum):
    ADDED = "added"
    MODIFIED = "modified"
    DELETED = "deleted"


class Kind(enum.StrEnum):
    TEXT = "text"
    BINARY = "binary"
    TOO_LARGE = "too large"
    SYMLINK = "symbolic link"
    OTHER = "not a regular file"


@dataclass(frozen=True)
class ChangedFile:
    """One file changed in the worktree. `path` is relative to the worktree's top level (with
    `/`). For a `Kind.TEXT` file, `diff` holds the base text (`old_text`, None when added) and
    the worktree's text (`new_text`, "" when deleted); otherwise `diff` is None and `reason`
    says why it is not diffed. `untracked`: the file is not known to git (never added)."""

    path: str
    status: Status
    kind: Kind
    added: int = 0
    removed: int = 0
    diff: FileDiff | None = None
    untracked: bool = False
    reason: str = ""


@dataclass(frozen=True)
class _Side:
    """One side of a change: its text when it is a diffable text, else what it is."""

    kind: Kind
    text: str | None = None


def decode_text(data: bytes) -> str | None:
    """`data` as text when it is UTF-8 without NUL bytes, else None (binary)."""
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


async def worktree_diff(wt: Worktree, *, max_bytes: int = MAX_DIFF_BYTES) -> list[ChangedFile]:
    """Every file changed in `wt` against `wt.base`, sorted by path."""
    try:
        tracked = await git(
            wt.path, "diff", "--raw", "-z", "--no-renames", "--no-ext-diff", wt.base
        )
        others = await git(wt.path, "ls-files", "--others", "--exclude-standard", "-z")
    except GitError as error:
        raise WorktreeError(str(error)) from None
    changes: list[ChangedFile] = []
    for old_mode, old_sha, status, path in _raw(tracked.stdout):
        changes.append(await _tracked(wt, path, status, old_mode, old_sha, max_bytes))
    for path in _names(others.stdout):
        new = await _worktree_side(wt.path / path, max_bytes)
        changes.append(_changed(path, Status.ADDED, _Side(Kind.TEXT, None), new, untracked=True))
    return sorted(changes, key=lambda c: c.path)


def _names(data: bytes) -> list[str]:
    return [n for n in data.decode("utf-8", errors="surrogateescape").split("\0") if n]


def _raw(data: bytes) -> list[tuple[str, str, str, str]]:
    """`git diff --raw -z`: (old mode, old blob, status letter, path) per file."""
    fields = data.decode("utf-8", errors="surrogateescape").split("\0")
    out: list[tuple[str, str, str, str]] = []
    for header, path in zip(fields[0::2], fields[1::2], strict=False):
        parts = header.lstrip(":").split()
        if len(parts) >= 5 and path:
            out.append((parts[0], parts[2], parts[4][:1], path))
    return out


async def _tracked(
    wt: Worktree, path: str, letter: str, old_mode: str, old_sha: str, max_bytes: int
) -> ChangedFile:
    status = {"A": Status.ADDED, "D": Status.DELETED}.get(letter, Status.MODIFIED)
    old = (
        _Side(Kind.TEXT, None)
        if status is Status.ADDED
        else await _base_side(wt, old_mode, old_sha, max_bytes)
    )
    new = (
        _Side(Kind.TEXT, "")
        if status is Status.DELETED
        else await _worktree_side(wt.path / path, max_bytes)
    )
    return _changed(path, status, old, new)


async def _base_side(wt: Worktree, mode: str, sha: str, max_bytes: int) -> _Side:
    if mode == _SYMLINK_MODE:
        return _Side(Kind.SYMLINK)
    if mode == _GITLINK_MODE:
        return _Side(Kind.OTHER)
    try:
        size = int((await git(wt.path, "cat-file", "-s", sha)).text.strip())
        if size > max_bytes:
            return _Side(Kind.TOO_LARGE)
        data = (await git(wt.path, "cat-file", "blob", sha)).stdout
    except (GitError, ValueError) as error:
        raise WorktreeError(f"cannot read the base of a file: {error}") from None
    text = decode_text(data)
    return _Side(Kind.BINARY) if text is None else _Side(Kind.TEXT, text)


async def _worktree_side(path: Path, max_bytes: int) -> _Side:
    """The worktree's file: read through the host's walk, never through a symbolic link."""
    if await asyncio.to_thread(path.is_symlink):
        return _Side(Kind.SYMLINK)
    try:
        data = await asyncio.to_thread(read_regular, path, max_bytes=max_bytes)
    except LocalFileError as error:
        if "too large" in str(error):
            return _Side(Kind.TOO_LARGE)
        return _Side(Kind.OTHER)
    if data is None:
        return _Side(Kind.TEXT, "")  # gone meanwhile: as deleted
    text = decode_text(data)
    return _Side(Kind.BINARY) if text is None else _Side(Kind.TEXT, text)


def _changed(
    path: str, status: Status, old: _Side, new: _Side, *, untracked: bool = False
) -> ChangedFile:
    for side in (old, new):
        if side.kind is not Kind.TEXT:
            return ChangedFile(
                path, status, side.kind, untracked=untracked, reason=f"{side.kind}: not diffed"
            )
    diff = compute_diff(path, old.text, new.text or "")
    return ChangedFile(path, status, Kind.TEXT, diff.added, diff.removed, diff, untracked)

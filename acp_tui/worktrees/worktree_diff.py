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
import stat
from dataclasses import dataclass
from pathlib import Path

from acp_tui.host.local_files import LocalFileError, read_regular
from acp_tui.thread.diff import FileDiff, compute_diff
from acp_tui.worktrees.git import GitError, git
from acp_tui.worktrees.worktrees import Worktree, WorktreeError, git_dir_args

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
    base_blob: str = ""
    """The base's git blob id ("" when the file is new)."""


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
    where = await git_dir_args(wt)  # never the .git file the agent could have rewritten
    try:
        tracked = await git(
            wt.path,
            *where,
            "diff",
            "--raw",
            "--no-abbrev",
            "-z",
            "--no-renames",
            "--no-ext-diff",
            wt.base,
        )
        others = await git(wt.path, *where, "ls-files", "--others", "--exclude-standard", "-z")
        entries = _raw(tracked.stdout)
        blobs = await _blobs(wt.repo, [e.old_sha for e in entries if e.readable_base], max_bytes)
    except GitError as error:
        raise WorktreeError(str(error)) from None
    changes: list[ChangedFile] = []
    for entry in entries:
        old = _Side(Kind.TEXT, None) if entry.status is Status.ADDED else entry.base_side(blobs)
        new = (
            _Side(Kind.TEXT, "")
            if entry.status is Status.DELETED
            else await asyncio.to_thread(_worktree_side, wt.path / entry.path, max_bytes)
        )
        blob = "" if entry.status is Status.ADDED else entry.old_sha
        changes.append(_changed(entry.path, entry.status, old, new, base_blob=blob))
    for path in _names(others.stdout):
        new = await asyncio.to_thread(_worktree_side, wt.path / path, max_bytes)
        changes.append(_changed(path, Status.ADDED, _Side(Kind.TEXT, None), new, untracked=True))
    return sorted(changes, key=lambda c: c.path)


def _names(data: bytes) -> list[str]:
    return [n for n in data.decode("utf-8", errors="surrogateescape").split("\0") if n]


@dataclass(frozen=True)
class _Entry:
    """One file of `git diff --raw`."""

    path: str
    status: Status
    old_mode: str
    old_sha: str

    @property
    def readable_base(self) -> bool:
        return self.status is not Status.ADDED and self.old_mode not in (
            _SYMLINK_MODE,
            _GITLINK_MODE,
        )

    def base_side(self, blobs: dict[str, _Side]) -> _Side:
        if self.old_mode == _SYMLINK_MODE:
            return _Side(Kind.SYMLINK)
        return blobs.get(self.old_sha, _Side(Kind.OTHER))


def _raw(data: bytes) -> list[_Entry]:
    """`git diff --raw -z`: ":old-mode new-mode old-blob new-blob status" NUL path NUL."""
    fields = data.decode("utf-8", errors="surrogateescape").split("\0")
    out: list[_Entry] = []
    for header, path in zip(fields[0::2], fields[1::2], strict=False):
        parts = header.lstrip(":").split()
        if len(parts) >= 5 and path:
            letter = parts[4][:1]
            status = {"A": Status.ADDED, "D": Status.DELETED}.get(letter, Status.MODIFIED)
            out.append(_Entry(path, status, parts[0], parts[2]))
    return out


async def _blobs(cwd: Path, shas: list[str], max_bytes: int) -> dict[str, _Side]:
    """The base blobs `shas`, read with two `git cat-file` batches (sizes, then contents of
    the ones within `max_bytes`, in rounds of at most `_BATCH_BYTES`)."""
    unique = list(dict.fromkeys(shas))
    if not unique:
        return {}
    check = await git(cwd, "cat-file", "--batch-check", input_data=_lines(unique))
    sides: dict[str, _Side] = {}
    wanted: list[tuple[str, int]] = []
    for line in check.text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "blob" and parts[2].isdigit():
            size = int(parts[2])
            if size > max_bytes:
                sides[parts[0]] = _Side(Kind.TOO_LARGE)
            else:
                wanted.append((parts[0], size))
    for batch in _rounds(wanted):
        result = await git(cwd, "cat-file", "--batch", input_data=_lines(batch))
        sides.update(_batch_output(result.stdout))
    return sides


_BATCH_BYTES = 16 * 1024 * 1024


def _lines(names: list[str]) -> bytes:
    return "".join(f"{name}\n" for name in names).encode("ascii")


def _rounds(wanted: list[tuple[str, int]]) -> list[list[str]]:
    rounds: list[list[str]] = [[]]
    total = 0
    for sha, size in wanted:
        if rounds[-1] and total + size > _BATCH_BYTES:
            rounds.append([])
            total = 0
        rounds[-1].append(sha)
        total += size
    return [r for r in rounds if r]


def _batch_output(data: bytes) -> dict[str, _Side]:
    """`git cat-file --batch`: "<sha> <type> <size>" LF, the content, LF; per object."""
    sides: dict[str, _Side] = {}
    pos = 0
    while pos < len(data):
        newline = data.find(b"\n", pos)
        if newline < 0:
            break
        parts = data[pos:newline].split()
        pos = newline + 1
        if len(parts) != 3 or not parts[2].isdigit():
            continue  # "<sha> missing"
        size = int(parts[2])
        text = decode_text(data[pos : pos + size])
        sides[parts[0].decode("ascii")] = (
            _Side(Kind.BINARY) if text is None else _Side(Kind.TEXT, text)
        )
        pos += size + 1
    return sides


def _worktree_side(path: Path, max_bytes: int) -> _Side:
    """(blocking) The worktree's file, read through the host's walk (no symbolic link
    followed): a symbolic link, a special file or a file over `max_bytes` is not read."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return _Side(Kind.TEXT, "")  # gone meanwhile: as deleted
    except OSError:
        return _Side(Kind.OTHER)
    if stat.S_ISLNK(info.st_mode):
        return _Side(Kind.SYMLINK)
    if not stat.S_ISREG(info.st_mode):
        return _Side(Kind.OTHER)
    if info.st_size > max_bytes:
        return _Side(Kind.TOO_LARGE)
    try:
        data = read_regular(path, max_bytes=max_bytes)
    except LocalFileError:
        return _Side(Kind.OTHER)  # swapped for something else meanwhile
    if data is None:
        return _Side(Kind.TEXT, "")
    text = decode_text(data)
    return _Side(Kind.BINARY) if text is None else _Side(Kind.TEXT, text)


def _changed(
    path: str,
    status: Status,
    old: _Side,
    new: _Side,
    *,
    untracked: bool = False,
    base_blob: str = "",
) -> ChangedFile:
    for side in (old, new):
        if side.kind is not Kind.TEXT:
            why = f"{side.kind}: not diffed"
            return ChangedFile(
                path, status, side.kind, untracked=untracked, reason=why, base_blob=base_blob
            )
    diff = compute_diff(path, old.text, new.text or "")
    return ChangedFile(
        path, status, Kind.TEXT, diff.added, diff.removed, diff, untracked, base_blob=base_blob
    )

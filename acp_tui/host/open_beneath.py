"""Open a file or directory through a `beneath` walk: what is checked is what is read.

For readers that are not the agent's `fs/*` requests (the user's @-mentions, .gitignore files):
`open_entry(path)` walks the absolute `path` with directory descriptors (`beneath.locate`,
symlinks followed by hand), opens the final entry relative to the walked directory with
``O_NOFOLLOW`` and returns the open descriptor with its `fstat` and its real path. The caller
checks the real path (inside the session roots? hard-linked?) and then reads *that* descriptor,
so a directory or link swapped on the way after the check cannot redirect the read.

Only regular files and directories are opened. Anything else (a FIFO, a socket, a device) is
refused from its `lstat` before any ``open`` (`NotRegularFile`), and the ``open`` itself is
non-blocking, so a FIFO swapped in at the last moment cannot hang the caller either.

`read_at_most` and `list_tree` read an opened entry with bounded memory; `read_regular` is the
whole round for a small file such as a .gitignore. Blocking: run these in a thread.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from acp_tui.host import beneath
from acp_tui.host.beneath import PathChanged

FILE_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
LIST_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_DIRECTORY
ATTEMPTS = 3
MAX_DEPTH = 64


class NotRegularFile(OSError):
    """The path leads to something that is neither a regular file nor a directory."""

    def __init__(self, path: Path, kind: str) -> None:
        super().__init__(errno.EINVAL, f"{path} is {kind}, not a regular file")
        self.kind = kind


def kind_of(mode: int) -> str:
    """What a file is, in words, for the messages."""
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISREG(mode):
        return "a regular file"
    return "a special file"


@dataclass
class Opened:
    """An open regular file or directory (owns `fd`: close it, or use it as a context manager)."""

    fd: int
    info: os.stat_result
    real: Path

    @property
    def is_dir(self) -> bool:
        """Whether what was opened is a directory."""
        return stat.S_ISDIR(self.info.st_mode)

    @property
    def links(self) -> int:
        """The hard link count that matters for the boundary (regular files only)."""
        return self.info.st_nlink if stat.S_ISREG(self.info.st_mode) else 1

    def close(self) -> None:
        """Close the descriptor."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> Opened:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def open_entry(path: Path) -> Opened:
    """Open the regular file or directory the absolute `path` leads to (see the module doc).

    Raises `FileNotFoundError` (nothing there, or a file used as a directory), `NotRegularFile`,
    `PathChanged` when the path kept changing under the walk, and other `OSError`s.
    """
    for attempt in range(ATTEMPTS):
        try:
            return _open_once(path)
        except PathChanged:
            if attempt == ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")


def _open_once(path: Path) -> Opened:
    try:
        location = beneath.locate(path)
    except NotADirectoryError as cause:
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(path)) from cause
    with location:
        seen = location.stat
        if seen is None:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(path))
        if not location.rest:  # the walk ended on a directory itself ("/", "d/..")
            return _opened(os.open(".", LIST_FLAGS, dir_fd=location.dir_fd), seen, location.dir)
        if not (stat.S_ISREG(seen.st_mode) or stat.S_ISDIR(seen.st_mode)):
            raise NotRegularFile(location.real, kind_of(seen.st_mode))
        flags = LIST_FLAGS if stat.S_ISDIR(seen.st_mode) else FILE_FLAGS
        try:
            fd = os.open(location.name, flags, dir_fd=location.dir_fd)
        except OSError as cause:
            if cause.errno in (errno.ELOOP, errno.ENOENT, errno.ENOTDIR, errno.ENXIO):
                raise PathChanged(cause.errno, f"{location.name} changed during the walk") from None
            raise
        return _opened(fd, seen, location.real)


def _opened(fd: int, seen: os.stat_result, real: Path) -> Opened:
    """`fd` if it is the entry the walk saw (same file, same type), else `PathChanged`."""
    info = os.fstat(fd)
    same = (info.st_dev, info.st_ino) == (seen.st_dev, seen.st_ino)
    if not same or stat.S_IFMT(info.st_mode) != stat.S_IFMT(seen.st_mode):
        os.close(fd)
        raise PathChanged(errno.EAGAIN, f"{real} changed while it was opened")
    return Opened(fd, info, real)


def read_at_most(fd: int, limit: int, *, offset: int = 0) -> bytes:
    """Up to `limit` + 1 bytes from `offset` (so the caller sees that there was more); the file
    position is not used, and `fd` stays open."""
    chunks: list[bytes] = []
    total = 0
    while total <= limit:
        chunk = os.pread(fd, min(1 << 20, limit + 1 - total), offset + total)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of the regular file at `path` if it has at most `limit` of them; None when it
    is missing, not a regular file, larger, or cannot be read."""
    try:
        opened = open_entry(path)
    except (OSError, ValueError):  # ValueError: a relative path, a NUL byte
        return None
    with opened:
        if opened.is_dir:
            return None
        try:
            data = read_at_most(opened.fd, limit)
        except OSError:
            return None
    return data if len(data) <= limit else None


def list_tree(fd: int, skip: frozenset[str], max_entries: int) -> tuple[list[str], bool]:
    """The files below the open directory `fd` (relative, sorted, depth first), at most
    `max_entries`, and whether there were more. Directories named in `skip` and symlinks are
    not entered; subdirectories are opened with ``O_NOFOLLOW | O_DIRECTORY``."""
    found: list[str] = []
    for name in _files(os.dup(fd), "", skip, 0):
        if len(found) == max_entries:
            return found, True
        found.append(name)
    return found, False


def _files(fd: int, prefix: str, skip: frozenset[str], depth: int) -> Iterator[str]:
    """Yields the files below `fd` (which it closes when done or abandoned)."""
    try:
        try:
            with os.scandir(fd) as listing:
                entries = sorted(
                    ((entry.name, _is_dir(entry)) for entry in listing), key=lambda e: e[0]
                )
        except OSError:
            return
        for name, is_dir in entries:
            if not is_dir:
                yield prefix + name
        if depth >= MAX_DEPTH:
            return
        for name, is_dir in entries:
            if not is_dir or name in skip:
                continue
            try:
                child = os.open(name, LIST_FLAGS, dir_fd=fd)
            except OSError:  # swapped for a symlink or something else meanwhile: not entered
                continue
            yield from _files(child, f"{prefix}{name}/", skip, depth + 1)
    finally:
        os.close(fd)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False

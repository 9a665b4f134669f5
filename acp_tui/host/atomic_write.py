"""Crash-safe file replacement: the target holds the old content or the new one, never a mix.

The data goes to a temporary file in the target's directory (named `.<name>.acp-tui-XXXX.tmp` so a
stale one left by a killed process is recognisable), is fsynced, renamed over the target and the
directory is fsynced. An existing file's permission bits are kept; a new file gets 0666 & ~umask.
These functions block: call them from a thread (`asyncio.to_thread`) in async code.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

TEMP_MARKER = ".acp-tui-"
TEMP_SUFFIX = ".tmp"
_MAX_NAME_IN_TEMP = 120  # keeps the temp name under NAME_MAX (255) for long file names


def temp_prefix(name: str) -> str:
    return f".{name[:_MAX_NAME_IN_TEMP]}{TEMP_MARKER}"


def is_temp_file(path: Path) -> bool:
    """Whether `path` looks like one of our temporary files (for cleanup / ignoring)."""
    name = path.name
    return name.startswith(".") and TEMP_MARKER in name and name.endswith(TEMP_SUFFIX)


def current_umask() -> int:
    """The process umask, read without changing it where /proc allows."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def fsync_directory(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return  # some platforms / file systems cannot open a directory; nothing more to do
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes, *, make_parents: bool = True) -> None:
    """Replace `path` (or create it) with `data` atomically.

    A symlink at `path` is followed: the file it points to is replaced and the link kept.
    """
    target = Path(os.path.realpath(path))
    parent = target.parent
    if make_parents:
        parent.mkdir(parents=True, exist_ok=True)
    try:
        existing: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        existing = None
    if existing is not None and stat.S_ISDIR(existing.st_mode):
        raise IsADirectoryError(21, "Is a directory", str(target))
    fd, temp_name = tempfile.mkstemp(
        prefix=temp_prefix(target.name), suffix=TEMP_SUFFIX, dir=parent
    )
    try:
        try:
            if existing is not None:
                os.fchmod(fd, stat.S_IMODE(existing.st_mode))
                if (existing.st_uid, existing.st_gid) != (os.getuid(), os.getgid()):
                    with contextlib.suppress(OSError):
                        os.fchown(fd, existing.st_uid, existing.st_gid)
            else:
                os.fchmod(fd, 0o666 & ~current_umask())
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise
    fsync_directory(parent)


def atomic_write_text(path: Path, content: str, *, make_parents: bool = True) -> None:
    """Replace `path` with `content` encoded as UTF-8; line endings are written exactly as given."""
    atomic_write_bytes(path, content.encode("utf-8"), make_parents=make_parents)


def delete_file(path: Path) -> None:
    """Remove `path` if it exists and make the removal durable."""
    target = Path(path)
    try:
        target.unlink()
    except FileNotFoundError:
        return
    fsync_directory(target.parent)

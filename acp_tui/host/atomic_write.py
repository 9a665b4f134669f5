"""Crash-safe file replacement: the target holds the old content or the new one, never a mix.

The data goes to a temporary file in the target's directory (named `.<name>.acp-tui-XXXX.tmp` so a
stale one left by a killed process is recognisable), is fsynced, renamed over the target and the
directory is fsynced. Everything happens through the directory descriptor of a `beneath` walk
(`write_at`), so a symlink swapped into the path meanwhile redirects nothing, and a directory moved
away during the write gets the write undone. An existing file's permission bits are kept; a new
file gets 0666 & ~umask.
These functions block: call them from a thread (`asyncio.to_thread`) in async code.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

from acp_tui.host import beneath
from acp_tui.host.beneath import Location, PathChanged

TEMP_MARKER = ".acp-tui-"
TEMP_SUFFIX = ".tmp"
_MAX_NAME_IN_TEMP = 120  # keeps the temp name under NAME_MAX (255) for long file names


def temp_prefix(name: str) -> str:
    """The hidden temporary name prefix used while writing `name` (the marker lets leftovers be
    recognised).
    """
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
    """Flush a directory's entries to disk (so a rename survives a crash); silently skipped
    where a directory cannot be opened.
    """
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


def fsync_dir_fd(dir_fd: int) -> None:
    """fsync the directory held by `dir_fd` (which may be an O_PATH descriptor)."""
    try:
        fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _temp_name(name: str) -> str:
    return f"{temp_prefix(name)}{secrets.token_hex(4)}{TEMP_SUFFIX}"


def _create_temp(dir_fd: int, name: str) -> tuple[int, str]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(100):
        temp = _temp_name(name)
        try:
            return os.open(temp, flags, 0o600, dir_fd=dir_fd), temp
        except FileExistsError:
            continue
    raise FileExistsError(17, "no free temporary file name", name)


def _fill(fd: int, data: bytes, existing: os.stat_result | None) -> None:
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


def _link_backup(dir_fd: int, name: str) -> str | None:
    """A second name for the file about to be replaced, to put it back if the write is undone."""
    backup = _temp_name(name)
    try:
        os.link(name, backup, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return None  # no hard links here: an undo can then only remove the new file
    return backup


def write_at(location: Location, data: bytes, *, make_parents: bool = True) -> None:
    """Replace (or create) the file `location` leads to with `data`, atomically, through the
    directory descriptor of the walk: temp file and rename both relative to `location.dir_fd`.

    Right after the rename the parent directory is checked to still sit at its real path
    (`same_directory`); if it was moved meanwhile, the write is undone (the old file put back,
    or the new one removed, directories this call created removed) and `PathChanged` raised, so
    nothing is left wherever the directory went. A symlink at the final name raises
    `PathChanged` (the walk followed any symlink; one appearing since is a change).
    """
    if not location.rest:
        raise IsADirectoryError(21, "Is a directory", str(location.real))
    created: list[beneath.Created] = []
    if len(location.rest) > 1:
        if not make_parents:
            raise FileNotFoundError(2, "No such file or directory", str(location.real.parent))
        created = beneath.make_parents(location)
    try:
        _replace(location, data)
    except BaseException:
        beneath.remove_created(created)
        raise
    beneath.release_created(created)


def _replace(location: Location, data: bytes) -> None:
    dir_fd, name = location.dir_fd, location.name
    try:
        existing: os.stat_result | None = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        existing = None
    if existing is not None and stat.S_ISLNK(existing.st_mode):
        raise PathChanged(40, f"{name} became a symlink", str(location.real))
    if existing is not None and stat.S_ISDIR(existing.st_mode):
        raise IsADirectoryError(21, "Is a directory", str(location.real))
    fd, temp = _create_temp(dir_fd, name)
    backup: str | None = None
    try:
        try:
            _fill(fd, data, existing)
        finally:
            os.close(fd)
        if existing is not None:
            backup = _link_backup(dir_fd, name)
        os.rename(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=dir_fd)
        if backup is not None:
            with contextlib.suppress(OSError):
                os.unlink(backup, dir_fd=dir_fd)
        raise
    if not beneath.same_directory(location.dir, dir_fd):
        _undo(dir_fd, name, backup)
        raise PathChanged(
            16,
            f"{location.dir} was moved during the write; the write was undone",
            str(location.real),
        )
    if backup is not None:
        with contextlib.suppress(OSError):
            os.unlink(backup, dir_fd=dir_fd)
    fsync_dir_fd(dir_fd)


def _undo(dir_fd: int, name: str, backup: str | None) -> None:
    with contextlib.suppress(OSError):
        if backup is not None:
            os.rename(backup, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        else:
            os.unlink(name, dir_fd=dir_fd)


def atomic_write_bytes(
    path: Path, data: bytes, *, make_parents: bool = True, follow_symlinks: bool = True
) -> None:
    """Replace `path` (or create it) with `data` atomically.

    A symlink at `path` is followed: the file it points to is replaced and the link kept. With
    `follow_symlinks` False, `path` must be a real path (a symlink on it raises `PathChanged`).
    """
    with beneath.locate(path, follow_symlinks=follow_symlinks) as location:
        write_at(location, data, make_parents=make_parents)


def atomic_write_text(path: Path, content: str, *, make_parents: bool = True) -> None:
    """Replace `path` with `content` encoded as UTF-8; line endings are written exactly as given."""
    atomic_write_bytes(path, content.encode("utf-8"), make_parents=make_parents)


def delete_file(path: Path) -> None:
    """Remove the file at the real path `path` if it exists and make the removal durable.

    Nothing on `path` may be a symlink (`PathChanged`): a path recorded as real that now leads
    elsewhere is not followed."""
    try:
        location = beneath.locate(path, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return
    with location:
        if not location.exists or not location.rest:
            return
        try:
            os.unlink(location.name, dir_fd=location.dir_fd)
        except FileNotFoundError:
            return
        fsync_dir_fd(location.dir_fd)

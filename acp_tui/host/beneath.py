"""Resolve a path with directory file descriptors, so what is checked is what gets opened.

`locate(path)` walks an absolute path one component at a time from ``/``: each directory is
opened relative to the previous one with ``O_NOFOLLOW``, and a symlink met on the way is read
(``readlinkat``) and spliced into the rest of the walk, as the kernel would, so the real path is
known exactly and an open descriptor of the deepest existing directory comes with it. A symlink
swapped in after that directory was opened cannot redirect anything done through the descriptor
(``openat``, ``mkdirat``, ``renameat`` with ``dir_fd``). Components below the deepest existing
directory are kept as written (``..`` among them collapses lexically), like `os.path.realpath`.

A directory can still be *moved* (renamed) while we hold it; `same_directory` re-walks a real
path without following any symlink and tells whether it still leads to the held directory.
Blocking: run these in a thread from async code. POSIX only (``dir_fd`` support).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

MAX_SYMLINKS = 40
_PATH_FLAG = getattr(os, "O_PATH", os.O_RDONLY)  # O_PATH: traversable without read permission
DIR_FLAGS = os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC | _PATH_FLAG


class PathChanged(OSError):
    """The file system changed under a walk (a component became a symlink, a directory moved)."""


@dataclass
class Location:
    """Where a path leads. Owns `dir_fd` (close it, or use the location as a context manager)."""

    dir_fd: int  # the deepest existing directory on the way, opened O_PATH|O_NOFOLLOW
    dir: Path  # its real path
    rest: tuple[str, ...]  # names below `dir`: the existing final entry, or what does not exist yet
    stat: os.stat_result | None  # lstat of the existing final entry (never a symlink)

    @property
    def real(self) -> Path:
        """The location's path as walked (its directory joined with the rest)."""
        return self.dir.joinpath(*self.rest)

    @property
    def exists(self) -> bool:
        """Whether the final name exists (as found by the no-follow walk)."""
        return self.stat is not None

    @property
    def name(self) -> str:
        """The final component's name ("" for the root itself)."""
        return self.rest[-1] if self.rest else ""

    @property
    def complete(self) -> bool:
        """The parent directory of the target exists (only the target itself may be missing)."""
        return len(self.rest) <= 1

    def close(self) -> None:
        """Close the directory descriptor the location holds."""
        if self.dir_fd >= 0:
            os.close(self.dir_fd)
            self.dir_fd = -1

    def __enter__(self) -> Location:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _components(path: str) -> list[str]:
    return [part for part in path.split("/") if part not in ("", ".")]


def _walk(path: Path | str, follow_symlinks: bool) -> Location:
    text = os.fspath(path)
    if not text.startswith("/"):
        raise ValueError(f"not an absolute path: {text!r}")
    stack = [os.open("/", DIR_FLAGS)]  # stack[i] is the directory `names[:i]`
    names: list[str] = []
    virtual: list[str] = []  # components below the deepest existing directory
    pending = _components(text)
    links = 0
    final: os.stat_result | None = None
    try:
        while pending:
            part = pending.pop(0)
            if part == "..":
                if virtual:
                    virtual.pop()
                elif names:
                    os.close(stack.pop())
                    names.pop()
                continue
            if virtual:
                virtual.append(part)
                continue
            try:
                info = os.stat(part, dir_fd=stack[-1], follow_symlinks=False)
            except FileNotFoundError:
                virtual.append(part)
                continue
            if stat.S_ISLNK(info.st_mode):
                if not follow_symlinks:
                    raise PathChanged(errno.ELOOP, f"{part} is a symlink", text)
                links += 1
                if links > MAX_SYMLINKS:
                    raise OSError(errno.ELOOP, "Too many levels of symbolic links", text)
                try:
                    target = os.readlink(part, dir_fd=stack[-1])
                except OSError as cause:
                    if cause.errno in (errno.EINVAL, errno.ENOENT):  # no longer a symlink
                        raise PathChanged(cause.errno, f"{part} changed during the walk") from None
                    raise
                if target.startswith("/"):
                    for fd in stack[1:]:
                        os.close(fd)
                    del stack[1:]
                    names.clear()
                pending[:0] = _components(target)
                continue
            if not pending:  # the final entry exists and is not a symlink
                virtual.append(part)
                final = info
                break
            if not stat.S_ISDIR(info.st_mode):
                raise NotADirectoryError(errno.ENOTDIR, "Not a directory", text)
            stack.append(_open_dir(part, stack[-1]))
            names.append(part)
    except BaseException:
        for fd in stack:
            os.close(fd)
        raise
    for fd in stack[:-1]:
        os.close(fd)
    if not virtual:  # the path names a directory itself (e.g. "/" or "/p/d/..")
        final = os.fstat(stack[-1])
    return Location(stack[-1], Path("/", *names), tuple(virtual), final)


def locate(path: Path | str, *, follow_symlinks: bool = True, attempts: int = 3) -> Location:
    """Walk the absolute `path` (symlinks followed, the final one too); see the module doc.

    With `follow_symlinks` False the path must be real: any symlink on it raises `PathChanged`.
    A walk that meets a component changing under it is retried a few times. Raises
    `NotADirectoryError` when a non-directory is in the middle of the path, `OSError` (ELOOP)
    for a symlink loop, `PathChanged` when the path kept changing, and other `OSError`s.
    """
    for attempt in range(attempts):
        try:
            return _walk(path, follow_symlinks)
        except PathChanged:
            if attempt == attempts - 1:
                raise
    raise AssertionError("unreachable")


def _open_dir(name: str, dir_fd: int) -> int:
    try:
        return os.open(name, DIR_FLAGS, dir_fd=dir_fd)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR, errno.ENOENT):
            raise PathChanged(error.errno, f"{name} changed during the walk") from error
        raise


def open_real_dir(real: Path) -> int:
    """Open the directory at the real path `real` without following any symlink."""
    fd = os.open("/", DIR_FLAGS)
    try:
        for part in real.parts[1:]:
            next_fd = _open_dir(part, fd)
            os.close(fd)
            fd = next_fd
    except BaseException:
        os.close(fd)
        raise
    return fd


def same_directory(real: Path, dir_fd: int) -> bool:
    """Whether the real path `real` (walked without following symlinks) is the held directory."""
    try:
        fd = open_real_dir(real)
    except OSError:
        return False
    try:
        here, held = os.fstat(fd), os.fstat(dir_fd)
    finally:
        os.close(fd)
    return (here.st_dev, here.st_ino) == (held.st_dev, held.st_ino)


def make_parents(location: Location) -> list[Created]:
    """Create the missing directories of `location.rest[:-1]` below `location.dir_fd`.

    On return `location.dir_fd`/`dir` are the target's parent and `rest` is its name. Returns
    the directories created, innermost last, for `remove_created` / `release_created` (which
    close the parent fds they hold). A name that turns out to be a symlink raises `PathChanged`.
    """
    created: list[Created] = []
    while len(location.rest) > 1:
        name = location.rest[0]
        made = True
        try:
            os.mkdir(name, 0o777, dir_fd=location.dir_fd)
        except FileExistsError:
            made = False  # raced with someone creating it: opened with O_NOFOLLOW all the same
        fd = _open_dir(name, location.dir_fd)
        if made:
            info = os.fstat(fd)
            created.append(Created(os.dup(location.dir_fd), name, info.st_dev, info.st_ino))
        os.close(location.dir_fd)
        location.dir_fd = fd
        location.dir = location.dir / name
        location.rest = location.rest[1:]
    return created


@dataclass(frozen=True)
class Created:
    """A directory `make_parents` made: its name in the parent held by `dir_fd`, its identity."""

    dir_fd: int
    name: str
    dev: int
    ino: int


def remove_created(created: list[Created]) -> None:
    """Remove (if still empty and still the one we made) and forget `make_parents`' directories."""
    for made in reversed(created):
        with contextlib.suppress(OSError):
            info = os.stat(made.name, dir_fd=made.dir_fd, follow_symlinks=False)
            if (info.st_dev, info.st_ino) == (made.dev, made.ino):
                os.rmdir(made.name, dir_fd=made.dir_fd)
    release_created(created)


def release_created(created: list[Created]) -> None:
    """Close the descriptors of directories the walk created and forget them."""
    for made in created:
        os.close(made.dir_fd)
    created.clear()

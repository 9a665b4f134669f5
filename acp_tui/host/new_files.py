"""Files and directories acp-tui creates new, never replacing anything: a private temporary
directory (the inputs of `git merge-file`, `acp-tui check`'s scratch directory, the demo's
sample project), the temporary file handed to the system viewer, a registry agent's download
and its archive unpacked below a directory acp-tui made.

Every path is walked with directory descriptors (`beneath`) without following any symlink: a
symlink on the way (an archive's own link member, or one planted meanwhile) is refused
(`beneath.PathChanged`), never followed, so what is created lands where the path says, and a file
is created with ``O_EXCL | O_NOFOLLOW`` (a name that exists is `FileExistsError`). Missing
directories on the way are made through the same walk. Reads here are of files acp-tui made
itself (the download), opened the same way.

The temporary directory and file come from `tempfile.mkdtemp`/`mkstemp` (a fresh random name
made with ``O_EXCL``, mode 0700/0600): that is what is right for a shared /tmp; they are made here
so that there is one place that creates files.
Blocking: run in a thread from async code.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import BinaryIO

from acp_tui.host import beneath

_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
PREFIX = "acp-tui-"


def private_directory(prefix: str = PREFIX, parent: Path | None = None) -> Path:
    """A new directory (mode 0700, a random name starting with `prefix`) in `parent` or the
    system's temporary directory; its real path. The caller removes it (`remove_tree`)."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir=parent)).resolve()


@contextlib.contextmanager
def private_scratch(prefix: str = PREFIX) -> Iterator[Path]:
    """`private_directory` for the time of the `with`, removed with what it holds after."""
    directory = private_directory(prefix)
    try:
        yield directory
    finally:
        remove_tree(directory)


def private_tree(prefix: str, files: Mapping[str, str]) -> Path:
    """A new `private_directory` holding `files` (relative path → UTF-8 text, mode 0644, their
    directories made): the demo's sample project. Its real path; left for the session."""
    root = private_directory(prefix)
    for relative, text in files.items():
        write_new(root / relative, text.encode("utf-8"), mode=0o644)
    return root


def remove_tree(path: Path) -> None:
    """Remove the directory `path` and everything in it, errors ignored (`shutil.rmtree`, which
    walks by descriptors and never follows a symlink inside)."""
    shutil.rmtree(path, ignore_errors=True)


def temp_file(data: bytes, *, suffix: str = "", prefix: str = PREFIX) -> Path:
    """A new file (mode 0600, a random name, `mkstemp`) in the system's temporary directory
    holding `data`; its path. Left for the program it is handed to (the system viewer, which
    runs detached and may read it late)."""
    fd, name = tempfile.mkstemp(prefix=prefix, suffix=suffix)
    with os.fdopen(fd, "wb") as file:
        file.write(data)
    return Path(name)


def _parent_of(path: Path) -> beneath.Location:
    """The walk to `path`'s directory, missing directories made; `rest` is the final name."""
    location = beneath.locate(path, follow_symlinks=False)
    if not location.rest:
        location.close()
        raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
    try:
        beneath.release_created(beneath.make_parents(location))
    except BaseException:
        location.close()
        raise
    return location


def create_file(path: Path, *, mode: int = 0o600) -> BinaryIO:
    """A new file at the absolute `path` opened for writing (`mode`, less the umask); see the
    module doc for what is refused."""
    with _parent_of(path) as location:
        fd = os.open(location.name, _CREATE, mode, dir_fd=location.dir_fd)
    return os.fdopen(fd, "wb")


def write_new(path: Path, data: bytes, *, mode: int = 0o600) -> None:
    """`create_file` holding `data`."""
    with create_file(path, mode=mode) as file:
        file.write(data)


def make_directory(path: Path) -> None:
    """The directory at the absolute `path`, made with its missing parents (an existing one is
    kept); a symlink on the way or at `path` is refused."""
    with _parent_of(path) as location:
        try:
            os.mkdir(location.name, 0o777, dir_fd=location.dir_fd)
        except FileExistsError:
            info = os.stat(location.name, dir_fd=location.dir_fd, follow_symlinks=False)
            if not stat.S_ISDIR(info.st_mode):
                raise


def make_symlink(path: Path, target: str) -> None:
    """A new symbolic link at the absolute `path` that reads `target` (checked by the caller:
    the link is made, not followed)."""
    with _parent_of(path) as location:
        os.symlink(target, location.name, dir_fd=location.dir_fd)


def make_hard_link(path: Path, existing: Path) -> None:
    """A new name `path` for the file at `existing` (both absolute, neither walked through a
    symlink; a symlink at `existing` is linked as itself)."""
    with beneath.locate(existing, follow_symlinks=False) as source:
        if not source.exists or not source.rest:
            raise FileNotFoundError(errno.ENOENT, "No such file", str(existing))
        with _parent_of(path) as location:
            os.link(
                source.name,
                location.name,
                src_dir_fd=source.dir_fd,
                dst_dir_fd=location.dir_fd,
                follow_symlinks=False,
            )


def open_own(path: Path) -> BinaryIO:
    """A regular file acp-tui made (a download), opened for reading; nothing on the way may be
    a symlink."""
    with beneath.locate(path, follow_symlinks=False) as location:
        if not location.exists or not location.rest:
            raise FileNotFoundError(errno.ENOENT, "No such file", str(path))
        fd = os.open(location.name, _READ, dir_fd=location.dir_fd)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def make_executable(path: Path) -> None:
    """Add the execute bits (0o755) to the regular file at the real path `path`."""
    with open_own(path) as file:
        mode = stat.S_IMODE(os.fstat(file.fileno()).st_mode)
        os.fchmod(file.fileno(), mode | 0o755)


def move_into_place(source: Path, destination: Path) -> None:
    """Rename `source` to `destination` (both absolute, in one file system, neither walked
    through a symlink; as rename(2): an empty directory there is replaced, one that is not
    empty is an `OSError`)."""
    with (
        beneath.locate(source, follow_symlinks=False) as old,
        beneath.locate(destination, follow_symlinks=False) as new,
    ):
        if not old.exists or not old.rest:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(source))
        if not new.complete or not new.rest:
            raise FileNotFoundError(errno.ENOENT, "No such directory", str(destination.parent))
        os.rename(old.name, new.name, src_dir_fd=old.dir_fd, dst_dir_fd=new.dir_fd)

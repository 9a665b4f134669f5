"""The UI's few reads and writes of local files, done here so they follow the file host's rules:
every open goes through a `beneath` walk (directory fds, ``O_NOFOLLOW`` on the final name),
only regular files are read (a FIFO or a device is refused, never opened for a blocking read),
and reads are bounded in size. Used for the file under review, the Changes view's current
content, theme files, the $EDITOR draft (in a private directory made here) and what a path the
user typed or pasted is (`path_kind`: the @-mention chips, a pasted media file); and by the
layers below the UI for the files they read that are not the agent's requests: a `--replay`
log (`open_regular`: read in blocks, kept open), the registry's cached index, a linked
worktree's `.git` file.

Errors are `LocalFileError`s (an `OSError`) whose message names the path and says why.
Blocking: run in a thread from async code.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import BinaryIO, Literal

from acp_tui.host import beneath
from acp_tui.host.atomic_write import atomic_write_bytes
from acp_tui.host.beneath import PathChanged
from acp_tui.host.open_beneath import NotRegularFile, open_entry

DEFAULT_MAX_BYTES = 50 * 1024 * 1024
_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC


class LocalFileError(OSError):
    """A local file acp-tui would not or could not read; the message says why."""


PathKind = Literal["file", "directory", "other"]


def path_kind(path: Path) -> PathKind | None:
    """What is at `path` the user named (symlinks followed, nothing opened): a regular file, a
    directory, something else; None when nothing is there or it cannot be looked at.

    Args:
        path: an absolute path the user typed (an @-mention) or pasted.
    """
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):  # ValueError: a NUL in the name
        return None
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "directory"
    return "other"


def real_path(path: Path) -> Path:
    """`path` with every symlink resolved (what the user's directory really is: the key of its
    permission rules, the cwd a session gets); nothing opened.

    Args:
        path: a path the user typed or the command line gave.
    """
    return path.resolve()


def directory_at(path: Path) -> Path | None:
    """The real path of the directory at `path` the user typed; None when it is not one.

    Args:
        path: an absolute path the user typed (another directory for a new session).
    """
    return real_path(path) if path_kind(path) == "directory" else None


def read_regular(
    path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES, follow: bool = False
) -> bytes | None:
    """The bytes of the regular file at the absolute `path`; None when nothing is there.

    Without `follow` a symlink anywhere on `path` is refused (the path must be real); with it,
    symlinks are followed by the walk (read and spliced), the final file still opened with
    ``O_NOFOLLOW`` relative to its directory's descriptor.
    """
    try:
        location = beneath.locate(path, follow_symlinks=follow)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except PathChanged:
        raise LocalFileError(f"{path} is or goes through a symbolic link: not read") from None
    except OSError as error:
        raise LocalFileError(f"cannot read {path}: {error.strerror or error}") from None
    with location:
        if location.stat is None:
            return None
        if not location.rest or not stat.S_ISREG(location.stat.st_mode):
            raise LocalFileError(f"{path} is not a regular file: not read")
        try:
            fd = os.open(location.name, _READ_FLAGS, dir_fd=location.dir_fd)
        except FileNotFoundError:
            return None
        except OSError as error:
            raise LocalFileError(f"cannot read {path}: {error.strerror or error}") from None
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise LocalFileError(f"{path} is not a regular file: not read")
        if info.st_size > max_bytes:
            raise LocalFileError(f"{path} is too large ({info.st_size} bytes): not read")
        data = file.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise LocalFileError(f"{path} is too large (over {max_bytes} bytes): not read")
    return data


def open_regular(path: Path) -> BinaryIO:
    """The regular file at the absolute `path` (symlinks followed by the walk, the final name
    opened ``O_NOFOLLOW`` relative to its directory), open for reading in blocks; a directory, a
    FIFO or a device is refused (`LocalFileError`) without any blocking open. `FileNotFoundError`
    when nothing is there."""
    try:
        opened = open_entry(path)
    except FileNotFoundError:
        raise
    except NotRegularFile as error:
        raise LocalFileError(f"{error.strerror}: not read") from None
    except OSError as error:
        raise LocalFileError(f"cannot read {path}: {error.strerror or error}") from None
    if opened.is_dir:
        opened.close()
        raise LocalFileError(f"{path} is a directory: not read")
    os.set_blocking(opened.fd, True)
    return os.fdopen(opened.fd, "rb")


def read_regular_text(
    path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES, follow: bool = False
) -> str | None:
    """`read_regular` decoded as UTF-8 (undecodable bytes shown as U+FFFD)."""
    data = read_regular(path, max_bytes=max_bytes, follow=follow)
    return None if data is None else data.decode("utf-8", errors="replace")


@contextlib.contextmanager
def private_draft(text: str, name: str = "prompt.md") -> Iterator[Path]:
    """A file `name` holding `text` in a new private directory (mode 0700, `mkdtemp`), for an
    editor to change; the directory and what is in it are removed afterwards."""
    directory = Path(tempfile.mkdtemp(prefix="acp-tui-")).resolve()
    try:
        path = directory / name
        atomic_write_bytes(path, text.encode("utf-8"), follow_symlinks=False)
        yield path
    finally:
        shutil.rmtree(directory, ignore_errors=True)


async def watch_file(path: Path) -> AsyncIterator[bool]:
    """Yields False once the watch runs (the file's directory), then True each time `path`
    changes. Nothing is yielded when the directory does not exist."""
    from watchfiles import awatch

    parent = path.parent
    if not parent.is_dir():
        return
    target = str(path)
    first = True
    async for changes in awatch(
        parent, debounce=300, rust_timeout=200, yield_on_timeout=True, recursive=False
    ):
        if first:
            first = False
            yield False
        elif any(changed == target for _, changed in changes):
            yield True

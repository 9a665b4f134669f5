"""A log file acp-tui appends whole lines to (the `--log` traffic log, each tab's beside it),
opened and written by the host's rules.

`open_append_log(path)` walks the real, absolute `path` with directory descriptors (`beneath`)
without following any symlink: a symlink planted on the way or at the file's name (an agent
could make `log.tab2.jsonl -> ~/.ssh/authorized_keys` before the second tab starts) is refused,
never followed, and so is a hard-linked file (its other name could be any file of the user's) and
anything that is not a regular file (a FIFO is never waited on: the open does not block). Missing
directories are made through the walk; a new file is private (0600: the frames can hold tokens).

`AppendLog.append` writes under an exclusive `flock` on the file and with ``O_APPEND``, so two
acp-tui processes logging to one path never split or interleave each other's lines and never
overwrite them. Blocking, but briefly: the lock is held for one write.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import time
from pathlib import Path

from acp_tui.host import beneath

_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
PATIENCE_SECONDS = 0.5
"""How long a patient `append` (at close, at exit) waits for another writer's lock before it
writes anyway: an acp-tui holds it for one write, so only a stuck process holds it longer."""


class AppendLogError(OSError):
    """The log file was not opened: the message names the path and says why."""


class AppendLog:
    """An open log file: whole lines appended under the file's lock. Owns the descriptor."""

    def __init__(self, fd: int, path: Path) -> None:
        self._fd = fd
        self.path = path

    def append(self, data: bytes, *, patient: bool = False) -> bool:
        """Append `data` (whole lines) at the end of the file in one piece; False (nothing
        written) when another writer holds the lock, unless `patient`: then it waits up to
        `PATIENCE_SECONDS` for it and writes in any case. Raises `OSError` when the file is
        closed or the write fails."""
        if self._fd < 0:
            raise OSError(errno.EBADF, "the log is closed", str(self.path))
        locked = _try_lock(self._fd)
        if not locked and not patient:
            return False
        deadline = time.monotonic() + PATIENCE_SECONDS
        while not locked and time.monotonic() < deadline:
            time.sleep(0.01)
            locked = _try_lock(self._fd)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view) :]
        finally:
            if locked:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
        return True

    def close(self) -> None:
        """Close the file (later appends raise)."""
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            os.close(fd)


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def open_append_log(path: Path) -> AppendLog:
    """Open (or create) the log file at the real, absolute `path` for appending; see the module
    doc for what is refused (`AppendLogError`)."""
    try:
        location = beneath.locate(path, follow_symlinks=False)
    except beneath.PathChanged:
        raise AppendLogError(
            errno.ELOOP, "is or goes through a symbolic link: not followed", str(path)
        ) from None
    created: list[beneath.Created] = []
    with location:
        if not location.rest:
            raise AppendLogError(errno.EISDIR, "is a directory", str(path))
        try:
            if len(location.rest) > 1:
                created = beneath.make_parents(location)
            fd = os.open(location.name, _FLAGS, 0o600, dir_fd=location.dir_fd)
        except OSError as error:
            beneath.remove_created(created)
            if error.errno == errno.ELOOP or isinstance(error, beneath.PathChanged):
                raise AppendLogError(
                    errno.ELOOP, "is or goes through a symbolic link: not followed", str(path)
                ) from None
            raise AppendLogError(error.errno, error.strerror or str(error), str(path)) from None
        beneath.release_created(created)
    info = os.fstat(fd)
    problem = None
    if not stat.S_ISREG(info.st_mode):
        problem = "is not a regular file"
    elif info.st_nlink > 1:
        problem = "has another name (a hard link): not written"
    if problem is not None:
        os.close(fd)
        raise AppendLogError(errno.EPERM, problem, str(path))
    os.set_blocking(fd, True)
    return AppendLog(fd, location.real)

"""A recursive watch of a directory tree with Linux inotify, read on the event loop.

No thread and no timer: the inotify descriptor is one more reader of the loop (`attach`), so a
tree where nothing changes costs nothing. `arm()` (blocking: call it in a worker thread) opens
the descriptor and adds a watch to every directory of the tree; a directory created (or moved
in) later is watched when its event is read, in a worker thread, and the entries already in it
are reported as added (they may have been made before its watch was). Events are reported as
watchfiles numbers them (`ADDED`, `MODIFIED`, `DELETED`) with absolute paths; a queue overflow
(the kernel dropped events) is reported as the root modified. When the user's limit of watches
(`fs.inotify.max_user_watches`) is reached, the directories left are not watched: `full` says so,
and `on_full` is called (on the loop) when it happens after `arm`.

`available()` says whether this works here (Linux with inotify); elsewhere the shared watcher
falls back to watchfiles (`acp_tui.host.dir_watch`).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import struct
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

ADDED, MODIFIED, DELETED = 1, 2, 3
"""watchfiles' `Change` values."""

Event = tuple[int, str]
"""(ADDED / MODIFIED / DELETED, absolute path)."""

IN_MODIFY = 0x2
IN_CLOSE_WRITE = 0x8
IN_MOVED_FROM = 0x40
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ONLYDIR = 0x1000000
IN_DONT_FOLLOW = 0x2000000
IN_EXCL_UNLINK = 0x4000000
IN_ISDIR = 0x40000000
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = os.O_CLOEXEC

MASK = (
    IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
    | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK
)  # fmt: skip
HEADER = struct.Struct("iIII")
READ_SIZE = 1 << 16


_LIBC: Any = None
_LOADED = False


def _libc() -> Any:
    """libc's inotify functions (ctypes), loaded at the first call; None where there are none."""
    global _LIBC, _LOADED
    if _LOADED:
        return _LIBC
    _LOADED = True
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # (not on the way to the first frame)

    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.inotify_init1.argtypes = [ctypes.c_int]
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        libc.inotify_rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]
    except (OSError, AttributeError):
        return None
    _LIBC = libc
    return libc


def available() -> bool:
    """Whether inotify works here (loads libc's functions: may take a few milliseconds)."""
    return _libc() is not None


def _errno() -> int:
    import ctypes

    return ctypes.get_errno()


class InotifyTree:
    """One recursive inotify watch of `root`, reporting lists of events to `on_events` (on the
    loop it is attached to)."""

    def __init__(self, root: Path, on_events: Callable[[list[Event]], None]) -> None:
        self.root = root
        self.on_events = on_events
        self.fd = -1
        self._paths: dict[int, str] = {}
        """Watch descriptor → the directory it watches."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._full = False
        self.on_full: Callable[[], None] | None = None
        """Called once, on the loop, when the limit of watches is reached after `arm`."""
        self._told_full = False
        self.unwatched: list[str] = []
        """The directories left unwatched (not their subdirectories) once the limit was
        reached (so that what they hold can be looked at once they are watched otherwise)."""
        self.closed = False
        self._lock = threading.Lock()
        """Between `arm` (a worker thread) and `close`: the descriptor is closed exactly once."""

    @property
    def watched(self) -> int:
        """Directories watched now."""
        return len(self._paths)

    @property
    def full(self) -> bool:
        """The limit of inotify watches was reached: some directories are not watched."""
        return self._full

    def arm(self) -> None:
        """(blocking) Open the descriptor and watch every directory of the tree."""
        libc = _libc()
        assert libc is not None
        fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            raise OSError(_errno(), "inotify_init1 failed")
        with self._lock:
            if self.closed:  # given up while this thread started
                os.close(fd)
                return
            self.fd = fd
        self._add_tree(str(self.root), report=False)

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Read the descriptor on `loop` (one more reader: nothing runs while nothing changes)."""
        self._loop = loop
        loop.add_reader(self.fd, self._read)

    def drain(self) -> None:
        """(on the loop) Read what the descriptor holds now and hand it out."""
        if self._loop is not None and not self.closed:
            self._read()

    def close(self) -> None:
        """Stop reading and close the descriptor (its watches go with it); idempotent."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            fd, self.fd = self.fd, -1
        if self._loop is not None and fd >= 0:
            self._loop.remove_reader(fd)
        if fd >= 0:
            os.close(fd)
        self._paths.clear()

    # ---- watches ------------------------------------------------------------------------------

    def _add_tree(self, top: str, report: bool) -> list[Event]:
        """(blocking) Watch `top` and every directory below it; the entries found, as added
        (when `report`)."""
        found: list[Event] = []
        stack = [top]
        while stack and not self.closed:
            directory = stack.pop()
            if not self._add(directory):
                if self._full:
                    self.unwatched.append(directory)
                continue
            try:
                entries = list(os.scandir(directory))
            except OSError:
                continue
            for entry in entries:
                if report:
                    found.append((ADDED, entry.path))
                try:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                except OSError:
                    continue
        return found

    def _add(self, directory: str) -> bool:
        libc = _libc()
        fd = self.fd
        if fd < 0 or self._full or libc is None:
            return False
        wd = libc.inotify_add_watch(fd, os.fsencode(directory), MASK)
        if wd < 0:
            error = _errno()
            if error == errno.ENOSPC:
                self._full = True
                log.warning(
                    "inotify watch limit reached under %s: later directories are not watched "
                    "(raise fs.inotify.max_user_watches)",
                    self.root,
                )
            return False
        self._paths[wd] = directory
        return True

    def _forget_tree(self, top: str) -> None:
        """Stop watching `top` and what is below it (it moved away)."""
        libc = _libc()
        prefix = top + os.sep
        for wd, directory in list(self._paths.items()):
            if directory == top or directory.startswith(prefix):
                self._paths.pop(wd, None)
                if libc is not None:
                    libc.inotify_rm_watch(self.fd, wd)

    def _watch_new(self, directory: str) -> None:
        """A directory appeared: watch it in a worker thread, then report what it holds."""
        loop = self._loop
        if loop is None:
            return
        future = loop.run_in_executor(None, self._add_tree, directory, True)
        future.add_done_callback(self._new_tree_listed)

    def _new_tree_listed(self, future: asyncio.Future[list[Event]]) -> None:
        if self.closed or future.cancelled():
            return
        error = future.exception()
        if error is not None:
            log.warning("could not watch a new directory under %s: %s", self.root, error)
        elif found := future.result():
            self.on_events(found)
        if self._full and not self._told_full and not self.closed:
            self._told_full = True
            if self.on_full is not None:
                self.on_full()

    # ---- reading ------------------------------------------------------------------------------

    def _read(self) -> None:
        events: list[Event] = []
        while not self.closed:
            try:
                data = os.read(self.fd, READ_SIZE)
            except BlockingIOError:
                break
            except OSError as error:
                log.warning("inotify read failed under %s: %s", self.root, error)
                break
            if not data:
                break
            self._parse(data, events)
        if events:
            self.on_events(events)

    def _parse(self, data: bytes, events: list[Event]) -> None:
        offset = 0
        while offset + HEADER.size <= len(data):
            wd, mask, _cookie, length = HEADER.unpack_from(data, offset)
            raw = data[offset + HEADER.size : offset + HEADER.size + length].rstrip(b"\0")
            offset += HEADER.size + length
            if mask & IN_Q_OVERFLOW:
                events.append((MODIFIED, str(self.root)))
                continue
            if mask & IN_IGNORED:
                self._paths.pop(wd, None)
                continue
            directory = self._paths.get(wd)
            if directory is None or not raw:
                continue
            path = os.path.join(directory, os.fsdecode(raw))
            if mask & (IN_CREATE | IN_MOVED_TO):
                events.append((ADDED, path))
                if mask & IN_ISDIR:
                    self._watch_new(path)
            elif mask & (IN_DELETE | IN_MOVED_FROM):
                events.append((DELETED, path))
                if mask & IN_ISDIR and mask & IN_MOVED_FROM:
                    self._forget_tree(path)
            else:
                events.append((MODIFIED, path))

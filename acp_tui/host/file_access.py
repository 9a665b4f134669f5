"""The file host's blocking I/O: every open goes through a `beneath` walk (directory fds).

Reads open the final file relative to the walked directory with ``O_NOFOLLOW`` and read from that
descriptor, so the file that was resolved is the file that is read. A write is looked at twice:
`inspect` when it is checked (what it replaces, read through the walk unless it is too large), and
`commit` right before the write, after any review: a new walk must lead to the same real path with
the same facts (no new hard link, not newly read-only or too large) and the same content, else the
caller is told (`Retarget` / `Changed`) and asks the user again. The write itself is `write_at`
through the new walk's directory descriptor.

Errors are `RpcError`s carrying ``{"path", "reason"}`` (see `filesystem`). Run in a thread.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from acp_tui.host import beneath
from acp_tui.host.atomic_write import write_at
from acp_tui.host.beneath import PathChanged
from acp_tui.protocol.errors import INTERNAL_ERROR, INVALID_PARAMS, RESOURCE_NOT_FOUND, RpcError

_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
_CHUNK = 1 << 20


@dataclass(frozen=True)
class Fingerprint:
    """What a file held when the agent last read it or acp-tui last wrote it."""

    sha256: str
    size: int
    mtime_ns: int
    source: Literal["read", "write"]
    time: float


def fingerprint(data: bytes, mtime_ns: int, source: Literal["read", "write"]) -> Fingerprint:
    """What acp-tui saw of a file when it last read or wrote it (hash, size, mtime), to notice
    later changes.
    """
    return Fingerprint(hashlib.sha256(data).hexdigest(), len(data), mtime_ns, source, time.time())


def error(code: int, message: str, path: str, reason: str) -> RpcError:
    """An RpcError whose data names the path and a machine-readable reason."""
    return RpcError(code, message, {"path": path, "reason": reason})


def os_error(verb: str, path: str, cause: OSError) -> RpcError:
    """An OSError as an RpcError for the agent ("cannot read x: Permission denied")."""
    message = f"cannot {verb} {path}: {cause.strerror or cause}"
    return error(INTERNAL_ERROR, message, path, "os_error")


def _not_a_file(info: os.stat_result, path: str) -> RpcError:
    if stat.S_ISDIR(info.st_mode):
        return error(INVALID_PARAMS, f"{path} is a directory, not a file", path, "is_directory")
    return error(INVALID_PARAMS, f"{path} is not a regular file", path, "not_regular_file")


def links_of(info: os.stat_result | None) -> int:
    """The hard link count that matters for the boundary (regular files only)."""
    return info.st_nlink if info is not None and stat.S_ISREG(info.st_mode) else 1


def is_read_only(info: os.stat_result | None, location: beneath.Location) -> bool:
    """Whether a regular file is meant read-only (no write bit, or not writable by this user)."""
    if info is None or not stat.S_ISREG(info.st_mode):
        return False
    if not info.st_mode & 0o222:
        return True  # no write bit at all (root could write it; it is still meant read-only)
    try:
        return not os.access(location.name, os.W_OK, dir_fd=location.dir_fd, follow_symlinks=False)
    except (NotImplementedError, OSError):
        return False


def _open_final(location: beneath.Location) -> int:
    try:
        return os.open(location.name, _READ_FLAGS, dir_fd=location.dir_fd)
    except OSError as cause:
        if cause.errno in (errno.ELOOP, errno.ENOENT):
            raise PathChanged(cause.errno, f"{location.name} changed during the walk") from cause
        raise


def _not_found(path: str) -> RpcError:
    # the message as the ACP SDKs word it (RequestError.resourceNotFound): agents match on it
    return error(RESOURCE_NOT_FOUND, f"Resource not found: {path}", path, "not_found")


def open_for_read(requested: Path, path: str) -> tuple[int, os.stat_result, Path]:
    """Open the regular file `requested` leads to: (fd, fstat, real path). The caller closes."""
    for attempt in range(3):
        try:
            with beneath.locate(requested) as location:
                if not location.exists:
                    raise _not_found(path)
                if not location.rest:
                    raise _not_a_file(os.fstat(location.dir_fd), path)
                fd = _open_final(location)
                info = os.fstat(fd)
                if not stat.S_ISREG(info.st_mode):
                    os.close(fd)
                    raise _not_a_file(info, path)
                return fd, info, location.real
        except PathChanged as cause:
            if attempt == 2:
                raise os_error("read", path, cause) from cause
        except NotADirectoryError as cause:
            raise _not_found(path) from cause
        except OSError as cause:
            raise os_error("read", path, cause) from cause
    raise AssertionError("unreachable")


def read_all(fd: int, info: os.stat_result, path: str, max_bytes: int) -> bytes:
    """The whole file (closing `fd`), refused above `max_bytes`."""
    with os.fdopen(fd, "rb") as file:
        if info.st_size > max_bytes:
            raise too_large(path, info.st_size, max_bytes)
        data = file.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise too_large(path, len(data), max_bytes)
    return data


def too_large(path: str, size: int, max_bytes: int) -> RpcError:
    """The error for a file over the read limit, with its size and the limit."""
    return error(
        INVALID_PARAMS,
        f"{path} is too large to read ({size} bytes; the limit is {max_bytes} bytes)",
        path,
        "too_large",
    )


def stream_lines(fd: int, path: str, line: int | None, limit: int | None, max_bytes: int) -> bytes:
    """Lines `line`.. of the file, at most `limit` of them, read in chunks (closing `fd`): memory
    stays bounded by the selection, itself refused above `max_bytes`."""
    skip = max((line or 1) - 1, 0)
    taken = 0
    out = bytearray()
    with os.fdopen(fd, "rb", buffering=0) as file:
        while limit != 0 and (limit is None or taken < limit):
            chunk = file.read(_CHUNK)
            if not chunk:
                break
            pos = 0
            if skip:
                newlines = chunk.count(b"\n")
                if newlines < skip:
                    skip -= newlines
                    continue
                while skip:
                    pos = chunk.index(b"\n", pos) + 1
                    skip -= 1
            if limit is None:
                out += chunk[pos:]
            else:
                while taken < limit and pos < len(chunk):
                    newline = chunk.find(b"\n", pos)
                    end = len(chunk) if newline < 0 else newline + 1
                    out += chunk[pos:end]
                    pos = end
                    taken += newline >= 0
            if len(out) > max_bytes:
                raise too_large(f"{path} (the selected lines)", len(out), max_bytes)
    return bytes(out)


# ---- writes -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """What a write would replace, as seen when it was checked."""

    real: Path
    info: os.stat_result | None  # None: the file does not exist
    before: bytes | None  # its bytes (None: new file, or `large`)
    large: bool  # over `max_read_bytes`: not read
    read_only: bool

    @property
    def links(self) -> int:
        """How many hard links the file has (a file with several is refused for writing)."""
        return links_of(self.info)


@dataclass(frozen=True)
class Retarget:
    """At write time the path led to `now`, not `was` (or to the same place with facts that need
    a question: a new hard link, read-only, too large; or a directory moved during the write)."""

    was: Path
    now: Path


@dataclass(frozen=True)
class Changed:
    """The file's content changed since it was inspected (`current`; None: it was deleted)."""

    current: bytes | None
    info: os.stat_result | None


@dataclass(frozen=True)
class Committed:
    real: Path
    mtime_ns: int


def inspect(requested: Path, path: str, max_bytes: int) -> Target:
    """What is at `requested` (walked beneath the session without following links): kind, size,
    content within `max_bytes`.
    """
    try:
        with beneath.locate(requested) as location:
            return _inspect_at(location, path, max_bytes)
    except RpcError:
        raise
    except OSError as cause:
        raise os_error("write", path, cause) from cause


def _inspect_at(location: beneath.Location, path: str, max_bytes: int) -> Target:
    info = location.stat
    if info is not None and not location.rest:
        raise _not_a_file(info, path)
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise _not_a_file(info, path)
    large = info is not None and info.st_size > max_bytes
    before = None
    if info is not None and not large:
        fd = _open_final(location)
        with os.fdopen(fd, "rb") as file:
            before = file.read()
    return Target(location.real, info, before, large, is_read_only(info, location))


def commit(
    requested: Path, expected: Target, data: bytes, path: str, max_bytes: int
) -> Committed | Retarget | Changed:
    """Write `data` where `requested` leads now, if that is still what `expected` describes."""
    try:
        with beneath.locate(requested) as location:
            if location.real != expected.real:
                return Retarget(expected.real, location.real)
            now = _inspect_at(location, path, max_bytes)
            if (
                now.links > max(expected.links, 1)
                or (now.read_only and not expected.read_only)
                or (now.large and not expected.large)
            ):
                return Retarget(expected.real, location.real)
            if _differs(expected, now):
                return Changed(now.before, now.info)
            write_at(location, data)
            try:
                mtime_ns = os.stat(location.name, dir_fd=location.dir_fd).st_mtime_ns
            except OSError:
                mtime_ns = 0
            return Committed(location.real, mtime_ns)
    except PathChanged:
        return Retarget(expected.real, beneath_real(requested))
    except RpcError:
        raise
    except OSError as cause:
        raise os_error("write", path, cause) from cause


def _differs(expected: Target, now: Target) -> bool:
    if now.large or expected.large:
        old, new = expected.info, now.info
        if old is None or new is None:
            return old is not new
        return _identity(old) != _identity(new)
    return now.before != expected.before


def _identity(info: os.stat_result) -> tuple[int, int, int]:
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def beneath_real(requested: Path) -> Path:
    """Where `requested` leads now (best effort, for naming it in a question)."""
    try:
        with beneath.locate(requested) as location:
            return location.real
    except OSError:
        pass
    try:
        return Path(os.path.realpath(requested))
    except OSError:
        return Path(os.path.normpath(requested))

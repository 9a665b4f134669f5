"""Answers the agent's `fs/read_text_file` and `fs/write_text_file` requests.

Params arrive as the raw JSON dicts of the ACP schema (ReadTextFileRequest / WriteTextFileRequest)
and are validated here. Every path goes through `PathPolicy` (the session-directory boundary).
Writes are atomic, recorded in `changes` (a `ChangeLog`), optionally reviewed by a `WriteGate`,
and refuse to silently clobber a file that changed on disk since the agent last read it (or
acp-tui last wrote it): the user is asked (Question kind ``"overwrite_changed"``).

Errors answered to the agent (`RpcError`; ``data`` is ``{"path", "reason", ...}``):

- -32602 invalid params: malformed params; relative path / NUL byte / outside-cwd denial (see
  `boundary`); reasons ``"is_directory"``, ``"not_regular_file"``, ``"binary"`` (not UTF-8 or
  contains NUL bytes), ``"too_large"``;
- -32002 resource not found: the file to read does not exist (reason ``"not_found"``);
- -32603 internal error: an OS error (reason ``"os_error"``); the user rejected the change in review
  (reason ``"rejected"``) or cancelled overwriting a changed file (reason ``"changed_on_disk"``).

Lines: `line` is 1-based (0 is treated as 1), `limit` counts lines; a line ends after ``"\\n"``
(so ``"\\r\\n"`` endings are kept intact). A `line` past the end or a `limit` of 0 gives ``""``.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from acp_tui.host.asker import Asker, Choice, Question
from acp_tui.host.atomic_write import atomic_write_bytes
from acp_tui.host.boundary import PathPolicy
from acp_tui.host.changes import ChangeLog, WriteRecord, decode_for_record
from acp_tui.protocol.errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    RESOURCE_NOT_FOUND,
    RpcError,
    invalid_params,
)

OVERWRITE_CHANGED = "overwrite_changed"
OVERWRITE = "overwrite"
CANCEL = "cancel"
OVERWRITE_CHOICES = (Choice(OVERWRITE, "Overwrite", "o"), Choice(CANCEL, "Cancel", "c"))


@dataclass(frozen=True)
class Reviewed:
    """A gate's answer that also says which on-disk text the user reviewed against, so a file
    that changed during review (and was re-diffed) is not questioned a second time."""

    content: str
    base: str | None


class WriteGate(Protocol):
    """The review step before a write (the UI shows a diff and lets the user pick hunks)."""

    async def review(
        self, path: Path, before: str | None, proposed: str
    ) -> str | Reviewed | None:
        """Return the content to write (maybe a merge of accepted hunks), or None to reject."""
        ...


@dataclass(frozen=True)
class Fingerprint:
    """What a file held when the agent last read it or acp-tui last wrote it."""

    sha256: str
    size: int
    mtime_ns: int
    source: Literal["read", "write"]
    time: float


def fingerprint(data: bytes, mtime_ns: int, source: Literal["read", "write"]) -> Fingerprint:
    return Fingerprint(hashlib.sha256(data).hexdigest(), len(data), mtime_ns, source, time.time())


def skip_lines(text: str, pos: int, count: int) -> int:
    """The index just after `count` more newlines from `pos`, or -1 if the text has fewer.

    Whole 64 KiB chunks are skipped with `str.count`, so far-away lines cost little Python.
    """
    chunk = 1 << 16
    while count > 0:
        end = pos + chunk
        in_chunk = text.count("\n", pos, end)
        if in_chunk < count and end < len(text):
            count -= in_chunk
            pos = end
            continue
        for _ in range(count):
            newline = text.find("\n", pos)
            if newline < 0:
                return -1
            pos = newline + 1
        return pos
    return pos


_UNKNOWN = object()


def select_lines(text: str, line: int | None, limit: int | None) -> str:
    """Lines `line`.. (1-based) of `text`, at most `limit` of them, line endings kept."""
    if line is None and limit is None:
        return text
    start = skip_lines(text, 0, max((line or 1) - 1, 0))
    if start < 0:
        return ""
    if limit is None:
        return text[start:]
    end = skip_lines(text, start, limit)
    return text[start:] if end < 0 else text[start:end]


class FileSystemHost:
    def __init__(
        self,
        cwd: Path,
        asker: Asker,
        *,
        extra_roots: Sequence[Path] = (),
        max_read_bytes: int = 50 * 1024 * 1024,
        write_gate: WriteGate | None = None,
    ) -> None:
        self.policy = PathPolicy(cwd, asker, extra_roots=extra_roots)
        self.changes = ChangeLog()
        self.max_read_bytes = max_read_bytes
        self.write_gate = write_gate
        self._asker = asker
        self._known: dict[Path, Fingerprint] = {}
        self._locks: dict[Path, asyncio.Lock] = {}
        self.changes.subscribe(self._remember_write)

    def known(self, path: Path) -> Fingerprint | None:
        """What acp-tui last saw of a resolved path (agent read or own write), if anything."""
        return self._known.get(path)

    async def read_text_file(self, params: Any) -> dict[str, Any]:
        fields = _object(params)
        _string(fields, "sessionId")
        path = _string(fields, "path")
        line = _optional_count(fields, "line")
        limit = _optional_count(fields, "limit")
        resolved = await self.policy.check(path, "read")
        content, seen = await asyncio.to_thread(
            _read_text, resolved, path, self.max_read_bytes, line, limit
        )
        self._known[resolved] = seen
        return {"content": content}

    async def write_text_file(self, params: Any) -> dict[str, Any]:
        fields = _object(params)
        _string(fields, "sessionId")
        path = _string(fields, "path")
        content = _string(fields, "content", allow_empty=True)
        _encode_content(content, path)  # refuse unencodable content before asking anything
        resolved = await self.policy.check(path, "write")
        async with self._locks.setdefault(resolved, asyncio.Lock()):
            before = await asyncio.to_thread(_read_existing, resolved, path)
            known = self._known.get(resolved)
            if known is not None and await asyncio.to_thread(_digest, before) != known.sha256:
                await self._confirm_overwrite(path, resolved, before, known.source)
            proposed = content
            if self.write_gate is not None:
                before_text, _ = decode_for_record(before)
                reviewed = await self.write_gate.review(resolved, before_text, content)
                if reviewed is None:
                    raise RpcError(
                        INTERNAL_ERROR,
                        f"the user rejected the change to {path}",
                        {"path": path, "reason": "rejected"},
                    )
                reviewed_base: str | object | None = _UNKNOWN
                if isinstance(reviewed, Reviewed):
                    proposed, reviewed_base = reviewed.content, reviewed.base
                else:
                    proposed = reviewed
                during = await asyncio.to_thread(_read_existing, resolved, path)
                if during != before:
                    if decode_for_record(during)[0] != reviewed_base:
                        await self._confirm_overwrite(path, resolved, during, "review")
                    before = during
            await self._write(path, resolved, before, proposed)
        return {}

    async def _write(self, path: str, resolved: Path, before: bytes | None, content: str) -> None:
        data = _encode_content(content, path)
        if before == data:  # nothing changes: no disk write, no record
            self._known[resolved] = fingerprint(data, _mtime_ns(resolved), "write")
            return
        try:
            await asyncio.to_thread(atomic_write_bytes, resolved, data)
        except OSError as error:
            raise _os_error("write", path, error) from error
        before_text, before_exact = decode_for_record(before)
        self.changes.add(resolved, before_text, content, before_bytes=before_exact)

    async def _confirm_overwrite(
        self,
        path: str,
        resolved: Path,
        current: bytes | None,
        since_when: Literal["read", "write", "review"],
    ) -> None:
        since = {
            "read": "since the agent last read it",
            "write": "since acp-tui last wrote it",
            "review": "while the change was being reviewed",
        }[since_when]
        what = "was deleted" if current is None else "changed on disk"
        question = Question(
            kind=OVERWRITE_CHANGED,
            title=f"{Path(path).name} {what} {since}",
            detail=f"{path} {what} {since}. Overwrite it with the agent's version?",
            choices=OVERWRITE_CHOICES,
            data={
                "path": path,
                "resolved": str(resolved),
                "deleted": current is None,
                "since": since_when,
            },
        )
        if await self._asker.ask(question) != OVERWRITE:
            raise RpcError(
                INTERNAL_ERROR,
                f"{path} {what} {since}; the user cancelled the write",
                {"path": path, "reason": "changed_on_disk"},
            )

    def _remember_write(self, record: WriteRecord) -> None:
        if record.reverts is not None:
            # The user reverted behind the agent's back: keep the agent's view, so its next write
            # to this file asks before overwriting the reverted content.
            return
        data = record.after_data()
        self._known[record.path] = fingerprint(data, _mtime_ns(record.path), "write")


# --- params ----------------------------------------------------------------------------------


def _object(params: Any) -> dict[str, Any]:
    if not isinstance(params, dict):
        raise invalid_params(f"params must be an object, got {type(params).__name__}")
    return params


def _string(fields: dict[str, Any], name: str, *, allow_empty: bool = False) -> str:
    value = fields.get(name)
    if not isinstance(value, str):
        got = "nothing" if value is None else type(value).__name__
        raise invalid_params(f"{name!r} must be a string, got {got}", {"param": name})
    if not value and not allow_empty:
        raise invalid_params(f"{name!r} must not be empty", {"param": name})
    return value


def _encode_content(content: str, path: str) -> bytes:
    try:
        return content.encode("utf-8")
    except UnicodeEncodeError as error:
        raise _error(
            INVALID_PARAMS,
            f"the content for {path} is not valid Unicode (lone surrogate at {error.start})",
            path,
            "invalid_unicode",
        ) from None


def _optional_count(fields: dict[str, Any], name: str) -> int | None:
    value = fields.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise invalid_params(
            f"{name!r} must be a non-negative integer, got {value!r}", {"param": name}
        )
    return value


# --- blocking file access (run in a thread) --------------------------------------------------


def _digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def _mtime_ns(path: Path) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


def _error(code: int, message: str, path: str, reason: str) -> RpcError:
    return RpcError(code, message, {"path": path, "reason": reason})


def _os_error(verb: str, path: str, error: OSError) -> RpcError:
    return _error(
        INTERNAL_ERROR, f"cannot {verb} {path}: {error.strerror or error}", path, "os_error"
    )


def _open_regular(resolved: Path, path: str) -> tuple[int, os.stat_result]:
    """Open for reading without blocking on a FIFO; reject anything but a regular file."""
    fd = os.open(resolved, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    info = os.fstat(fd)
    if stat.S_ISREG(info.st_mode):
        return fd, info
    os.close(fd)
    if stat.S_ISDIR(info.st_mode):
        raise _error(INVALID_PARAMS, f"{path} is a directory, not a file", path, "is_directory")
    raise _error(INVALID_PARAMS, f"{path} is not a regular file", path, "not_regular_file")


def _read_file(resolved: Path, path: str, max_bytes: int) -> tuple[bytes, int]:
    try:
        fd, info = _open_regular(resolved, path)
    except (FileNotFoundError, NotADirectoryError) as error:
        raise _error(RESOURCE_NOT_FOUND, f"file not found: {path}", path, "not_found") from error
    except OSError as error:
        raise _os_error("read", path, error) from error
    too_large = _error(
        INVALID_PARAMS,
        f"{path} is too large to read ({info.st_size} bytes; the limit is {max_bytes} bytes)",
        path,
        "too_large",
    )
    with os.fdopen(fd, "rb") as file:
        if info.st_size > max_bytes:
            raise too_large
        data = file.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise too_large
    return data, info.st_mtime_ns


def _read_text(
    resolved: Path, path: str, max_bytes: int, line: int | None, limit: int | None
) -> tuple[str, Fingerprint]:
    """The selected lines and the fingerprint of the whole file (decoding/hashing off the loop)."""
    data, mtime_ns = _read_file(resolved, path, max_bytes)
    text = _decode_text(data, path)
    return select_lines(text, line, limit), fingerprint(data, mtime_ns, "read")


def _read_existing(resolved: Path, path: str) -> bytes | None:
    """The current bytes of a file about to be written; None when it does not exist."""
    try:
        fd, _ = _open_regular(resolved, path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        raise _os_error("read", path, error) from error
    with os.fdopen(fd, "rb") as file:
        return file.read()


def _decode_text(data: bytes, path: str) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _error(
            INVALID_PARAMS,
            f"{path} is not a UTF-8 text file (invalid byte at offset {error.start})",
            path,
            "binary",
        ) from error
    if "\0" in text:
        raise _error(INVALID_PARAMS, f"{path} looks binary (it contains NUL bytes)", path, "binary")
    return text

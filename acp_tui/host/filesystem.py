"""Answers the agent's `fs/read_text_file` and `fs/write_text_file` requests.

Params arrive as `ReadTextFileRequest` / `WriteTextFileRequest` models (validated once, by
`protocol.router`). Every path goes through `PathPolicy` (the session-directory boundary) and
every file is opened through a directory-descriptor walk (`beneath`, via `file_access`): what was
checked is what is read or replaced. Writes are atomic, optionally reviewed by a `WriteGate`, and
recorded in `changes` (a `ChangeLog`) with the real path they went to. Right before the write
(after any review) the path is walked again: if it now leads elsewhere (a directory or link on the
way changed) the user is asked again naming the new target (`PathPolicy.confirm_retarget`). The
user is also asked before replacing a file that changed on disk since the agent last read it (or
acp-tui last wrote it, Question kind ``"overwrite_changed"``), a read-only file (``"read_only"``),
a hard-linked file (as outside the boundary) and a file over `max_read_bytes` (``"large_file"``:
not read, not diffed, not kept for revert).

Errors answered to the agent (`RpcError`; ``data`` is ``{"path", "reason", ...}``):

- -32602 invalid params: malformed params; relative path / NUL byte / outside-cwd denial /
  target changed (see `boundary`); reasons ``"is_directory"``, ``"not_regular_file"``,
  ``"binary"`` (not UTF-8 or contains NUL bytes), ``"too_large"``, ``"own_file"`` (one of
  acp-tui's own files kept from the agent, `OwnFiles.kept_from_agent`: the `--log` files);
- -32002 resource not found: the file to read does not exist (reason ``"not_found"``, message
  "Resource not found: PATH" as the SDKs word it). Outside the session roots this (like any other
  read error) is answered only after the user allowed the read: a path that does not exist is
  asked about like one that does and a denial is the same -32602, so the agent cannot probe
  which outside paths exist. With `missing_reads_empty` (a compatibility
  switch for agents that cannot tell this error from others: `acp_tui.client.agent_quirks`) a
  missing file inside the session roots reads as ``""`` instead;
- -32603 internal error: an OS error (reason ``"os_error"``); the user rejected the change in review
  (reason ``"rejected"``) or cancelled overwriting a changed / read-only / too large file (reasons
  ``"changed_on_disk"``, ``"read_only"``, ``"too_large"``); the path kept changing while being
  written (``"target_changed"``).

Lines: `line` is 1-based (0 is treated as 1), `limit` counts lines; a line ends after ``"\\n"``
(so ``"\\r\\n"`` endings are kept intact). A `line` past the end or a `limit` of 0 gives ``""``.
A file over `max_read_bytes` can still be read with `line`/`limit`: those lines are streamed.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from acp_tui.host import file_access as fa
from acp_tui.host.asker import Asker
from acp_tui.host.boundary import PathPolicy, resolve_path
from acp_tui.host.change_log import ChangeLog, WriteRecord, WriteReview, decode_for_record
from acp_tui.host.file_access import Fingerprint, fingerprint
from acp_tui.host.own_files import OWN_DIR, OwnFiles
from acp_tui.host.own_writes import OwnWrites
from acp_tui.host.reverts import PathLocks, Reverts
from acp_tui.host.write_questions import (
    CANCEL,
    LARGE_FILE,
    OVERWRITE,
    OVERWRITE_CHANGED,
    OVERWRITE_CHOICES,
    READ_ONLY,
    Since,
    confirm_large,
    confirm_overwrite_changed,
    confirm_read_only,
)
from acp_tui.host.write_report import WriteReport
from acp_tui.protocol.errors import INTERNAL_ERROR, INVALID_PARAMS, RESOURCE_NOT_FOUND, RpcError
from acp_tui.signal import Signal

if TYPE_CHECKING:  # (annotations only: `models.client_methods` is built at the first request)
    from acp_tui.protocol.models import ReadTextFileRequest, WriteTextFileRequest

__all__ = [
    "CANCEL",
    "LARGE_FILE",
    "OVERWRITE",
    "OVERWRITE_CHANGED",
    "OVERWRITE_CHOICES",
    "READ_ONLY",
    "FileSystemHost",
    "Fingerprint",
    "ProposedWrite",
    "ReviewOutcome",
    "WriteGate",
    "select_lines",
]

MAX_RETARGETS = 3  # a path that leads elsewhere at each of this many write attempts is refused


@dataclass(frozen=True)
class ProposedWrite:
    """A write for the gate to review: the real target, its text now (None: a new file) and the
    agent's proposal."""

    path: Path
    before: str | None
    proposed: str


@dataclass(frozen=True)
class ReviewOutcome:
    """What review decided: the content to write and how; the write carries it to disk and into
    the change log as is. `base` is the on-disk text the decision was made against when the
    reviewer re-diffed a file that changed during review (`base_known`): such a file is not
    questioned a second time."""

    content: str
    review: WriteReview
    base: str | None = None
    base_known: bool = False


class WriteGate(Protocol):
    """The review step before a write (the UI shows a diff and lets the user pick hunks)."""

    async def review(self, proposal: ProposedWrite) -> ReviewOutcome | None:
        """What to write (maybe a merge of accepted hunks), or None to reject the write."""
        ...


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
    """Answers the agent's fs/* requests inside the session's boundary: reads bounded, writes
    reviewed, locked, atomic and recorded.
    """

    def __init__(
        self,
        cwd: Path,
        asker: Asker,
        *,
        extra_roots: Sequence[Path] = (),
        max_read_bytes: int = 50 * 1024 * 1024,
        write_gate: WriteGate | None = None,
        missing_reads_empty: bool = False,
    ) -> None:
        self.policy = PathPolicy(cwd, asker, extra_roots=extra_roots)
        self.missing_reads_empty = missing_reads_empty
        self.changes = ChangeLog()
        self.own_files = OwnFiles()
        """acp-tui's own files (log, exports): never changes of the session, never reverted."""
        self.own_files.add_dir(self.policy.cwd / OWN_DIR)
        self.own_files.add_diagnostics()
        self.max_read_bytes = max_read_bytes
        self.write_gate = write_gate
        self._asker = asker
        self._known: dict[Path, Fingerprint] = {}
        self._locks = PathLocks()
        self.reverts = Reverts(
            self.changes, self.policy, self._locks, self.own_files, max_bytes=max_read_bytes
        )
        """The user's reverts (hunk, file, turn): under the same locks, walk and boundary."""
        self.reverts.rewound = self._rewound
        self.own_writes = OwnWrites(
            self.policy, self._locks, self.own_files, max_bytes=max_read_bytes
        )
        """Files written for the user (exports), under the same locks, walk and boundary."""
        self.written: Signal[WriteReport] = Signal("write reviewed")
        """Each write of the agent's that passed the gate, once it is on disk and in the log."""

    async def read_text_file(self, params: ReadTextFileRequest) -> dict[str, Any]:
        """Answer fs/read_text_file: the file's text (or its `line`/`limit` slice)."""
        return {"content": await self._read(params.path, params.line, params.limit)}

    async def write_text_file(self, params: WriteTextFileRequest) -> dict[str, Any]:
        """Answer fs/write_text_file: write the (reviewed) content, or raise the error the
        agent gets.
        """
        await self._write(params.path, params.content)
        return {}

    # ---- reading ------------------------------------------------------------------------------

    async def _read(self, path: str, line: int | None, limit: int | None) -> str:
        """Open through the walk, check the real path (asking if outside), read that same fd."""
        requested = self.policy.validate(path)
        try:
            fd, info, real = await asyncio.to_thread(fa.open_for_read, requested, path)
        except RpcError as error:
            resolved = await asyncio.to_thread(resolve_path, requested)
            if self._reads_as_empty(resolved, error):
                return ""
            # outside the roots, what is there (nothing, a directory...) is told only after the
            # user allowed the read: the same question as for a file, or the same denial
            await self.policy.check_resolved(requested, resolved, "read")
            raise
        try:
            await self.policy.check_resolved(requested, real, "read", links=fa.links_of(info))
            self._refuse_own(real, path)
        except BaseException:
            os.close(fd)
            raise
        content, seen = await asyncio.to_thread(
            _read_text, fd, info, path, self.max_read_bytes, line, limit
        )
        if seen is not None:
            self._known[real] = seen
        return content

    def _refuse_own(self, real: Path, path: str) -> None:
        """One of acp-tui's own files kept from the agent (its traffic log, its XDG directories:
        `OwnFiles.kept_from_agent`) is neither read nor written for it; told only after the
        boundary's question, as any other error outside the roots."""
        if self.own_files.kept_from_agent(real):
            raise fa.error(
                INVALID_PARAMS,
                f"{path} is one of acp-tui's own files (a traffic log, its settings or state): "
                "not for the agent",
                path,
                "own_file",
            )

    def _reads_as_empty(self, resolved: Path, error: RpcError) -> bool:
        """A missing file inside the roots, for an agent that needs `missing_reads_empty`."""
        if not self.missing_reads_empty or error.code != RESOURCE_NOT_FOUND:
            return False
        return self.policy.inside(resolved)

    # ---- writing ------------------------------------------------------------------------------

    async def _write(self, path: str, content: str) -> None:
        """Check, review, write; a path that leads elsewhere at write time is asked about again."""
        data = _encode_content(content, path)  # refuse unencodable content before asking anything
        requested = self.policy.validate(path)
        consented: Path | None = None
        for _ in range(MAX_RETARGETS):
            real = fa.beneath_real(requested)  # a few syscalls, as realpath was: the lock key
            async with self._locks(real):
                retarget = await self._write_once(requested, path, content, data, consented)
            if retarget is None:
                return
            consented = None
            if retarget.was != retarget.now:
                await self.policy.confirm_retarget(requested, retarget.was, retarget.now, "write")
                consented = retarget.now
        raise fa.error(
            INTERNAL_ERROR, f"{path} kept changing while it was written", path, "target_changed"
        )

    async def _write_once(
        self, requested: Path, path: str, content: str, data: bytes, consented: Path | None
    ) -> fa.Retarget | None:
        """One attempt: inspect, ask, review, commit. A `Retarget` when the path changed."""
        try:
            target = await asyncio.to_thread(fa.inspect, requested, path, self.max_read_bytes)
        except RpcError:  # a directory, an OS error: outside the roots, told only once allowed
            resolved = await asyncio.to_thread(resolve_path, requested)
            await self.policy.check_resolved(requested, resolved, "write")
            raise
        if target.real != consented or target.links > 1:
            await self.policy.check_resolved(requested, target.real, "write", links=target.links)
        self._refuse_own(target.real, path)
        if target.read_only:
            await confirm_read_only(self._asker, path, target.real, target.info)
        outcome: ReviewOutcome | None = None
        if target.large:
            size = target.info.st_size if target.info is not None else 0
            limit = self.max_read_bytes
            await confirm_large(self._asker, path, target.real, size, limit, len(data))
        else:
            known = self._known.get(target.real)
            if known is not None and await _differs_from(known, target.before):
                await confirm_overwrite_changed(
                    self._asker, path, target.real, target.before, known.source
                )
            outcome = await self._review(path, target, content)
            data = _encode_content(outcome.content, path)
            if target.before == data:  # nothing changes: no disk write, no record
                self._known[target.real] = fingerprint(data, _mtime_ns(target.real), "write")
                return None
        while True:
            result = await asyncio.to_thread(
                fa.commit, requested, target, data, path, self.max_read_bytes
            )
            if isinstance(result, fa.Retarget):
                return result
            if isinstance(result, fa.Committed):
                self._record(result.real, target, outcome, data)
                return None
            target = await self._changed_during(path, target, result, outcome)

    async def _review(self, path: str, target: fa.Target, content: str) -> ReviewOutcome:
        before_text, _ = decode_for_record(target.before)
        if self.write_gate is None:
            return ReviewOutcome(content, WriteReview(False, 0, 0, 0, 0))
        outcome = await self.write_gate.review(ProposedWrite(target.real, before_text, content))
        if outcome is None:
            raise RpcError(
                INTERNAL_ERROR,
                f"the user rejected the change to {path}",
                {"path": path, "reason": "rejected"},
            )
        return outcome

    async def _changed_during(
        self, path: str, target: fa.Target, changed: fa.Changed, outcome: ReviewOutcome | None
    ) -> fa.Target:
        """The file changed between check and write: ask (unless the reviewer already saw the
        text now on disk) and go on against what is on disk now."""
        seen = outcome is not None and outcome.base_known
        if not seen or decode_for_record(changed.current)[0] != (outcome and outcome.base):
            since: Since = "review"
            await confirm_overwrite_changed(self._asker, path, target.real, changed.current, since)
        return fa.Target(target.real, changed.info, changed.current, target.large, target.read_only)

    def _record(
        self, real: Path, target: fa.Target, outcome: ReviewOutcome | None, data: bytes
    ) -> None:
        before_text, before_exact = decode_for_record(target.before)
        gated = outcome is not None and self.write_gate is not None
        record = self.changes.add(
            real,
            before_text,
            outcome.content if outcome is not None else data.decode("utf-8"),
            before_bytes=before_exact,
            review=outcome.review if gated and outcome is not None else None,
            before_omitted=target.large,
        )
        self._known[real] = fingerprint(record.after_data(), _mtime_ns(real), "write")
        report = WriteReport.of(record)
        if report is not None:
            self.written.emit(report)

    def _rewound(self, record: WriteRecord) -> None:
        """A rewind put the file back (or deleted it): that is what acp-tui last left there, so
        the new branch's agent writing it is no change from outside to ask about."""
        if record.deleted:
            self._known.pop(record.path, None)
        else:
            data = record.after_data()
            self._known[record.path] = fingerprint(data, _mtime_ns(record.path), "write")

    def agent_changed(self, record: WriteRecord) -> None:
        """The change monitor saw the agent change a file itself (`record.observed`, origin
        "tool_call" or "agent"): the agent knows that content, so its next write over it is not
        asked about. A change from outside (the user, another program), one made while the
        agents of other sessions worked too ("shared") and a revert are not known to be the
        agent's: its next write asks before overwriting them.

        Args:
            record: the change log's record of the change seen on disk.
        """
        observed = record.observed
        if (
            observed is None
            or observed.origin in ("outside", "shared")
            or record.reverts is not None
        ):
            return
        data = record.after_data()
        self._known[record.path] = fingerprint(data, _mtime_ns(record.path), "write")


# --- params ----------------------------------------------------------------------------------


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


# --- blocking helpers (run in a thread) -----------------------------------------------------


def _digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


async def _differs_from(known: Fingerprint, data: bytes | None) -> bool:
    return await asyncio.to_thread(_digest, data) != known.sha256


def _mtime_ns(path: Path) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


def _read_text(
    fd: int, info: os.stat_result, path: str, max_bytes: int, line: int | None, limit: int | None
) -> tuple[str, Fingerprint | None]:
    """The selected lines (closing `fd`) and the fingerprint of the whole file when it was read
    whole; a file over `max_bytes` has just the selected lines streamed (no fingerprint)."""
    if info.st_size > max_bytes and (line is not None or limit is not None):
        return _decode_text(fa.stream_lines(fd, path, line, limit, max_bytes), path), None
    data = fa.read_all(fd, info, path, max_bytes)
    text = _decode_text(data, path)
    return select_lines(text, line, limit), fingerprint(data, info.st_mtime_ns, "read")


def _error(code: int, message: str, path: str, reason: str) -> RpcError:
    return fa.error(code, message, path, reason)


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

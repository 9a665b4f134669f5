"""Reverts (a hunk, a file, a turn) as writes of the file host: the same per-path lock as the
agent's writes, the same directory-fd walk (`beneath`, via `file_access`), the same boundary
(`PathPolicy`: a path that now leads elsewhere, or outside, is asked about through the same
`Asker` question as an agent's write) and the same atomic write, then recorded in the change
log with `reverts` set.

A revert names the content it expects on disk (what the user saw): when the file holds something
else by the time the lock is held, nothing is written (`RevertConflict`). A file the revert
would delete is deleted only where its recorded real path still leads; acp-tui's own files
(`OwnFiles`) are never reverted. Failures are `RevertError`s whose message says what happened
and names the path.
"""

from __future__ import annotations

import asyncio
import enum
import os
from collections.abc import Callable
from pathlib import Path

from acp_tui.host import beneath
from acp_tui.host import file_access as fa
from acp_tui.host.atomic_write import fsync_dir_fd
from acp_tui.host.boundary import PathPolicy
from acp_tui.host.change_log import ChangeLog, WriteRecord, decode_for_record, read_optional
from acp_tui.host.own_files import OwnFiles
from acp_tui.protocol.errors import RpcError

WHO = "Your revert"
"""Who asks, in the boundary's questions about a revert."""


class Expect(enum.Enum):
    ANY = "any"
    """No expectation: whatever the file holds is replaced."""


class RevertError(Exception):
    """A revert that was not done; the message says why (for the user)."""


class RevertConflict(RevertError):
    """The file does not hold what the revert expected (it changed since it was shown)."""


class PathLocks:
    """One `asyncio.Lock` per real path: a write and a revert of one file never interleave."""

    def __init__(self) -> None:
        self._locks: dict[Path, asyncio.Lock] = {}

    def __call__(self, real: Path) -> asyncio.Lock:
        return self._locks.setdefault(real, asyncio.Lock())


class Reverts:
    """Puts content back for the user, as a write of the file host."""

    def __init__(
        self,
        changes: ChangeLog,
        policy: PathPolicy,
        locks: PathLocks,
        own_files: OwnFiles,
        *,
        max_bytes: int,
    ) -> None:
        self.changes = changes
        self.policy = policy
        self.locks = locks
        self.own_files = own_files
        self.max_bytes = max_bytes
        self.rewound: Callable[[WriteRecord], None] | None = None
        """Told each file a rewind restored (the file host: what acp-tui itself left there,
        so the agent's next write over it is not asked about as a change from outside)."""

    async def revert_record(
        self, record_id: int, *, expected: bytes | Expect | None = Expect.ANY
    ) -> WriteRecord:
        """Put back the content the file held before record `record_id` (delete it when it did
        not exist); the record appended for the revert."""
        record = self.changes.get(record_id)
        if record.before_omitted:
            raise RevertError(
                f"the content of {record.path} before write {record_id} was not kept "
                "(too large): not reverted"
            )
        return await self.restore(
            record.path, record.before_data(), reverts=record.id, expected=expected
        )

    async def restore(
        self,
        path: Path,
        content: bytes | None,
        *,
        reverts: int,
        expected: bytes | Expect | None = Expect.ANY,
        rewind: bool = False,
    ) -> WriteRecord:
        """Write `content` to the recorded real `path` (None: delete the file), if it holds
        `expected`; record it as a revert of record `reverts`. `rewind`: part of a rewind (the
        conversation goes back too), so what it leaves counts as acp-tui's own write."""
        key = await asyncio.to_thread(fa.beneath_real, path)
        async with self.locks(key):
            record = await self._restore(path, content, reverts, expected)
            if rewind and self.rewound is not None:
                self.rewound(record)
            return record

    async def _restore(
        self, path: Path, content: bytes | None, reverts: int, expected: bytes | Expect | None
    ) -> WriteRecord:
        self._refuse_own(path)
        try:
            target = await asyncio.to_thread(fa.inspect, path, str(path), self.max_bytes)
        except RpcError as error:
            raise RevertError(f"cannot revert {path}: {error.message}") from None
        self._refuse_own(target.real)
        if target.large:
            raise RevertError(f"{path} is now too large to compare: not reverted")
        if expected is not Expect.ANY and target.before != expected:
            raise RevertConflict(f"{path} changed on disk since it was shown: not reverted")
        if content is None:
            await self._delete(path, target)
        else:
            await self._consent(path, target)
            target = await self._write(path, target, content)
        before_text, before_exact = decode_for_record(target.before)
        after_text, after_exact = decode_for_record(content)
        return self.changes.add(
            target.real,
            before_text,
            after_text or "",
            reverts=reverts,
            deleted=content is None,
            before_bytes=before_exact,
            after_bytes=after_exact,
        )

    def _refuse_own(self, path: Path) -> None:
        if path in self.own_files:
            raise RevertError(f"{path} is acp-tui's own file (log, export): not reverted")

    async def _consent(self, path: Path, target: fa.Target) -> None:
        """Ask, as for an agent's write, when `path` now leads elsewhere, outside, or to a file
        with several names."""
        try:
            if target.real != path:
                await self.policy.confirm_retarget(path, path, target.real, "write", who=WHO)
            elif target.links > 1 or not self.policy.inside(target.real):
                await self.policy.check_resolved(
                    path, target.real, "write", links=target.links, who=WHO
                )
        except RpcError:
            raise RevertError(f"{path} leads to {target.real}: not reverted") from None

    async def _write(self, path: Path, target: fa.Target, content: bytes) -> fa.Target:
        try:
            result = await asyncio.to_thread(
                fa.commit, path, target, content, str(path), self.max_bytes
            )
        except RpcError as error:
            raise RevertError(f"cannot revert {path}: {error.message}") from None
        if isinstance(result, fa.Retarget):
            raise RevertError(f"{path} changed to lead to {result.now} meanwhile: not reverted")
        if isinstance(result, fa.Changed):
            raise RevertConflict(f"{path} changed on disk meanwhile: not reverted")
        return target

    async def _delete(self, path: Path, target: fa.Target) -> None:
        if target.real != path:
            raise RevertError(
                f"{path} now leads to {target.real}: not deleted (only the recorded file is)"
            )
        if target.info is None:
            return  # already gone
        try:
            gone = await asyncio.to_thread(_delete_if_same, path, target.before)
        except OSError as error:
            raise RevertError(f"cannot delete {path}: {error.strerror or error}") from None
        if not gone:
            raise RevertConflict(f"{path} changed on disk meanwhile: not deleted")


def _delete_if_same(path: Path, expected: bytes | None) -> bool:
    """(blocking) Unlink the file at the real `path` (no symlink followed) if it still holds
    `expected`; False when it does not."""
    with beneath.locate(path, follow_symlinks=False) as location:
        if not location.exists or not location.rest:
            return True
        if read_optional(path) != expected:
            return False
        try:
            os.unlink(location.name, dir_fd=location.dir_fd)
        except FileNotFoundError:
            return True
        fsync_dir_fd(location.dir_fd)
    return True

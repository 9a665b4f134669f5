"""Files acp-tui writes for the user (`/export`), written like the agent's writes: the per-path
lock, the directory-fd walk (`beneath`, via `file_access`: a symlink on the way is read and
followed by hand, so what was checked is what is written), the boundary (a path that leads
outside the session roots, or to a hard-linked file, is asked about through the same `Asker`
question as an agent's write) and the atomic write through the walk's directory descriptor.
The file is registered in `OwnFiles` first, so the change monitor never counts it as a change.
A path the user typed that names a place outside the session roots (`//export ~/notes/x.md`) is
the user's own choice and is not asked about (`typed`); one typed inside that leads outside
(a symlink on the way, which an agent could have planted) is still asked about. Special files
(FIFOs, devices, sockets) are refused either way.

Failures are `OwnWriteError`s whose message names the path and says why.
"""

from __future__ import annotations

import asyncio
import posixpath
from pathlib import Path

from acp_tui.host import file_access as fa
from acp_tui.host.atomic_write import atomic_write_bytes
from acp_tui.host.boundary import PathPolicy
from acp_tui.host.own_files import OwnFiles
from acp_tui.host.reverts import PathLocks
from acp_tui.protocol.errors import RpcError


class OwnWriteError(Exception):
    """A file acp-tui did not write for the user; the message says why, naming the path."""


class OwnWrites:
    """Writes acp-tui makes for the user (reverts, applies): inside the boundary, under the
    path's lock, atomic, recorded.
    """

    def __init__(
        self, policy: PathPolicy, locks: PathLocks, own_files: OwnFiles, *, max_bytes: int
    ) -> None:
        self.policy = policy
        self.locks = locks
        self.own_files = own_files
        self.max_bytes = max_bytes

    async def write(
        self, path: Path, data: bytes, *, who: str = "The export", typed: bool = False
    ) -> Path:
        """Write `data` to the absolute `path` (its missing directories made); the real path
        written. Where `path` leads outside the session roots the user is asked first, unless
        they `typed` a path that is outside as written (their own choice of place)."""
        try:
            requested = self.policy.validate(path)
        except RpcError as error:
            raise OwnWriteError(f"cannot write {path}: {error.message}") from None
        key = await asyncio.to_thread(fa.beneath_real, requested)
        async with self.locks(key):
            try:
                target = await asyncio.to_thread(fa.inspect, requested, str(path), self.max_bytes)
            except RpcError as error:
                raise OwnWriteError(f"cannot write {path}: {error.message}") from None
            chosen = typed and not self.policy.inside(Path(posixpath.normpath(requested)))
            if not chosen and (target.links > 1 or not self.policy.inside(target.real)):
                try:
                    await self.policy.check_resolved(
                        requested, target.real, "write", links=target.links, who=who
                    )
                except RpcError:
                    where = f"{path} (leads to {target.real})" if target.real != path else str(path)
                    raise OwnWriteError(
                        f"{where}: writing there was not allowed (outside the session directory "
                        "or a hard-linked file); not written"
                    ) from None
            if target.large:
                raise OwnWriteError(f"{path} exists and is too large to replace: not written")
            self.own_files.add(target.real)
            try:
                result = await asyncio.to_thread(
                    fa.commit, requested, target, data, str(path), self.max_bytes
                )
            except RpcError as error:
                raise OwnWriteError(f"cannot write {path}: {error.message}") from None
        if isinstance(result, fa.Retarget):
            raise OwnWriteError(f"{path} changed to lead to {result.now} meanwhile: not written")
        if isinstance(result, fa.Changed):
            raise OwnWriteError(f"{path} changed on disk meanwhile: not written")
        return result.real

    async def write_app_file(self, path: Path, data: bytes) -> Path:
        """Write one of acp-tui's own files where acp-tui keeps them (a screenshot under its
        XDG state directory, `screenshots.py`): a path acp-tui chose, never one the user or the
        agent named, so nothing is asked. Registered in `OwnFiles` first (the change monitor
        never counts it, wherever that directory is), under the path's lock, written atomically
        with its missing directories made; the path written, else `OwnWriteError`."""
        self.own_files.add(path)
        key = await asyncio.to_thread(fa.beneath_real, path)
        async with self.locks(key):
            try:
                await asyncio.to_thread(atomic_write_bytes, path, data)
            except OSError as error:
                raise OwnWriteError(f"cannot write {path}: {error.strerror or error}") from None
        return path

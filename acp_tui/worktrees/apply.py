"""Bringing a worktree's changes into the main checkout: the plan, file by file, and the writes.

`apply_plan(wt, checkout)` says per changed file what applying means: the old text is the main
checkout's current text (read through the host's walk, no symbolic link followed), the new text
the worktree's; a file created, changed or deleted. A file the main checkout changed since the
worktree's base (committed or not) is a conflict, which the user is asked about. Where the
worktree's changes do not overlap with the checkout's, the new text is the two merged
(`git merge-file`), so applying keeps the checkout's change; where they overlap, applying
replaces the checkout's version. A binary file, or one too large to diff, is copied whole
(`Action.COPY`, asked in the UI) up to `MAX_COPY_BYTES`; symbolic links and other special files
are skipped with a reason, and so is a worktree file with several names (hard links): the agent
could have linked a file from outside the worktree, whose content applying would copy in (looked
at when planned and again when a whole copy is read).

`CheckoutWriter` writes what the user accepted through the host's file services: the per-path
lock (`PathLocks`, share the main checkout session's to serialise with its agent), the
directory-fd walk and atomic write of `host.file_access`, and the boundary of the main checkout:
a path that leads anywhere but to itself under the checkout (a symbolic link on the way, `..`)
or to a hard-linked file is refused, never followed. The content the user reviewed against is
checked under the lock: a file that changed meanwhile is not overwritten (`ApplyConflict`).
"""

from __future__ import annotations

import asyncio
import enum
import hashlib
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from acp_tui.host import beneath
from acp_tui.host import file_access as fa
from acp_tui.host.atomic_write import delete_file
from acp_tui.host.beneath import PathChanged
from acp_tui.host.boundary import is_within, resolve_path
from acp_tui.host.local_files import LocalFileError, read_regular
from acp_tui.host.reverts import PathLocks
from acp_tui.protocol.errors import RpcError
from acp_tui.thread.diff import FileDiff, compute_diff
from acp_tui.worktrees.merge import merge_texts
from acp_tui.worktrees.worktree_diff import (
    MAX_DIFF_BYTES,
    ChangedFile,
    Kind,
    Status,
    decode_text,
    worktree_diff,
)
from acp_tui.worktrees.worktrees import Worktree

MAX_COPY_BYTES = 16 * 1024 * 1024
"""The largest file applied whole (binary, or too large to diff)."""


class ApplyError(Exception):
    """A file not applied; the message names it and says why."""


class ApplyConflict(ApplyError):
    """The file in the main checkout is not what the user reviewed against."""


class Action(enum.StrEnum):
    CREATE = "create"
    CHANGE = "change"
    DELETE = "delete"
    COPY = "copy"
    """A file applied whole, not reviewed by hunk (binary, or too large to diff)."""
    SKIP = "skip"


@dataclass(frozen=True)
class ApplyItem:
    """What applying one changed file means. `old`: the main checkout's text now (None: no such
    file); `new`: the worktree's (None: deleted there); `diff`: old → new (None when skipped).
    `conflict` says the main checkout changed the file since the base (`reason` says how);
    `merged`: `new` is then the worktree's changes merged into the main checkout's text (they
    did not overlap), not the worktree's whole text. A skipped item's `reason` says why."""

    path: str
    target: Path
    action: Action
    old: str | None
    new: str | None
    diff: FileDiff | None
    conflict: bool = False
    reason: str = ""
    merged: bool = False
    whole: bytes | None = None
    """A `COPY` or a whole-file `DELETE`: the main checkout's bytes now (None: no file)."""
    source: Path | None = None
    """A `COPY`: the worktree's file, read when it is applied."""
    size: int = 0
    """A `COPY`: the worktree file's size when planned."""

    @property
    def expected(self) -> bytes | None:
        """What the main checkout must still hold for the item to be applied."""
        if self.whole is not None or self.source is not None:
            return self.whole
        return None if self.old is None else self.old.encode("utf-8")


@dataclass
class ApplySummary:
    """What an apply did: (path, detail) per file applied, skipped and failed."""

    applied: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [
            f"{len(self.applied)} applied, {len(self.skipped)} skipped, {len(self.failed)} failed"
        ]
        for title, items in (
            ("Applied", self.applied),
            ("Skipped", self.skipped),
            ("Failed", self.failed),
        ):
            out.extend(f"{title}: {path} ({detail})" for path, detail in items)
        return out


def real_dir(path: Path) -> Path:
    """(blocking) `path` absolute with its symbolic links resolved."""
    return resolve_path(Path(path).absolute())


def relative(path: str) -> PurePosixPath:
    """A changed file's path, refused unless relative and free of `..` and NUL bytes."""
    pure = PurePosixPath(path)
    if "\0" in path or pure.is_absolute() or ".." in pure.parts or not pure.parts:
        raise ApplyError(f"{path!r} is not a path inside the checkout: not applied")
    return pure


async def apply_plan(
    wt: Worktree,
    checkout: Path | None = None,
    *,
    changes: list[ChangedFile] | None = None,
    max_bytes: int = MAX_DIFF_BYTES,
) -> list[ApplyItem]:
    """Per file changed in `wt` (its `worktree_diff`, or `changes`), what applying it to
    `checkout` (default: the worktree's repository) means."""
    root = await asyncio.to_thread(real_dir, checkout if checkout is not None else wt.repo)
    if changes is None:
        changes = await worktree_diff(wt, max_bytes=max_bytes)
    return [await _item(root, wt.path, change, max_bytes) for change in changes]


async def _item(root: Path, source_root: Path, change: ChangedFile, max_bytes: int) -> ApplyItem:
    try:
        parts = relative(change.path).parts
    except ApplyError as error:
        return ApplyItem(change.path, root, Action.SKIP, None, None, None, reason=str(error))
    target = root.joinpath(*parts)

    def skip(reason: str, old: str | None = None) -> ApplyItem:
        return ApplyItem(change.path, target, Action.SKIP, old, None, None, reason=reason)

    source = source_root.joinpath(*parts)
    if change.status is not Status.DELETED and await asyncio.to_thread(several_names, source):
        return skip(HARD_LINKED)

    if change.kind in (Kind.BINARY, Kind.TOO_LARGE):
        return await _whole_item(target, source_root.joinpath(*parts), change)
    if change.kind is not Kind.TEXT or change.diff is None:
        return skip(f"{change.kind} in the worktree: not applied, copy it by hand")
    try:
        data = await asyncio.to_thread(read_regular, target, max_bytes=max_bytes)
    except LocalFileError as error:
        return skip(f"in the main checkout: {_why(error, target)}")
    current = None if data is None else decode_text(data)
    if data is not None and current is None:
        return await _whole_item(target, source_root.joinpath(*parts), change)
    base = change.diff.old_text
    new = None if change.status is Status.DELETED else change.diff.new_text
    if current == new:
        return skip("the main checkout already has this", current)
    conflict = current != base
    reason = _conflict_reason(base, current) if conflict else ""
    merged = False
    if conflict and base is not None and current is not None and new is not None:
        merge = await merge_texts(current, base, new)
        if merge == current:
            return skip("the main checkout already has these changes", current)
        if merge is not None:
            new, merged = merge, True
            reason = (
                "the main checkout changed this file since the base; the worktree's changes "
                "merge into it without overlapping: the review shows them on top of it"
            )
    if new is None:
        return ApplyItem(
            change.path,
            target,
            Action.DELETE,
            current,
            None,
            compute_diff(str(target), current, ""),
            conflict,
            reason,
        )
    action = Action.CREATE if current is None else Action.CHANGE
    diff = compute_diff(str(target), current, new)
    return ApplyItem(change.path, target, action, current, new, diff, conflict, reason, merged)


async def _whole_item(target: Path, source: Path, change: ChangedFile) -> ApplyItem:
    """A file applied whole (binary or too large to diff on either side): copied, or deleted."""

    def skip(reason: str) -> ApplyItem:
        return ApplyItem(change.path, target, Action.SKIP, None, None, None, reason=reason)

    try:
        current = await asyncio.to_thread(read_regular, target, max_bytes=MAX_COPY_BYTES)
    except LocalFileError as error:
        return skip(f"in the main checkout: {_why(error, target)}")
    new: bytes | None = None
    if change.status is not Status.DELETED:
        try:
            new = await asyncio.to_thread(read_regular, source, max_bytes=MAX_COPY_BYTES)
        except LocalFileError as error:
            return skip(f"in the worktree: {_why(error, source)}")
        if new is None:
            return skip("gone from the worktree meanwhile")
    if current == new:
        return skip("the main checkout already has this")
    in_base = change.status is not Status.ADDED
    if current is None:
        conflict = in_base
    else:
        conflict = not in_base or blob_id(current, change.base_blob) != change.base_blob
    reason = ""
    if conflict and in_base and current is not None:
        reason = "the main checkout changed this file since the base: applying replaces it"
    elif conflict:
        reason = _conflict_reason(None if not in_base else "", None if current is None else "")
    action = Action.DELETE if new is None else Action.COPY
    return ApplyItem(
        change.path,
        target,
        action,
        None,
        None,
        None,
        conflict,
        reason,
        whole=current,
        source=None if new is None else source,
        size=0 if new is None else len(new),
    )


def blob_id(data: bytes, like: str) -> str:
    """git's object id of a blob holding `data` (SHA-256 when `like` is a 64-digit id)."""
    digest = hashlib.sha256 if len(like) == 64 else hashlib.sha1
    return digest(b"blob %d\0" % len(data) + data).hexdigest()


def _why(error: LocalFileError, target: Path) -> str:
    return str(error).replace(str(target), "it", 1)


def _conflict_reason(base: str | None, current: str | None) -> str:
    if base is None:
        return "the main checkout has its own file of this name (made since the base)"
    if current is None:
        return "the main checkout deleted this file since the base"
    return (
        "the main checkout changed this file since the base and the worktree's changes overlap "
        "with that: applying replaces the main checkout's version"
    )


class CheckoutWriter:
    """Writes and deletes files of one main checkout for an apply (see the module's doc)."""

    def __init__(
        self, checkout: Path, *, locks: PathLocks | None = None, max_bytes: int = MAX_COPY_BYTES
    ) -> None:
        self.checkout = real_dir(checkout)
        self.locks = locks if locks is not None else PathLocks()
        self.max_bytes = max_bytes

    def _path(self, rel: str) -> Path:
        return self.checkout.joinpath(*relative(rel).parts)

    async def _inspect(self, rel: str, path: Path) -> fa.Target:
        try:
            target = await asyncio.to_thread(fa.inspect, path, rel, self.max_bytes)
        except RpcError as error:
            raise ApplyError(f"{rel}: {error.message}") from None
        if target.real != path or not is_within(target.real, self.checkout):
            raise ApplyError(
                f"{rel} goes through a symbolic link in the main checkout (it leads to "
                f"{target.real}): not applied"
            )
        if target.links > 1:
            raise ApplyError(f"{rel} has several names (hard links): not applied")
        if target.large:
            raise ApplyError(f"{rel} is too large in the main checkout: not applied")
        return target

    async def write(self, rel: str, content: bytes, *, expected: bytes | None) -> Path:
        """Write `content` to `rel` under the checkout if it still holds `expected` (None: no
        file); the real path written."""
        path = self._path(rel)
        key = await asyncio.to_thread(fa.beneath_real, path)
        async with self.locks(key):
            target = await self._inspect(rel, path)
            if target.before != expected:
                raise ApplyConflict(
                    f"{rel} changed in the main checkout during review: not applied"
                )
            try:
                result = await asyncio.to_thread(
                    fa.commit, path, target, content, rel, self.max_bytes
                )
            except RpcError as error:
                raise ApplyError(f"{rel}: {error.message}") from None
        if isinstance(result, fa.Retarget):
            raise ApplyError(f"{rel} changed to lead to {result.now} meanwhile: not applied")
        if isinstance(result, fa.Changed):
            raise ApplyConflict(f"{rel} changed in the main checkout meanwhile: not applied")
        return result.real

    async def delete(self, rel: str, *, expected: bytes) -> None:
        """Delete `rel` under the checkout if it still holds `expected`."""
        path = self._path(rel)
        key = await asyncio.to_thread(fa.beneath_real, path)
        async with self.locks(key):
            target = await self._inspect(rel, path)
            if target.info is None:
                return
            if target.before != expected:
                raise ApplyConflict(
                    f"{rel} changed in the main checkout during review: not deleted"
                )
            try:
                await asyncio.to_thread(delete_file, path)
            except PathChanged:
                raise ApplyError(
                    f"{rel} changed to lead elsewhere meanwhile: not deleted"
                ) from None
            except OSError as error:
                raise ApplyError(f"cannot delete {rel}: {error.strerror or error}") from None


async def apply_item(
    writer: CheckoutWriter, item: ApplyItem, summary: ApplySummary, content: str | None = None
) -> bool:
    """Apply `item` (with `content`, the reviewed text, instead of the whole new text when
    given) and note the outcome in `summary`; True when written."""
    old = item.expected
    try:
        if item.action is Action.SKIP:
            summary.skipped.append((item.path, item.reason))
            return False
        if item.action is Action.DELETE:
            if old is not None:
                await writer.delete(item.path, expected=old)
            summary.applied.append((item.path, "deleted"))
            return True
        if item.action is Action.COPY:
            data = await _copied(item)
            await writer.write(item.path, data, expected=old)
            summary.applied.append((item.path, f"copied whole, {len(data)} bytes"))
            return True
        text = content if content is not None else item.new or ""
        await writer.write(item.path, text.encode("utf-8"), expected=old)
    except ApplyError as error:
        summary.failed.append((item.path, str(error)))
        return False
    summary.applied.append((item.path, "created" if item.action is Action.CREATE else "changed"))
    return True


async def _copied(item: ApplyItem) -> bytes:
    """The worktree's bytes of a `COPY` item, read now (no symbolic link followed)."""
    if item.source is None:
        raise ApplyError(f"{item.path}: nothing to copy")
    try:
        data = await asyncio.to_thread(read_regular, item.source, max_bytes=MAX_COPY_BYTES)
    except LocalFileError as error:
        raise ApplyError(f"{item.path} in the worktree: {_why(error, item.source)}") from None
    if data is None:
        raise ApplyError(f"{item.path} is gone from the worktree: not copied")
    if await asyncio.to_thread(several_names, item.source):
        raise ApplyError(f"{item.path}: {HARD_LINKED}")
    return data


HARD_LINKED = (
    "it has several names (hard links) in the worktree, another may be outside it: not applied"
)


def several_names(path: Path) -> bool:
    """(blocking) Whether the regular file at the real `path` (no symbolic link followed) has
    more than one name."""
    try:
        with beneath.locate(path, follow_symlinks=False) as location:
            info = location.stat
    except OSError:
        return False  # (a link on the way, gone: the reads that follow refuse it and say why)
    return info is not None and stat.S_ISREG(info.st_mode) and info.st_nlink > 1


async def apply_all(
    wt: Worktree, checkout: Path | None = None, *, locks: PathLocks | None = None
) -> ApplySummary:
    """Apply every change of `wt` without asking: conflicts are skipped (they need the user),
    everything else written whole. For scripts and tests; the UI goes through the review."""
    writer = CheckoutWriter(checkout if checkout is not None else wt.repo, locks=locks)
    summary = ApplySummary()
    for item in await apply_plan(wt, writer.checkout):
        if item.conflict:
            summary.skipped.append((item.path, f"conflict: {item.reason}"))
            continue
        await apply_item(writer, item, summary)
    return summary

"""The old branch a rewind leaves: its session id and the files as they were at its end.

Before a rewind restores anything, the contents it is about to replace (each file's state at the
old branch's end) and what it will write instead are saved as one of acp-tui's own files
(``<cwd>/.acp-tui/branches/<hash of the session id>.json``, written by the file host's
`OwnWrites`: the change monitor never counts it, no revert touches it). If that save fails,
nothing is restored. Opening the old branch again (the session picker) can then *rewind
forward*: each file back to the branch's end, planned as a `RewindPlan` with the same conflict
rule (a file that is no longer what the rewind left is the user's: asked about).

A saved branch is read back through the host's `local_files.read_regular` (no symlink, regular
file, bounded) and checked: only absolute paths inside the session directory are kept. Nothing
here imports Textual.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_tui.client.rewind import FileStep, RewindPlan, on_disk
from acp_tui.host.boundary import is_within
from acp_tui.host.change_log import ChangeLog
from acp_tui.host.local_files import LocalFileError, read_regular
from acp_tui.host.own_files import OWN_DIR

FORMAT = 1
MAX_BYTES = 256 * 1024 * 1024


class BranchError(Exception):
    """A saved branch that cannot be read back; the message says why."""


@dataclass(frozen=True)
class BranchFile:
    """One file of an old branch: `end` its content at the branch's end, `start` what the rewind
    wrote (None: no file)."""

    path: Path
    end: bytes | None
    start: bytes | None


@dataclass(frozen=True)
class BranchEnd:
    session_id: str
    prompt: str
    """The prompt the rewind went back to (shown when the branch is opened again)."""
    files: tuple[BranchFile, ...]


def branch_file(cwd: Path, session_id: str) -> Path:
    """Where a session's abandoned branch is kept: `.acp-tui/branches/<hash of the session
    id>.json`.
    """
    name = hashlib.sha256(session_id.encode("utf-8")).hexdigest()[:32]
    return cwd / OWN_DIR / "branches" / f"{name}.json"


def from_plan(session_id: str, prompt: str, plan: RewindPlan) -> BranchEnd:
    """The old branch's end as the rewind `plan` finds it (before anything is restored); a path
    that leads elsewhere now (its content was not read) is not part of it."""
    files = tuple(
        BranchFile(step.path, step.current, step.content)
        for step in plan.files
        if step.leads_to is None
    )
    return BranchEnd(session_id, prompt, files)


def merged(older: BranchEnd, newer: BranchEnd) -> BranchEnd:
    """A second rewind of the same branch before it was left (`newer`, further back): the
    branch's end stays what the first one found (`older`), the start is what the last one writes."""
    ends = {item.path: item.end for item in older.files}
    starts = {item.path: item.start for item in older.files}
    starts.update({item.path: item.start for item in newer.files})
    for item in newer.files:
        ends.setdefault(item.path, item.end)
    files = tuple(BranchFile(path, ends[path], starts[path]) for path in ends)
    return BranchEnd(older.session_id, newer.prompt, files)


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def encode(branch: BranchEnd) -> str:
    """A branch's end as JSON (file contents base64), in the format `decode` checks."""
    files = [
        {"path": str(f.path), "end": _b64(f.end), "start": _b64(f.start)} for f in branch.files
    ]
    body = {"format": FORMAT, "sessionId": branch.session_id, "prompt": branch.prompt}
    return json.dumps({**body, "files": files})


def _bytes(value: Any) -> bytes | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise BranchError("a file's content is not text")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise BranchError("a file's content is not base64") from None


def decode(data: bytes, cwd: Path) -> BranchEnd:
    """A saved branch; raises `BranchError`. Paths not absolute or outside `cwd` are refused."""
    try:
        raw = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        raise BranchError("the saved branch is not JSON") from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise BranchError("the saved branch has an unknown format")
    session_id, prompt, items = raw.get("sessionId"), raw.get("prompt", ""), raw.get("files")
    if not (isinstance(session_id, str) and isinstance(prompt, str) and isinstance(items, list)):
        raise BranchError("the saved branch lacks its session id or files")
    files: list[BranchFile] = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("path"), str):
            raise BranchError("a file of the saved branch has no path")
        path = Path(item["path"])
        if not path.is_absolute() or ".." in path.parts or not is_within(path, cwd):
            raise BranchError(f"{item['path']!r} is not inside the session directory")
        files.append(BranchFile(path, _bytes(item.get("end")), _bytes(item.get("start"))))
    return BranchEnd(session_id, prompt, tuple(files))


async def load(cwd: Path, session_id: str) -> BranchEnd | None:
    """The saved end of the old branch `session_id` (None: none saved); raises `BranchError`."""
    path = branch_file(cwd, session_id)
    try:
        data = await asyncio.to_thread(read_regular, path, max_bytes=MAX_BYTES)
    except LocalFileError as error:
        raise BranchError(str(error)) from None
    if data is None:
        return None
    branch = decode(data, cwd)
    if branch.session_id != session_id:
        raise BranchError("the saved branch belongs to another session")
    return branch


def plan_forward(branch: BranchEnd, changes: ChangeLog, *, max_bytes: int) -> RewindPlan:
    """(blocking: reads the files) The plan that puts each file back to the branch's end; a file
    that is no longer what the rewind left is a conflict. Files are read as `plan_rewind` reads
    them (bounded by `max_bytes`; special files and larger ones not restorable)."""
    steps: list[FileStep] = []
    unknown: list[tuple[Path, str]] = []
    for item in branch.files:
        now = on_disk(item.path, max_bytes)
        if now.unrestorable is not None:
            unknown.append((item.path, now.unrestorable))
            continue
        if now.leads_to is None and now.content == item.end:
            continue
        records = changes.records_for(item.path)
        reverts = records[-1].id if records else 0  # (0: the rewind was in an earlier run)
        step = FileStep(item.path, item.end, item.start, now.content, reverts,
                        leads_to=now.leads_to)  # fmt: skip
        _ = step.counts  # (the diff, here in the planner's thread, not when drawn)
        steps.append(step)
    return RewindPlan(steps, unknown)

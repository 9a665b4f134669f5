"""Rewind: the files as they were just before an earlier prompt, as a plan the user confirms.

Rewinding to a prompt undoes every turn from that prompt to the end, newest first, which comes
to this per file: the content it held before the first of those turns that changed it (or no
file, when it did not exist then). Each file of the plan is one `FileStep`:

- ``revert``: the file is put back as it was;
- ``delete``: the file did not exist before that prompt (a turn created it);
- ``recreate``: the file existed and a turn deleted it.

A step knows what acp-tui expects on disk now (what the agent last left, or what acp-tui's own
revert wrote after it) and what is there: when they differ the user changed the file after the
agent did, and the step is a *conflict*, restored only if the user says so. What cannot be
undone is named: files acp-tui could not observe (a tool call that edits names them, no change
was recorded; a content too large to keep), commands that ran (tool calls of kind ``execute``,
terminals) and other tool calls with effects outside the files.

What is on disk now is read as a revert reads it (`file_access.inspect`: the directory-fd walk,
bounded by the host's read limit, no FIFO or device opened). A file the agent replaced by a FIFO,
a device or a directory is not restorable, nor is one now over the read limit (listed with why);
a path that now leads elsewhere (a symlink) is not read: its step is a conflict, and restoring it
asks the user through the revert's question about a changed path.

The plan is applied through the file host's `Reverts` only (per-path lock, walk, boundary,
atomic write, recorded in the change log as a revert). The same plan and apply serve "rewind
forward" (`rewind_branches.py`: back to an old branch's end). Nothing here imports Textual.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Literal

from acp_tui.client.change_attribution import READ_ONLY_KINDS, named_paths
from acp_tui.client.turn_changes import is_agent_state
from acp_tui.host import file_access as fa
from acp_tui.host.change_log import ChangeLog, WriteRecord
from acp_tui.host.reverts import Expect, RevertConflict, RevertError, Reverts
from acp_tui.protocol.errors import RpcError
from acp_tui.thread.diff import compute_diff
from acp_tui.thread.entries import Entry, MessageEntry, ToolCallEntry

Action = Literal["revert", "delete", "recreate"]
EDIT_KINDS = frozenset({"edit", "delete", "move"})
COMMAND_KINDS = frozenset({"execute"})


@dataclass(frozen=True)
class FileStep:
    """One file to put back: `content` to write (None: delete it), `expected` what acp-tui last
    left there (None: no file), `current` what is there now; `reverts` the change log record it
    undoes (the first one of the rewound turns for the file)."""

    path: Path
    content: bytes | None
    expected: bytes | None
    current: bytes | None
    reverts: int
    edited_between: bool = False
    """Someone but the agent changed the file between the rewound turns."""
    leads_to: Path | None = None
    """The path now leads elsewhere (the agent put a symlink there): `current` was not read, and
    restoring it asks first (the revert's question about a changed path)."""
    changed_by: tuple[str, ...] | None = None
    """When what is there now was left by another session of acp-tui (another tab's agent):
    its name (empty when which one is not known); None: the user or another program."""

    @property
    def action(self) -> Action:
        """What rewinding does to the file: delete it, recreate it or revert it."""
        if self.content is None:
            return "delete"
        return "recreate" if self.current is None else "revert"

    @property
    def conflict(self) -> bool:
        """The file is not what acp-tui last left (the user, or another program, changed it),
        or it was changed by someone else between the rewound turns."""
        return self.current != self.expected or self.edited_between or self.leads_to is not None

    @cached_property
    def counts(self) -> tuple[int, int]:
        """Lines (added, removed) going from the file now to what the step writes (computed
        once, by the planner off the event loop)."""
        diff = compute_diff(str(self.path), _text(self.current), _text(self.content) or "")
        return diff.added, diff.removed

    @property
    def who(self) -> str:
        """Who changed the file since acp-tui left it, in words ("you", "another tab's agent
        (qwen)")."""
        if self.changed_by is None:
            return "you (or another program)"
        names = ", ".join(self.changed_by)
        return f"another tab's agent ({names})" if names else "another tab's agent"

    @property
    def theirs(self) -> str:
        """What keeping the file keeps: "yours", or "its version"."""
        return "yours" if self.changed_by is None else "its version"

    def describe(self, *, forward: bool = False) -> str:
        """The step in words for the rewind screen (`forward`: going to a branch's end instead)."""
        if self.leads_to is not None and self.content is None:
            return f"now leads to {self.leads_to}: not deleted (only the file written is)"
        if self.leads_to is not None:
            return f"now leads to {self.leads_to}: asked before anything is written there"
        if forward:
            return {"delete": "deleted: not there at the branch's end",
                    "recreate": "recreated", "revert": "restored"}[self.action]  # fmt: skip
        if self.action == "delete":
            return "deleted: it did not exist before"
        if self.action == "recreate":
            return "recreated: deleted later by the agent"
        return "reverted"


@dataclass(frozen=True)
class RewindPlan:
    """What a rewind will restore (`files`) and what it cannot undo."""

    files: list[FileStep] = field(default_factory=list)
    unknown: list[tuple[Path, str]] = field(default_factory=list)
    """Files the agent changed that acp-tui cannot put back, and why."""
    commands: list[str] = field(default_factory=list)
    """Commands that ran (titles of `execute` tool calls, terminals): not undone."""
    other: list[str] = field(default_factory=list)
    """Other tool calls that may have had effects outside the files: not undone."""

    @property
    def conflicts(self) -> list[FileStep]:
        """The steps whose file changed since acp-tui last saw it (overwritten only when the
        user says so).
        """
        return [step for step in self.files if step.conflict]

    @property
    def empty(self) -> bool:
        """Whether rewinding would change nothing and has nothing to report."""
        return not (self.files or self.unknown or self.commands or self.other)


@dataclass(frozen=True)
class RewindResult:
    restored: list[FileStep] = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)
    """Left as they are on purpose (the user kept theirs)."""
    failed: list[tuple[Path, str]] = field(default_factory=list)
    """Not restored because something went wrong: why."""

    def summary(self, root: Path) -> str:
        """The result in lines: files restored, kept and not restored, with why."""
        lines = [f"{len(self.restored)} file(s) restored"]
        lines += [f"kept {short(path, root)}: {why}" for path, why in self.skipped]
        lines += [f"not restored {short(path, root)}: {why}" for path, why in self.failed]
        return "\n".join(lines)


def short(path: Path, root: Path) -> str:
    """`path` relative to `root` when beneath it, else whole."""
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _text(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class OnDisk:
    """What a path holds now, as a revert would find it: `content` (None: no file), or
    `leads_to` (the path leads elsewhere: not read), or `unrestorable` (why it cannot be)."""

    content: bytes | None = None
    leads_to: Path | None = None
    unrestorable: str | None = None


def on_disk(path: Path, max_bytes: int) -> OnDisk:
    """(blocking) What the recorded real `path` holds now, read through the host's bounded walk
    (`file_access.inspect`): a FIFO, device or directory is never opened."""
    real = fa.beneath_real(path)
    if real != path:
        return OnDisk(leads_to=real)
    try:
        target = fa.inspect(path, str(path), max_bytes)
    except RpcError as error:
        reason = error.data.get("reason") if isinstance(error.data, dict) else None
        if reason in ("not_regular_file", "is_directory"):
            kind = "a directory" if reason == "is_directory" else "a FIFO, device or socket"
            return OnDisk(unrestorable=f"it is now {kind}: not restorable")
        return OnDisk(unrestorable=f"it cannot be read now ({error.message}): not restorable")
    if target.real != path:
        return OnDisk(leads_to=target.real)  # (it changed between the two walks)
    if target.large:
        size = target.info.st_size if target.info is not None else 0
        return OnDisk(unrestorable=f"it is now {size} bytes, over the read limit of {max_bytes}"
                      ": not restorable")  # fmt: skip
    return OnDisk(content=target.before)


def rewound_entries(entries: Sequence[Entry], prompt_id: int) -> list[Entry]:
    """The entries from the prompt `prompt_id` to the end (empty when it is not there)."""
    index = next((i for i, e in enumerate(entries) if e.id == prompt_id), None)
    return [] if index is None else list(entries[index:])


def prompts(entries: Sequence[Entry]) -> list[MessageEntry]:
    """The user's prompts one can rewind to, newest first."""
    found = [e for e in entries if isinstance(e, MessageEntry) and e.role == "user"]
    return found[::-1]


def _tool_calls(entries: Iterable[Entry]) -> list[ToolCallEntry]:
    calls: list[ToolCallEntry] = []
    pending = [e for e in entries if isinstance(e, ToolCallEntry)]
    while pending:
        call = pending.pop(0)
        calls.append(call)
        pending[0:0] = call.children
    return calls


def side_effects(entries: Iterable[Entry]) -> tuple[list[str], list[str]]:
    """(commands that ran, other tool calls with effects) among the entries' tool calls."""
    commands: list[str] = []
    other: list[str] = []
    for call in _tool_calls(entries):
        title = str(call.title or call.kind or call.tool_call_id)
        terminal = any(getattr(item, "type", None) == "terminal" for item in call.content)
        if call.kind in COMMAND_KINDS or terminal:
            commands.append(title)
        elif call.kind not in READ_ONLY_KINDS | EDIT_KINDS:
            other.append(title)
    return commands, other


def plan_rewind(
    changes: ChangeLog,
    turn_records: Sequence[WriteRecord],
    entries: Sequence[Entry],
    cwd: Path,
    *,
    max_bytes: int,
) -> RewindPlan:
    """(blocking: reads the files) The plan that undoes `turn_records` (every record of the
    rewound turns, in order); `entries` are the rewound entries (prompt to end); files are read
    up to `max_bytes` (the host's read limit: a larger one is not restorable)."""
    ours = {record.id for record in turn_records}
    by_path: dict[Path, list[WriteRecord]] = {}
    for record in turn_records:
        by_path.setdefault(record.path, []).append(record)
    files: list[FileStep] = []
    unknown: list[tuple[Path, str]] = []
    for path, records in by_path.items():
        first = records[0]
        if is_agent_state(path, cwd):
            unknown.append((path, "the agent's own state: left as it is (f2 reverts it)"))
            continue
        if first.before_omitted:
            unknown.append((path, "its content before was too large to keep"))
            continue
        later = [r for r in changes.records_for(path) if r.id >= first.id]
        last = [r for r in later if r.id in ours or r.reverts is not None][-1]
        expected = None if last.deleted else last.after_data()
        between = any(r.id not in ours and r.reverts is None for r in later if r.id < last.id)
        now = on_disk(path, max_bytes)
        if now.unrestorable is not None:
            unknown.append((path, now.unrestorable))
            continue
        by = changes.changed_by_other(path, now.content) if now.content != expected else None
        step = FileStep(path, first.before_data(), expected, now.content, first.id, between,
                        now.leads_to, by)  # fmt: skip
        if step.current != step.content or step.leads_to is not None:
            _ = step.counts  # (the diff, here in the planner's thread, not when drawn)
            files.append(step)
    calls = _tool_calls(entries)
    for call in calls:
        if call.kind in EDIT_KINDS:
            for path in sorted(named_paths(call, cwd) - set(by_path)):
                if (path, "no change was seen") not in unknown:
                    unknown.append((path, "no change was seen"))
    commands, other = side_effects(entries)
    return RewindPlan(files, unknown, commands, other)


async def apply_plan(
    plan: RewindPlan, reverts: Reverts, *, overwrite: Iterable[Path] = ()
) -> RewindResult:
    """Restore the plan's files through the file host; a conflict only when in `overwrite`.
    A file that changed since the plan was made is not touched (reported as failed)."""
    allowed = set(overwrite)
    result = RewindResult()
    for step in plan.files:
        if step.conflict and step.path not in allowed:
            why = f"{step.who} changed it after the agent: {step.theirs} is kept"
            if step.leads_to is not None:
                why = f"it now leads to {step.leads_to}: left as it is"
            result.skipped.append((step.path, why))
            continue
        try:
            # (a path leading elsewhere was not read: the revert asks before writing there)
            expected = Expect.ANY if step.leads_to is not None else step.current
            await reverts.restore(
                step.path, step.content, reverts=step.reverts, expected=expected, rewind=True
            )
        except RevertConflict:
            result.failed.append((step.path, "it changed on disk since the list was shown"))
            continue
        except RevertError as error:
            result.failed.append((step.path, str(error)))
            continue
        result.restored.append(step)
    return result


async def plan_for_prompt(
    changes: ChangeLog,
    turn_records: Sequence[WriteRecord],
    entries: Sequence[Entry],
    cwd: Path,
    *,
    max_bytes: int,
) -> RewindPlan:
    """`plan_rewind` off the event loop."""
    return await asyncio.to_thread(
        plan_rewind, changes, list(turn_records), list(entries), cwd, max_bytes=max_bytes
    )

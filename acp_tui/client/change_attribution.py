"""Whose a change on disk is, and whether it is what the tool call's diff showed.

`ChangeAttribution` follows the `Thread`: which turn runs (turns are numbered from 1), and the
tool calls of that turn with the paths they name (locations, diff paths; resolved against the
session directory). The change monitor asks it about each change it sees (`attribute`):

- during a turn (or within `grace` seconds after it ended, for events still on their way), the
  tool call of the turn that names the file wins (reads and searches never do): one whose diff
  for the file has exactly the content now on disk, else one whose diff or locations name the
  file, else one whose raw input mentions it; the latest such call breaks ties. No match: "the
  agent, unattributed";
- while no turn runs: "outside acp-tui", unless the agent reports background work (v2 tool
  calls that arrive while idle, still running or just finished): then its tool calls are matched
  as in a turn.

For each tool call with a diff it compares the content the monitor recorded for the call with the
diff's new text, and notes a difference on the tool call (`Thread.set_disk_notes`), which its card
shows. Tool calls announcing paths are passed to `on_paths` (the monitor keeps their baselines).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from acp_tui.host.change_log import ChangeLog, Observed, WriteRecord
from acp_tui.protocol.models import PatchDiff
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.entries import ToolCallEntry
from acp_tui.thread.git_patch import patch_diffs
from acp_tui.thread.thread import Thread

GRACE_SECONDS = 2.0
MAX_RAW_INPUT = 20_000
READ_ONLY_KINDS = frozenset({"read", "search", "think", "fetch"})
"""Tool call kinds that do not write: never credited with a change."""


def resolve(path: str, cwd: Path) -> Path:
    """`path` (relative to `cwd` unless absolute) with every link resolved."""
    candidate = Path(path)
    if not candidate.is_absolute():
        candidate = cwd / candidate
    return Path(os.path.realpath(candidate))


DiffText = tuple[str | None, str]
"""A diff's (old text, new text)."""


def diff_texts(entry: ToolCallEntry, cwd: Path) -> dict[Path, DiffText]:
    """The (old, new) text of each file the call's diffs show (the last diff per file).

    A v2 diff (a git patch) shows only its changed regions: a file it changes in one hunk gives
    that hunk's old and new lines (a fragment, as some v1 agents send), a new file its text; a
    file changed in several hunks or deleted gives nothing to compare with the disk."""
    found: dict[Path, DiffText] = {}
    for item in entry.content:
        if isinstance(item, PatchDiff):
            for diff in patch_diffs(item):
                if (
                    diff.path
                    and not diff.is_deletion
                    and (diff.is_new_file or len(diff.hunks) == 1)
                ):
                    found[resolve(diff.path, cwd)] = (diff.old_text, diff.new_text)
            continue
        path = getattr(item, "path", None)
        if getattr(item, "type", None) == "diff" and isinstance(path, str) and path:
            old = getattr(item, "old_text", None)
            found[resolve(path, cwd)] = (old, str(getattr(item, "new_text", "")))
    return found


def _same(a: str, b: str) -> bool:
    """Equal, or equal but for one final newline (agents often drop it from diffs)."""
    return a == b or a.removesuffix("\n") == b.removesuffix("\n")


def shows(diff: DiffText, before: str | None, after: str | None) -> bool:
    """Whether a file that went from `before` to `after` is what the diff showed: the whole new
    text, or (agents that show only the edited fragment) the fragment replaced once."""
    old, new = diff
    if after is None:
        return False
    if _same(new, after):
        return True
    if old and before is not None and old in before:
        return _same(before.replace(old, new, 1), after)
    return False


def named_paths(entry: ToolCallEntry, cwd: Path) -> set[Path]:
    """Every path a tool call names: its locations and the paths of its diffs, resolved."""
    paths = {resolve(loc.path, cwd) for loc in entry.locations if loc.path}
    return paths | set(diff_texts(entry, cwd))


class ChangeAttribution:
    """Follows the thread's turns and tool calls to say whose each change on disk is (see the
    module's text).
    """

    def __init__(
        self,
        thread: Thread,
        cwd: Path,
        *,
        grace: float = GRACE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        on_paths: Callable[[Iterable[Path]], None] | None = None,
    ) -> None:
        self.thread = thread
        self.cwd = cwd.resolve()
        self.grace = grace
        self.clock = clock
        self.on_paths = on_paths
        self.turn = 0
        self.running = False
        self._ended_at: float | None = None
        self._calls: list[ToolCallEntry] = []
        """The tool calls of the current (or last) turn, in order."""
        self._landed: dict[tuple[str, Path], tuple[str | None, str | None]] = {}
        """What the monitor recorded for a tool call and file: (first before, latest after)."""
        thread.subscribe(self._on_change)

    def attach(self, changes: ChangeLog) -> Callable[[], None]:
        """Attribute every record of `changes` from now on; returns the call that stops it."""
        return changes.subscribe(self._on_record)

    def active_turn(self, at: float | None = None) -> int | None:
        """The turn a change seen now (or at `at`, on `clock`'s scale: when the watcher saw it)
        belongs to (None: no turn runs, nor just ended, nor does background work of the agent
        run: v2 tool calls after the turn went idle)."""
        if self.running:
            return self.turn
        now = self.clock() if at is None else at
        if self._ended_at is not None and now - self._ended_at <= self.grace:
            return self.turn
        for entry in self._background_calls():
            if not entry.finished or (
                entry.finished_at is not None and now - entry.finished_at <= self.grace
            ):
                return self.turn  # reported under the last turn, as its background work
        return None

    def _background_calls(self) -> list[ToolCallEntry]:
        """Tool calls the agent reported while idle (v2 background activity), newest last."""
        background = self.thread.background
        if not background:
            return []
        return [
            entry
            for entry in self.thread.tool_calls.values()
            if entry.id in background and entry.kind not in READ_ONLY_KINDS
        ]

    def turn_paths(self) -> set[Path]:
        """Every path the tool calls of the current (or last) turn named."""
        paths: set[Path] = set()
        for entry in self._calls:
            paths |= named_paths(entry, self.cwd)
        return paths

    # ---- attribution ------------------------------------------------------------------------

    def attribute(
        self, path: Path, after: bytes | None, before: str | None = None, at: float | None = None
    ) -> Observed:
        """Whose the change to `path` is; `at`: when its event arrived (a batch of thousands is
        recorded a while after the turn ended, yet belongs to it)."""
        turn = self.active_turn(at)
        if turn is None:
            return Observed("outside")
        entry = self.match(path, after, before)
        if entry is None:
            return Observed("agent", turn=turn)
        return Observed("tool_call", entry.tool_call_id, entry.title, turn)

    def match(
        self, path: Path, after: bytes | None, before: str | None = None
    ) -> ToolCallEntry | None:
        """The tool call of the running turn that best explains the file's new content, or None."""
        text = after.decode("utf-8", errors="replace") if after is not None else None
        best: ToolCallEntry | None = None
        best_score = 0
        for entry in reversed([*self._calls, *self._background_calls()]):
            score = self._score(entry, path, before, text)
            if score > best_score:
                best, best_score = entry, score
        return best

    def _score(self, entry: ToolCallEntry, path: Path, before: str | None, text: str | None) -> int:
        if entry.kind in READ_ONLY_KINDS:
            return 0
        diffs = diff_texts(entry, self.cwd)
        if path in diffs:
            return 4 if shows(diffs[path], before, text) else 3
        if any(resolve(loc.path, self.cwd) == path for loc in entry.locations if loc.path):
            return 2
        return 1 if _mentions(entry.raw_input, path, self.cwd) else 0

    # ---- following the thread and the log ---------------------------------------------------

    def _on_change(self, change: ch.Change) -> None:
        if isinstance(change, ch.TurnStateChanged):
            if change.running:
                self.turn += 1
                self.running = True
                self._calls = []
                self._landed = {}
            else:
                self.running = False
                self._ended_at = self.clock()
        elif isinstance(change, ch.EntryAdded | ch.EntryChanged):
            entry = change.entry
            if isinstance(entry, ToolCallEntry):
                if isinstance(change, ch.EntryAdded) and self.running:
                    self._calls.append(entry)
                if self.on_paths is not None:
                    self.on_paths(named_paths(entry, self.cwd))
                self._check(entry)

    def _on_record(self, record: WriteRecord) -> None:
        observed = record.observed
        if observed is None or observed.tool_call_id is None or observed.turn != self.turn:
            return
        key = (observed.tool_call_id, record.path)
        before = self._landed[key][0] if key in self._landed else record.before
        self._landed[key] = (before, None if record.deleted else record.after)
        entry = self.thread.tool_calls.get(observed.tool_call_id)
        if entry is not None:
            self._check(entry)

    def _check(self, entry: ToolCallEntry) -> None:
        """Note on the call each file whose recorded content differs from its diff."""
        notes: list[str] = []
        for path, diff in diff_texts(entry, self.cwd).items():
            key = (entry.tool_call_id, path)
            if key not in self._landed:
                continue
            before, landed = self._landed[key]
            if landed is None:
                notes.append(f"{_short(path, self.cwd)} was deleted, unlike this diff")
            elif not shows(diff, before, landed):
                notes.append(f"{_short(path, self.cwd)} on disk differs from this diff (F2)")
        self.thread.set_disk_notes(entry.tool_call_id, notes)


def _short(path: Path, cwd: Path) -> str:
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return str(path)


def _mentions(raw_input: Any, path: Path, cwd: Path) -> bool:
    if raw_input is None:
        return False
    try:
        text = raw_input if isinstance(raw_input, str) else json.dumps(raw_input)
    except (TypeError, ValueError):
        return False
    text = text[:MAX_RAW_INPUT]
    return str(path) in text or _short(path, cwd) in text.split() or f"{path.name}" in text

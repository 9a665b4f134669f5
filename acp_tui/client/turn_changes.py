"""What each turn changed on disk, for the summary line under the turn, and reverting a turn.

Every record of the `ChangeLog` that belongs to a turn is grouped under it: the monitor's records
by their `observed.turn`, acp-tui's own writes by the turn running when they were written
(`ChangeAttribution.active_turn`). Reverts and changes made outside acp-tui belong to no turn.
When a turn ends (and again when late changes of an ended turn have arrived: once per
`ChangeLog.settled`, so a thousand late records cost one summary, not a thousand)
`summary_changed` emits the turn's `TurnSummary`: each file's content before the turn and after
it; its diff is computed when first asked for (a summary of 20,000 files diffs only the few it
shows).
`revert(turn)` puts back every file the turn changed that still holds what the turn left, each
through the file host's `Reverts` (lock, walk, boundary, atomic write, recorded).

Files in an agent's own state directory at the top of the session directory (`.fast-agent/`,
`.qwen/`, ...: `AGENT_STATE_DIRS`) are the agent's bookkeeping, not the turn's work, and files
the project's ignore rules exclude (`.gitignore`, `.git/info/exclude`: the change monitor never
records them, but a write acp-tui made there for the agent is recorded; `ignored`) are not the
project's: the summary lists both apart (`TurnSummary.apart`) and reverting the turn leaves them
(F2 reverts one when picked).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from acp_tui.client.change_attribution import ChangeAttribution
from acp_tui.host.change_log import ChangeLog, WriteRecord
from acp_tui.host.reverts import RevertConflict, RevertError, Reverts
from acp_tui.signal import Signal
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.diff import FileDiff, compute_diff
from acp_tui.thread.entries import MessageEntry
from acp_tui.thread.thread import Thread


@dataclass(frozen=True)
class TurnFile:
    path: Path
    first: WriteRecord  # the turn's first record for the file (its `before` is the turn's)
    last: WriteRecord  # the turn's last record for the file

    @cached_property
    def diff(self) -> FileDiff:
        """Before the turn → after it (computed on first use)."""
        after = None if self.last.deleted else self.last.after
        return compute_diff(str(self.path), self.first.before, after or "")

    @property
    def revertible(self) -> bool:
        """Whether the file's content before the turn is known (so the turn can be reverted)."""
        return not self.first.before_omitted

    @property
    def revert_deletes(self) -> bool:
        """Reverting deletes the file (the turn created it)."""
        return self.revertible and self.first.before is None and not self.last.deleted

    @property
    def revert_empties(self) -> bool:
        """Reverting leaves the file empty (it was empty before the turn)."""
        return self.revertible and self.first.before == "" and self.first.before_bytes is None


AGENT_STATE_DIRS = frozenset(
    {".fast-agent", ".qwen", ".gemini", ".codex", ".kimi", ".vibe", ".opencode", ".claude"}
)
"""Directories agents keep their own state in (sessions, histories, locks, settings)."""


def is_agent_state(path: Path, root: Path) -> bool:
    """Whether `path` lies in an agent's own state directory at the top of `root`."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return False
    return len(parts) > 1 and parts[0] in AGENT_STATE_DIRS


@dataclass(frozen=True)
class TurnSummary:
    turn: int
    files: list[TurnFile] = field(default_factory=list)
    apart: list[TurnFile] = field(default_factory=list)
    """Files of the agents' own state, or that the project ignores, the turn changed (not
    reverted with the turn)."""


@dataclass(frozen=True)
class TurnRevert:
    reverted: list[Path]
    skipped: list[tuple[Path, str]]  # the file and why


class TurnChanges:
    """Groups the change log's records by turn and emits each turn's summary (see the module's
    text).
    """

    def __init__(
        self, changes: ChangeLog, attribution: ChangeAttribution, thread: Thread, reverts: Reverts
    ) -> None:
        self.changes = changes
        self.reverts = reverts
        self.ignored: Callable[[Path], bool] = lambda _path: False
        """Whether the project's ignore rules exclude a path (the change monitor's view)."""
        self.attribution = attribution
        self.summary_changed: Signal[TurnSummary] = Signal("turn summary")
        self._records: dict[int, list[WriteRecord]] = {}
        self._prompt_turns: dict[int, int] = {}
        """The turn each user prompt started (the prompt's entry id → turn), for rewinding."""
        self._prompted: set[int] = set()
        self.thread = thread
        self._late: set[int] = set()
        """Ended turns with records since their last summary (emitted on `settled`)."""
        changes.subscribe(self._on_record)
        changes.settled.subscribe(self._on_settled)
        thread.subscribe(self._on_change)

    def turn_of(self, record: WriteRecord) -> int | None:
        """The turn a record belongs to; None for reverts and changes made outside a turn."""
        if record.reverts is not None:
            return None
        if record.observed is not None:
            return record.observed.turn
        return self.attribution.active_turn()

    def summary(self, turn: int) -> TurnSummary:
        """The turn's summary: each file it changed, before and after, with +/- counts."""
        by_path: dict[Path, list[WriteRecord]] = {}
        for record in self._records.get(turn, []):
            by_path.setdefault(record.path, []).append(record)
        files: list[TurnFile] = []
        apart: list[TurnFile] = []
        root = self.attribution.cwd
        for path, records in by_path.items():
            first, last = records[0], records[-1]
            after = None if last.deleted else last.after_data()
            if first.before_data() != after:
                aside = is_agent_state(path, root) or self.ignored(path)
                (apart if aside else files).append(TurnFile(path, first, last))
        return TurnSummary(turn, files, apart)

    def _on_record(self, record: WriteRecord) -> None:
        turn = self.turn_of(record)
        if turn is None:
            return
        self._records.setdefault(turn, []).append(record)
        if not self.attribution.running or turn != self.attribution.turn:
            self._late.add(turn)  # a late change of an ended turn: summed up on `settled`

    def _on_settled(self, _: None) -> None:
        late, self._late = sorted(self._late), set()
        for turn in late:
            self.summary_changed.emit(self.summary(turn))

    def prompt_turn(self, entry_id: int) -> int | None:
        """The turn the user prompt with entry id `entry_id` started (None: it started none
        that acp-tui saw, e.g. a prompt of a loaded session)."""
        return self._prompt_turns.get(entry_id)

    def records_from(self, turn: int) -> list[WriteRecord]:
        """Every record of `turn` and the turns after it, in the change log's order."""
        found = [r for t, records in self._records.items() if t >= turn for r in records]
        return sorted(found, key=lambda record: record.id)

    def _on_change(self, change: ch.Change) -> None:
        if isinstance(change, ch.TurnStateChanged) and change.running:
            entries = self.thread.entries
            self._note_prompt(entries[-1] if entries else None)
        elif isinstance(change, ch.EntryAdded) and self.attribution.running:
            self._note_prompt(change.entry)  # (v2: the prompt may come after the turn started)
        if isinstance(change, ch.TurnStateChanged) and not change.running:
            turn = self.attribution.turn
            if turn in self._records:
                self.summary_changed.emit(self.summary(turn))

    def _note_prompt(self, entry: object) -> None:
        """`entry` started the running turn if it is a user message and the turn has none yet."""
        turn = self.attribution.turn
        if isinstance(entry, MessageEntry) and entry.role == "user" and turn not in self._prompted:
            self._prompted.add(turn)
            self._prompt_turns.setdefault(entry.id, turn)

    async def revert(self, turn: int) -> TurnRevert:
        """Put back what `turn` changed, file by file; a file changed since is left alone, and
        so are the agents' own state files (`TurnSummary.apart`)."""
        reverted: list[Path] = []
        skipped: list[tuple[Path, str]] = []
        for item in self.summary(turn).files:
            if not item.revertible:
                skipped.append((item.path, "its content before the turn was not kept"))
                continue
            expected = None if item.last.deleted else item.last.after_data()
            try:
                await self.reverts.revert_record(item.first.id, expected=expected)
            except RevertConflict:
                skipped.append((item.path, "it changed since the turn"))
                continue
            except RevertError as error:
                skipped.append((item.path, str(error)))
                continue
            reverted.append(item.path)
        return TurnRevert(reverted, skipped)

"""What the workspace overview shows of one session, as a frozen snapshot (`SessionRow`).

`SessionWatch` follows one session from the moment it is made: when it started, when the running
turn started (the thread's `TurnStateChanged`, timed by an injectable clock), and the diff of each
file the session changed (cached per file until the change log has a newer record of it).
`SessionWatch.row(unread=...)` reads the session's public state into a `SessionRow`: the agent's
name, where it works (its directory, or a worktree's path and branch), its state (`RowState`:
crashed, needs you, working, finished unread, idle, ...), the elapsed time, the context usage and
cost, the files it changed with lines added/removed, and the last line of the agent's last
message (one line, made safe for the terminal, truncated). Whether the user has seen a finished
turn, and how many writes are held for review, are the UI's to know: they are passed in.

`session_changes(session)` is the session's changes as diffs: for each file it wrote (acp-tui's
writes and the change monitor's records of writes the agent made itself), the text before its
first change against the latest text the log recorded; files back where they started left out.
`NamedChanges` (a name, diffs, their root) is one side of the compare screen.
Nothing here imports Textual.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Protocol

from acp_tui.client.elicitation import ElicitationBroker
from acp_tui.client.events import AgentCrash, SessionState
from acp_tui.host.change_log import ChangeLog, WriteRecord
from acp_tui.safe_text import safe_line
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.diff import FileDiff, compute_diff
from acp_tui.thread.entries import MessageEntry
from acp_tui.thread.thread import Thread

LAST_LINE_MAX = 200
"""The last line of the agent's message is cut to this many characters (an ellipsis marks it)."""


class RowState(StrEnum):
    """A session's state as the overview (and a tab) names it, most urgent first."""

    CRASHED = "crashed"
    FAILED = "failed"
    NEEDS_YOU = "needs you"
    WORKING = "working"
    STARTING = "starting"
    UNREAD = "finished unread"
    IDLE = "idle"
    CLOSED = "closed"


@dataclass(frozen=True)
class Worktree:
    """A git worktree a session works in: its directory and its branch."""

    path: Path
    branch: str


@dataclass(frozen=True)
class SessionRow:
    """One session in the overview, as it was when read. Every text is safe to draw."""

    agent: str
    place: str
    """The session's directory, or its worktree's path."""
    branch: str | None
    """The worktree's branch (None: the session works in a plain directory)."""
    title: str | None
    state: RowState
    reason: str
    """Why the state (e.g. "a permission question", "exited with code 3"); may be empty."""
    elapsed: float
    """Seconds: of the running turn when `turn_running`, else since the session started."""
    turn_running: bool
    tokens_used: int | None
    tokens_size: int | None
    cost: tuple[float, str] | None
    """(amount, currency) when the agent reports what the session cost."""
    files: int
    added: int
    removed: int
    last_line: str


class OverviewSource(Protocol):
    """What a `SessionWatch` reads of a session (`AgentSession` has all of it)."""

    @property
    def agent_name(self) -> str:
        """The agent's name for people."""

    @property
    def cwd(self) -> Path:
        """The session directory (or its worktree)."""

    @property
    def state(self) -> SessionState:
        """The session's state."""

    @property
    def crash(self) -> AgentCrash | None:
        """Why the agent stopped, when it crashed."""

    @property
    def error(self) -> str | None:
        """Why the session failed to start, if it did."""

    @property
    def thread(self) -> Thread:
        """The thread (the last message, tokens and cost come from it)."""

    @property
    def turn_running(self) -> bool:
        """Whether a prompt turn is running."""

    @property
    def change_log(self) -> ChangeLog:
        """Every change of the session's files (for the +/- counts)."""

    @property
    def elicitations(self) -> ElicitationBroker:
        """The open elicitations (`open`): forms the agent waits for the user to fill."""
        ...


class HasChangeLog(Protocol):
    @property
    def change_log(self) -> ChangeLog:
        """Every change of the session's files."""


def session_changes(session: HasChangeLog) -> list[FileDiff]:
    """Each file the session changed: its text before the session's first change against the
    latest text the change log has of it, in the order first changed (unchanged ones left out)."""
    return FileDiffs(session.change_log).diffs()


@dataclass(frozen=True)
class NamedChanges:
    """One side of a comparison: whose changes (`name`, as shown), the diffs, and the directory
    the diffs' paths are under (`root`: files of both sides are matched relative to it)."""

    name: str
    changes: list[FileDiff]
    root: Path | None = None


def named_changes(session: OverviewSource, name: str | None = None) -> NamedChanges:
    """A session's own changes (`session_changes`), named after its agent unless `name` is given."""
    label = session.agent_name if name is None else name
    return NamedChanges(safe_line(label), session_changes(session), session.cwd)


class FileDiffs:
    """The diffs of `session_changes`, each computed again only when its file has a new record."""

    def __init__(self, log: ChangeLog) -> None:
        self.log = log
        self._cache: dict[Path, tuple[int, FileDiff | None]] = {}

    def diffs(self) -> list[FileDiff]:
        """One diff per changed file: from its content before its first change to after its
        last.
        """
        last: dict[Path, WriteRecord] = {}
        for record in self.log.records:
            last[record.path] = record
        out: list[FileDiff] = []
        for path in self.log.files():  # every file the log lists has a record
            record = last[path]
            cached = self._cache.get(path)
            if cached is None or cached[0] != record.id:
                cached = (record.id, _file_diff(path, self.log.original(path), record))
                self._cache[path] = cached
            if cached[1] is not None:
                out.append(cached[1])
        return out


def _file_diff(path: Path, original: str | None, last: WriteRecord) -> FileDiff | None:
    current = None if last.deleted else last.after
    diff = compute_diff(str(path), original, current or "")
    if diff.hunks or (original is None) != (current is None):
        return diff
    return None


class SessionWatch:
    """Follows one session for the overview: its start, its running turn's start, its diffs."""

    def __init__(
        self,
        session: OverviewSource,
        *,
        worktree: Worktree | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.session = session
        self.worktree = worktree
        self.clock = clock
        self.started_at = clock()
        self.turn_started_at: float | None = clock() if _running(session) else None
        self._diffs = FileDiffs(session.change_log)
        self._unsubscribe = session.thread.subscribe(self._on_change)

    def close(self) -> None:
        """Stop following the session's thread."""
        self._unsubscribe()

    def _on_change(self, change: ch.Change) -> None:
        if isinstance(change, ch.TurnStateChanged):
            if not change.running:
                self.turn_started_at = None
            elif self.turn_started_at is None:
                self.turn_started_at = self.clock()

    def changes(self) -> list[FileDiff]:
        """The session's changes (`session_changes`), diffs cached per file."""
        return self._diffs.diffs()

    def row(
        self,
        *,
        unread: bool = False,
        held_writes: int = 0,
        changes: list[FileDiff] | None = None,
    ) -> SessionRow:
        """The session now. `unread`: a turn finished that the user has not looked at;
        `held_writes`: writes waiting for the user's review; `changes`: the diffs to count
        (a worktree's against its base), else the session's own (`changes()`)."""
        session = self.session
        thread = session.thread
        running = _running(session)
        state, reason = _state(session, unread=unread, held_writes=held_writes)
        children = thread.sessions.running()
        if children:  # subagent sessions at work (or waiting for the user)
            told = f"{children} subagent{'s' if children != 1 else ''} running"
            reason = f"{reason}; {told}" if reason else told
        if running:
            since = self.turn_started_at if self.turn_started_at is not None else self.started_at
        else:
            since = self.started_at
        diffs = self.changes() if changes is None else changes
        usage = thread.usage
        cost = usage.cost if usage is not None else None
        worktree = self.worktree
        return SessionRow(
            agent=safe_line(session.agent_name),
            place=safe_line(str(worktree.path if worktree is not None else session.cwd)),
            branch=safe_line(worktree.branch) if worktree is not None else None,
            title=safe_line(thread.title) if thread.title else None,
            state=state,
            reason=reason,
            elapsed=max(0.0, self.clock() - since),
            turn_running=running,
            tokens_used=usage.used if usage is not None else None,
            tokens_size=usage.size if usage is not None else None,
            cost=(cost.amount, safe_line(cost.currency)) if cost is not None else None,
            files=len(diffs),
            added=sum(d.added for d in diffs),
            removed=sum(d.removed for d in diffs),
            last_line=last_agent_line(thread),
        )


def _state(session: OverviewSource, *, unread: bool, held_writes: int) -> tuple[RowState, str]:
    state = session.state
    if state is SessionState.CRASHED:
        crash = session.crash
        return RowState.CRASHED, safe_line(crash.description) if crash is not None else ""
    if state is SessionState.FAILED:
        return RowState.FAILED, safe_line(session.error or "")
    if state is SessionState.CLOSED:
        return RowState.CLOSED, ""
    waiting = _waiting(session, held_writes)
    if waiting:
        return RowState.NEEDS_YOU, waiting
    if _running(session) or state is SessionState.RUNNING or session.thread.works():
        return RowState.WORKING, ""
    if state is SessionState.STARTING:
        return RowState.STARTING, ""
    if unread:
        return RowState.UNREAD, ""
    return RowState.IDLE, ""


def _running(session: OverviewSource) -> bool:
    """A turn runs: the session's (v1: its prompt request) or the thread's (the turn's state)."""
    return session.turn_running or session.thread.turn_running


def _waiting(session: OverviewSource, held_writes: int) -> str:
    """What the session waits for the user to answer, in words ("" when nothing)."""
    if session.state is SessionState.AUTHENTICATING:
        return "a login"
    asks = len(session.thread.permission_queue)
    elicitations = len(session.elicitations.open)
    parts = []
    if asks:
        parts.append(_count(asks, "a permission question", "permission questions"))
    if elicitations:
        parts.append(_count(elicitations, "a form", "forms"))
    if held_writes:
        parts.append(_count(held_writes, "a held write", "held writes"))
    if not parts and session.thread.needs_user():
        parts.append("the agent says it waits for you")
    return ", ".join(parts)


def _count(n: int, one: str, many: str) -> str:
    return one if n == 1 else f"{n} {many}"


def last_agent_line(thread: Thread, limit: int = LAST_LINE_MAX) -> str:
    """The last non-blank line of the agent's last message: one line, safe, at most `limit`
    characters (cut with "…"); "" when the agent has said nothing yet."""
    for entry in reversed(thread.entries):
        if isinstance(entry, MessageEntry) and entry.role == "agent":
            line = _last_line(entry.text)
            if line:
                line = safe_line(line)
                return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""


def _last_line(text: str) -> str:
    """The last line of `text` with something on it, spaces collapsed (read from the end: a long
    message is not split whole every time the overview refreshes)."""
    end = len(text)
    while end > 0:
        start = text.rfind("\n", 0, end) + 1
        words = text[start:end].split()
        if words:
            return " ".join(words)
        end = start - 1
    return ""

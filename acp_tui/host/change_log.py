"""The session's file writes, as records the UI can list, diff and revert.

Every write acp-tui performs for the agent is appended as a `WriteRecord` (content before and
after: kept as versions of the file's text, `text_versions.py`, so a file changed every turn
costs its changes, not a whole copy per write), and so is every change the change monitor
(`change_monitor`) sees land on disk that acp-tui did not write (`WriteRecord.observed` says
whose it is). A revert (`reverts.Reverts`, the file host's) is appended as a record with
`reverts` set to the reverted id, so the log stays an honest history and subscribers see the
revert like any other write.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from acp_tui.host import beneath
from acp_tui.host.text_versions import TextVersion, TextVersions
from acp_tui.signal import Signal, Unsubscribe

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WriteReview:
    """How a write went through review: held for the user or not, how many of the proposal's
    hunks it kept, and the lines it adds/removes on disk (from the one diff the review made)."""

    held: bool
    accepted: int
    total: int
    added: int
    removed: int


@dataclass(frozen=True)
class Observed:
    """A change acp-tui did not write but saw land on disk (the change monitor), and whose it is:
    ``"tool_call"`` (the agent's tool call `tool_call_id`, titled `title` then), ``"agent"`` (the
    agent, during a turn, no tool call matched), ``"shared"`` (while the agents of several
    sessions in the directory worked, named in `working`: which one made it cannot be told) or
    ``"outside"`` (while no turn ran: the user or another program). `turn` is the turn it landed
    in (None: outside any turn)."""

    origin: str
    tool_call_id: str | None = None
    title: str | None = None
    turn: int | None = None
    working: tuple[str, ...] = ()

    def describe(self) -> str:
        """Who made an observed change, in words ("by <tool call>", "by the agent,
        unattributed", ...).
        """
        if self.origin == "tool_call":
            return f"by {self.title or self.tool_call_id or 'a tool call'}"
        if self.origin == "agent":
            return "by the agent, unattributed"
        if self.origin == "shared":
            names = list(self.working)
            together = (
                ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else "".join(names)
            )
            return f"changed while {together} were {'both' if len(names) == 2 else 'all'} working"
        return "outside acp-tui"


@dataclass(frozen=True)
class WriteRecord:
    id: int
    path: Path
    before_version: TextVersion | None  # None: the file did not exist
    after_version: TextVersion  # "" when `deleted`
    time: float
    reverts: int | None = None  # set on the record a revert appends: the id it reverted
    deleted: bool = False  # the write removed the file (a revert of a creation)
    # exact bytes of `before` when they were not valid UTF-8 (`before` then shows them with U+FFFD)
    before_bytes: bytes | None = None
    # exact bytes of `after` when they were not valid UTF-8 (only a revert can write such bytes)
    after_bytes: bytes | None = None
    review: WriteReview | None = None  # the agent's writes that passed a review gate
    # the file existed but was too large to keep: `before` is None and the write cannot be reverted
    before_omitted: bool = False
    # set when the change monitor saw this change on disk (acp-tui did not write it)
    observed: Observed | None = None

    @property
    def before(self) -> str | None:
        """The text before this write (None: the file did not exist)."""
        return None if self.before_version is None else self.before_version.text()

    @property
    def after(self) -> str:
        """The text this write left ("" when `deleted`)."""
        return self.after_version.text()

    def after_data(self) -> bytes:
        """The exact bytes this write left in the file (b"" when `deleted`)."""
        return self.after_bytes if self.after_bytes is not None else self.after.encode("utf-8")

    def before_data(self) -> bytes | None:
        """The exact bytes the file held before this write (None: it did not exist)."""
        if self.before_bytes is not None:
            return self.before_bytes
        return None if self.before is None else self.before.encode("utf-8")


Subscriber = Callable[[WriteRecord], None]


@dataclass(frozen=True)
class OtherChange:
    """The last change of a path another session of acp-tui made (not a record of this one):
    what it left (`data`, None: deleted) and the session(s) it is attributed to (`by`)."""

    data: bytes | None
    by: tuple[str, ...]


class ChangeLog:
    """The records, in order. `added` emits each record as it is appended; `settled` once the
    records of a group are all in (`group()`: the change monitor appends a slice of records at a
    time), or after each record appended outside a group. Work over the whole log (a turn's
    summary, the Changes view's list) follows `settled`, so it runs once per group, not per
    record."""

    def __init__(self) -> None:
        self.records: list[WriteRecord] = []
        self.added: Signal[WriteRecord] = Signal("change log record")
        self.settled: Signal[None] = Signal("change log settled")
        self.versions = TextVersions()
        self._originals: dict[Path, TextVersion | None] = {}
        self._by_path: dict[Path, list[WriteRecord]] = {}
        self._depth = 0
        self._pending = False
        self.others: dict[Path, OtherChange] = {}
        """Per path, the last change another session made there (the change monitor's)."""

    def note_other(self, path: Path, data: bytes | None, by: tuple[str, ...]) -> None:
        """Another session changed `path` to `data` (not a change of this session's)."""
        self.others[path] = OtherChange(data, by)

    def changed_by_other(self, path: Path, data: bytes | None) -> tuple[str, ...] | None:
        """Who of the other sessions left `path` holding `data` (None: none did; () when it
        is not known which)."""
        other = self.others.get(path)
        return other.by if other is not None and other.data == data else None

    def subscribe(self, callback: Subscriber) -> Unsubscribe:
        """Call `callback` with every new record; returns a function that unsubscribes."""
        return self.added.subscribe(callback)

    def add(
        self,
        path: Path,
        before: str | None,
        after: str,
        *,
        reverts: int | None = None,
        deleted: bool = False,
        before_bytes: bytes | None = None,
        after_bytes: bytes | None = None,
        review: WriteReview | None = None,
        before_omitted: bool = False,
        observed: Observed | None = None,
    ) -> WriteRecord:
        """Append a record for a write that has already happened and notify subscribers."""
        before_version = None if before is None else self.versions.keep(path, before)
        record = WriteRecord(
            id=len(self.records) + 1,
            path=path,
            before_version=before_version,
            after_version=self.versions.keep(path, after),
            time=time.time(),
            reverts=reverts,
            deleted=deleted,
            before_bytes=before_bytes,
            after_bytes=after_bytes,
            review=review,
            before_omitted=before_omitted,
            observed=observed,
        )
        self.records.append(record)
        self._originals.setdefault(path, before_version)
        self._by_path.setdefault(path, []).append(record)
        self.added.emit(record)
        if self._depth:
            self._pending = True
        else:
            self.settled.emit(None)
        return record

    @contextlib.contextmanager
    def group(self) -> Iterator[None]:
        """Records appended inside are followed by one `settled` at the end (if any)."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            if not self._depth and self._pending:
                self._pending = False
                self.settled.emit(None)

    def get(self, record_id: int) -> WriteRecord:
        """The record with `record_id` (ids start at 1); KeyError if there is none."""
        if not 1 <= record_id <= len(self.records):
            raise KeyError(f"no write record with id {record_id}")
        return self.records[record_id - 1]

    def original(self, path: Path) -> str | None:
        """The content before the session first wrote `path` (None: it did not exist).

        Raises KeyError when the session never wrote `path`.
        """
        version = self._originals[path]
        return None if version is None else version.text()

    def files(self) -> list[Path]:
        """Every file written in the session, in the order first written."""
        return list(self._originals)

    def records_for(self, path: Path) -> list[WriteRecord]:
        """Every record of one path, oldest first."""
        return list(self._by_path.get(path, ()))


def decode_for_record(data: bytes | None) -> tuple[str | None, bytes | None]:
    """Text for `WriteRecord.before` plus the exact bytes when they are not valid UTF-8."""
    if data is None:
        return None, None
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace"), data


def read_optional(path: Path) -> bytes | None:
    """(blocking) the bytes of the file at the real path `path`, None if there is none; a FIFO,
    device or socket is never opened (`OSError`)."""
    return _read_optional(path)


def _read_optional(path: Path) -> bytes | None:
    try:
        with beneath.locate(path, follow_symlinks=False) as location:
            if not location.exists or not location.rest:
                return None
            if location.stat is not None and not stat.S_ISREG(location.stat.st_mode):
                raise OSError(errno.EINVAL, f"{path} is not a regular file")
            flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
            fd = os.open(location.name, flags, dir_fd=location.dir_fd)
    except (FileNotFoundError, NotADirectoryError):
        return None
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, f"{path} is not a regular file")
        return file.read()

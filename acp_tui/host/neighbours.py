"""The sessions watching a directory, so that a change on disk is attributed once between them.

Every session's change monitor sees every change under its directory, including the writes of
the other sessions there (in the same directory, or in one above or below it). Each monitor
joins the one `Neighbours` of the process's watchers (`acp_tui.host.dir_watch`) as a
`Neighbour`: its name, its directory and whether its agent is working (a turn runs, or just
ended, or background work) at a given moment. For a changed path only the sessions whose
directory holds it count (a session in `repo/sub` has no say about `repo/README.md`, a session
in `repo` has one about `repo/sub/a.py`). Before recording a change, a monitor asks `whose`:

- a write acp-tui made for another session (its file host's write or revert, told here by
  `wrote`) whose content is on disk when this monitor first looks at the path after it is that
  session's: `THEIRS`, never recorded here (the same content again later is a new change);
- else, while exactly one session's agent works, the change is that session's: `MINE` for it,
  `THEIRS` for the others;
- while several work, nobody can tell which agent made it: each of them records it as made
  while they all worked (`Verdict.working` names them), none claims it;
- while none works it is a change from outside acp-tui: `MINE` for everyone (each records it
  as "outside acp-tui", as a single session does).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(eq=False)
class Neighbour:
    """One session among those watching a directory."""

    name: Callable[[], str]
    """What the session is called where the user sees it (its agent's name)."""
    busy: Callable[[float | None], bool]
    """Whether its agent was working at a moment (`time.monotonic()`; None: now)."""
    root: Path | None = None
    """The directory its monitor watches (resolved; None: every path is its concern)."""

    def covers(self, path: Path) -> bool:
        """Whether `path` is in this session's directory."""
        return self.root is None or path == self.root or path.is_relative_to(self.root)


@dataclass(frozen=True)
class Verdict:
    """Whose a change is, for the monitor that asked (`Neighbours.whose`)."""

    kind: str
    """"mine", "theirs" or "shared"."""
    working: tuple[str, ...] = ()
    """With "shared": the names of the sessions whose agents were all working; with "theirs":
    the session whose change it is, when known."""


MINE = Verdict("mine")
THEIRS = Verdict("theirs")


@dataclass(eq=False)
class _Write:
    writer: Neighbour
    data: bytes | None
    unseen: set[Neighbour]
    """The other sessions whose monitors have not looked at the path since."""


class Neighbours:
    """The sessions whose monitors listen to one watcher, and acp-tui's recent writes for them
    (see the module)."""

    def __init__(self) -> None:
        self._members: list[Neighbour] = []
        self._written: dict[Path, _Write] = {}
        """The last write acp-tui made for a session, per path, until every other session's
        monitor looked at the path once (the same content later is no longer that write)."""

    def __len__(self) -> int:
        return len(self._members)

    def join(self, member: Neighbour) -> Callable[[], None]:
        """Add `member`; the answer removes it (and forgets its writes)."""
        self._members.append(member)

        def leave() -> None:
            if member in self._members:
                self._members.remove(member)
            for path, write in list(self._written.items()):
                write.unseen.discard(member)
                if write.writer is member or not write.unseen:
                    del self._written[path]

        return leave

    def wrote(self, member: Neighbour, path: Path, data: bytes | None) -> None:
        """acp-tui wrote `data` to `path` for `member` (through its file host)."""
        others = {m for m in self._members if m is not member and m.covers(path)}
        if others:
            self._written[path] = _Write(member, data, others)
        else:
            self._written.pop(path, None)

    def whose(self, member: Neighbour, path: Path, data: bytes | None, at: float | None) -> Verdict:
        """Whether `member` should record the change of `path` to `data` seen at `at`."""
        write = self._written.get(path)
        if write is not None and member in write.unseen:
            write.unseen.discard(member)
            if not write.unseen:
                del self._written[path]
            if write.data == data:
                return Verdict("theirs", (write.writer.name(),))
        concerned = [m for m in self._members if m is member or m.covers(path)]
        if len(concerned) < 2:
            return MINE
        busy = [m for m in concerned if m.busy(at)]
        if not busy or busy == [member]:
            return MINE
        if member not in busy:
            return Verdict("theirs", tuple(m.name() for m in busy)) if len(busy) == 1 else THEIRS
        return Verdict("shared", tuple(m.name() for m in busy))

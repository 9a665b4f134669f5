"""A session in a directory and one in a directory above it, through the client core and one
`DirectoryWatchers`, as the app wires them: one watcher for both whichever started first (the
one below taken over by the one above), and each change under the overlap attributed once, by
the rules of `acp_tui.host.neighbours` among the sessions whose directories hold it.

Nothing sleeps to synchronise: a fence file written in the inner directory while no agent works
is recorded by both sessions, and proves that every batch before it was handled.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from acp_tui.host.asker import FixedAnswer
from acp_tui.host.dir_watch import DirectoryWatchers
from acp_tui.host.filesystem import FileSystemHost
from tests.unit.test_change_monitor import Session, make_repo, until
from tests.unit.test_shared_directory import write_for

pytestmark = pytest.mark.timeout(60)


class Nested:
    """`inner` ("codex") works in repo/sub, `outer` ("gemini") in repo."""

    def __init__(self, repo: Path, watchers: DirectoryWatchers) -> None:
        self.repo = repo.resolve()
        self.sub = self.repo / "sub"
        self.watchers = watchers
        fs = FileSystemHost(self.sub, FixedAnswer("allow_once"))
        self.inner = Session(self.sub, fs, watchers=watchers, name="codex")
        self.outer = Session(self.repo, watchers=watchers, name="gemini")
        self.fences = 0

    async def start(self, *sessions: Session) -> None:
        for session in sessions:
            session.tracking.start_soon()
            await session.tracking.wait_ready()

    async def fence(self) -> None:
        """A file in the inner directory while no agent works: both record it (outside)."""
        for session in (self.inner, self.outer):
            session.tracking.attribution.grace = 0.0
        self.fences += 1
        path = self.sub / f"fence-{self.fences}.txt"
        path.write_text("fence\n")

        def recorded(session: Session) -> bool:
            return any(r.path == path for r in session.log.records)

        await until(lambda: recorded(self.inner) and recorded(self.outer), f"both see {path}")

    def seen(self, session: Session) -> list[str]:
        """Each record's path (from the repository) and origin ("written": by its file host),
        fences left out."""
        return [
            f"{r.path.relative_to(self.repo)} {r.observed.origin if r.observed else 'written'}"
            for r in session.log.records
            if not r.path.name.startswith("fence-")
        ]


@contextlib.asynccontextmanager
async def nested(tmp_path: Path, inner_first: bool) -> AsyncIterator[Nested]:
    repo = tmp_path / "repo"
    repo.mkdir()
    make_repo(repo, {"sub/notes.txt": "old\n", "sub/other.txt": "old\n", "top.txt": "old\n"})
    n = Nested(repo, DirectoryWatchers())
    try:
        await n.start(*((n.inner, n.outer) if inner_first else (n.outer, n.inner)))
        yield n
    finally:
        for session in (n.inner, n.outer):
            await session.tracking.stop()
    assert n.watchers.roots == []
    assert [t.name for t in threading.enumerate() if t.name.startswith("acp-tui-")] == []


@pytest.mark.parametrize("inner_first", [True, False], ids=["inner-first", "outer-first"])
async def test_a_change_under_the_overlap_is_attributed_once(
    tmp_path: Path, inner_first: bool
) -> None:
    async with nested(tmp_path, inner_first) as n:
        assert n.watchers.roots == [n.repo], "one watcher for both directories"

        # the inner session's agent alone works and edits a file itself: the inner session's
        n.inner.thread.begin_turn()
        (n.sub / "notes.txt").write_text("codex wrote this itself\n")
        # a write acp-tui made for the inner session (its file host)
        await write_for(n.inner.fs, n.sub / "other.txt", "codex, through acp-tui\n")
        await until(lambda: len(n.seen(n.inner)) == 2, "the inner session's records")
        n.inner.thread.end_turn("end_turn")
        await n.fence()
        assert sorted(n.seen(n.inner)) == ["sub/notes.txt agent", "sub/other.txt written"]
        assert n.seen(n.outer) == [], "never the outer session's, nor from outside acp-tui"

        # the outer session's agent alone works: its change under sub is the outer's only
        n.outer.thread.begin_turn()
        (n.sub / "notes.txt").write_text("gemini wrote this\n")
        await until(lambda: n.seen(n.outer), "the outer session's record")
        n.outer.thread.end_turn("end_turn")
        await n.fence()
        assert n.seen(n.outer) == ["sub/notes.txt agent"]
        assert len(n.seen(n.inner)) == 2

        # outside the inner directory only the outer session counts, whoever works
        n.inner.thread.begin_turn()
        (n.repo / "top.txt").write_text("changed beside sub\n")
        await until(lambda: len(n.seen(n.outer)) == 2, "the outer session's record")
        n.inner.thread.end_turn("end_turn")
        await n.fence()
        assert n.seen(n.outer) == ["sub/notes.txt agent", "top.txt outside"]
        assert len(n.seen(n.inner)) == 2

        # both agents work: each records it once, as made while both worked
        n.inner.thread.begin_turn()
        n.outer.thread.begin_turn()
        (n.sub / "notes.txt").write_text("one of them\n")
        both = lambda: len(n.seen(n.inner)) == 3 and len(n.seen(n.outer)) == 3  # noqa: E731
        await until(both, "both records")
        n.inner.thread.end_turn("end_turn")
        n.outer.thread.end_turn("end_turn")
        await n.fence()
        for session in (n.inner, n.outer):
            assert n.seen(session)[-1] == "sub/notes.txt shared"
            assert len(n.seen(session)) == 3, "recorded once"

"""Two sessions in one directory, through the client core (their change tracking, file hosts and
file indexes) and one `DirectoryWatchers`, as the app wires them: one watcher for both, each
change attributed once, the watcher kept while a session listens and stopped after the last.

Nothing sleeps to synchronise: tests wait until a change log or an index holds what they expect;
a fence file written while no agent works is recorded by both sessions, and proves that the
batches before it were handled (batches are handled in the order they arrive).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from acp_tui.composer.file_index import FileIndex
from acp_tui.host.asker import FixedAnswer
from acp_tui.host.dir_watch import DirectoryWatchers
from acp_tui.host.filesystem import FileSystemHost
from acp_tui.protocol.models import WriteTextFileRequest
from tests.unit.test_change_monitor import Session, make_repo, until, whose

pytestmark = pytest.mark.timeout(60)


class Pair:
    """Sessions A ("claude-agent-acp") and B ("gemini") in one directory."""

    def __init__(self, root: Path, watchers: DirectoryWatchers) -> None:
        self.root = root.resolve()
        self.watchers = watchers
        fs = FileSystemHost(self.root, FixedAnswer("allow_once"))
        self.a = Session(root, fs, watchers=watchers, name="claude-agent-acp")
        self.b = Session(root, watchers=watchers, name="gemini")
        self.indexes = {
            self.a: FileIndex(root, use_git=False),
            self.b: FileIndex(root, use_git=False),
        }
        self.index_tasks: dict[Session, asyncio.Task[None]] = {}
        self.fences = 0

    async def start(self) -> None:
        for session in (self.a, self.b):
            session.tracking.start_soon()
            await session.tracking.wait_ready()
            index = self.indexes[session]
            await asyncio.to_thread(index.build)
            self.index_tasks[session] = asyncio.create_task(index.watch(self.watchers))
            await until(lambda index=index: index.watching, "the index listening")  # type: ignore[misc]

    async def close(self, session: Session) -> None:
        await session.tracking.stop()
        task = self.index_tasks.pop(session, None)
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def fence(self) -> None:
        """A file written while no agent works: once both sessions recorded it, they handled
        every batch before it."""
        for session in (self.a, self.b):
            session.tracking.attribution.grace = 0.0
            assert session.tracking.attribution.active_turn() is None
        self.fences += 1
        name = f"fence-{self.fences}.txt"
        (self.root / name).write_text("fence\n")
        await until(lambda: self.a.records(name) and self.b.records(name), f"both record {name}")

    def names(self, session: Session) -> list[str]:
        return [r.path.name for r in session.log.records if not r.path.name.startswith("fence-")]


@pytest.fixture
async def pair(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    made: list[Pair] = []

    async def make(**options: Any) -> Pair:
        made.append(Pair(tmp_path, DirectoryWatchers(**options)))
        await made[-1].start()
        return made[-1]

    yield make
    for p in made:
        for session in (p.a, p.b):
            await p.close(session)


async def write_for(fs: FileSystemHost, path: Path, content: str) -> None:
    params = {"sessionId": "s", "path": str(path), "content": content}
    await fs.write_text_file(WriteTextFileRequest.model_validate(params))


async def test_a_write_made_for_one_session_never_appears_as_the_others(
    tmp_path: Path, pair: Callable[..., Any]
) -> None:
    make_repo(tmp_path, {"notes.txt": "old\n"})
    p = await pair()
    p.b.thread.begin_turn()  # B's agent works too: the write is still A's alone
    p.a.thread.begin_turn()
    await write_for(p.a.fs, p.root / "notes.txt", "gemini's edit, by A's file host\n")
    p.a.thread.end_turn("end_turn")
    p.b.thread.end_turn("end_turn")
    await p.fence()
    assert p.names(p.a) == ["notes.txt"] and p.a.log.records[0].observed is None
    assert p.names(p.b) == []  # never B's: not a change of its agent, nor from outside
    # B knows the file's content now: a change is recorded from there
    (p.root / "notes.txt").write_text("the user's\n")
    await p.fence()
    [record] = p.b.records("notes.txt")
    assert record.before == "gemini's edit, by A's file host\n"
    assert whose(record).origin == "outside"
    # the same content as A's write, later, made by B's agent, is B's (not A's write again)
    p.b.thread.begin_turn()
    (p.root / "notes.txt").write_text("gemini's edit, by A's file host\n")
    await until(lambda: len(p.b.records("notes.txt")) == 2, "B's edit")
    assert whose(p.b.records("notes.txt")[1]).origin == "agent"


async def test_an_agents_own_change_while_only_its_session_works_is_that_sessions(
    tmp_path: Path, pair: Callable[..., Any]
) -> None:
    make_repo(tmp_path, {"notes.txt": "old\n"})
    p = await pair()
    p.a.thread.begin_turn()
    (p.root / "notes.txt").write_text("A's agent wrote this itself\n")
    await until(lambda: p.a.records("notes.txt"), "A's record")
    assert whose(p.a.records("notes.txt")[0]).origin == "agent"
    p.a.thread.end_turn("end_turn")
    await p.fence()
    assert p.names(p.b) == []
    # while no agent works a change is from outside acp-tui, for both
    assert {whose(s.records("fence-1.txt")[0]).origin for s in (p.a, p.b)} == {"outside"}


async def test_a_change_while_both_agents_work_says_so_in_both(
    tmp_path: Path, pair: Callable[..., Any]
) -> None:
    make_repo(tmp_path, {"notes.txt": "old\n"})
    p = await pair()
    p.a.thread.begin_turn()
    p.b.thread.begin_turn()
    (p.root / "notes.txt").write_text("one of them\n")
    await until(lambda: p.a.records("notes.txt") and p.b.records("notes.txt"), "both records")
    for session in (p.a, p.b):
        observed = whose(session.records("notes.txt")[0])
        assert (observed.origin, observed.turn) == ("shared", 1)
        assert observed.describe() == "changed while claude-agent-acp and gemini were both working"


@pytest.mark.parametrize("inotify", [True, False], ids=["inotify", "watchfiles"])
async def test_one_watcher_for_both_kept_for_the_other_and_stopped_after_the_last(
    tmp_path: Path, pair: Callable[..., Any], inotify: bool
) -> None:
    p = await pair(use_inotify=inotify)
    assert p.watchers.roots == [p.root]  # the file indexes and monitors of both: one watcher
    a_index, b_index = p.indexes[p.a], p.indexes[p.b]
    p.a.thread.begin_turn()
    (p.root / "fresh.txt").write_text("new\n")
    await until(
        lambda: a_index.query("fresh") == ["fresh.txt"] == b_index.query("fresh"),
        "the new file in both sessions' @-completion",
    )
    await until(lambda: p.a.records("fresh.txt"), "A's record")
    p.a.thread.end_turn("end_turn")
    await p.fence()
    assert p.names(p.b) == []

    await p.close(p.a)
    assert p.watchers.roots == [p.root]  # B still listens
    (p.root / "later.txt").write_text("after A closed\n")
    await until(lambda: b_index.query("later") == ["later.txt"], "B's index still fresh")
    await until(lambda: p.b.records("later.txt"), "B's monitor still sees changes")
    assert a_index.query("later") == []

    await p.close(p.b)
    assert p.watchers.roots == []
    assert [t.name for t in threading.enumerate() if t.name.startswith("acp-tui-")] == []


async def test_a_rewind_names_the_other_tab_whose_agent_changed_the_file(
    tmp_path: Path, pair: Callable[..., Any]
) -> None:
    """Issue 39, 9: tab 2's agent wrote app.py after tab 1's; tab 1's rewind said "you changed
    it since the agent: keep yours". It names the other tab's agent instead."""
    from acp_tui.client import rewind

    make_repo(tmp_path, {"app.py": "v0\n"})
    p = await pair()
    app_py = p.root / "app.py"

    def seen_by_a(data: bytes) -> bool:
        other = p.a.log.others.get(app_py)
        return other is not None and other.data == data

    p.a.thread.begin_turn()  # A's agent edits app.py itself, while only A works
    app_py.write_text("A's edit\n")
    await until(lambda: p.a.records("app.py"), "A's record")
    p.a.thread.end_turn("end_turn")
    await p.fence()
    a_records = list(p.a.records("app.py"))
    p.b.thread.begin_turn()  # then B's agent, through B's file host
    await write_for(p.b.fs, app_py, "B's edit\n")
    await until(lambda: seen_by_a(b"B's edit\n"), "A to see B's write as B's")
    p.b.thread.end_turn("end_turn")
    assert p.a.records("app.py") == a_records, "B's write is not A's change"
    plan = rewind.plan_rewind(p.a.log, a_records, [], p.root, max_bytes=p.a.fs.reverts.max_bytes)
    [step] = plan.files
    assert step.conflict and step.changed_by == ("gemini",)
    assert step.who == "another tab's agent (gemini)" and step.theirs == "its version"
    result = await rewind.apply_plan(plan, p.a.fs.reverts)
    assert result.summary(p.root) == (
        "0 file(s) restored\n"
        "kept app.py: another tab's agent (gemini) changed it after the agent: its version is kept"
    )
    assert app_py.read_text() == "B's edit\n"

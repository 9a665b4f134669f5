"""The change monitor on real files with the real watcher: baselines (git index, start-up scan,
a tool call's announcement), attribution, ignore rules, and no double count of acp-tui's writes.

Nothing sleeps to synchronise: tests wait until the change log holds what they expect, and a
"fence" file written last proves the events before it were all processed (batches are handled in
the order they arrive).
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from acp_tui.client.change_attribution import shows
from acp_tui.client.change_tracking import ChangeTracking
from acp_tui.host.asker import FixedAnswer
from acp_tui.host.change_log import Observed, WriteRecord
from acp_tui.host.dir_watch import DirectoryWatchers
from acp_tui.host.filesystem import FileSystemHost
from acp_tui.protocol.models import ToolCall, WriteTextFileRequest
from acp_tui.thread.thread import Thread

pytestmark = pytest.mark.timeout(60)


async def until(condition: Callable[[], object], what: str, within: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + within
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


def whose(record: WriteRecord) -> Observed:
    assert record.observed is not None, f"{record.path} was not seen by the monitor"
    return record.observed


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
    )


def make_repo(root: Path, files: dict[str, str]) -> None:
    git(root, "init", "-q")
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")


def diff(path: str, old: str, new: str) -> dict[str, str]:
    return {"type": "diff", "path": path, "oldText": old, "newText": new}


class Session:
    """A thread, a change log and the tracking the agent session wires up, without an agent."""

    def __init__(
        self,
        root: Path,
        fs: FileSystemHost | None = None,
        *,
        watchers: DirectoryWatchers | None = None,
        name: str = "the agent",
        **monitor: Any,
    ) -> None:
        self.root = root.resolve()
        self.thread = Thread()
        self.fs = fs if fs is not None else FileSystemHost(self.root, FixedAnswer("deny"))
        self.log = self.fs.changes
        self.tracking = ChangeTracking(
            self.thread,
            self.root,
            self.log,
            watch=True,
            reverts=self.fs.reverts,
            watchers=watchers,
            name=lambda: name,
        )
        assert self.tracking.monitor is not None
        self.monitor = self.tracking.monitor
        for name, value in monitor.items():
            setattr(self.monitor, name, value)
        self.fences = 0

    def records(self, name: str) -> list[WriteRecord]:
        return [r for r in self.log.records if r.path == self.root / name]

    async def fence(self) -> None:
        """Write a fresh file and wait for its record: every earlier event has been handled."""
        self.fences += 1
        name = f"fence-{self.fences}.txt"
        (self.root / name).write_text("fence\n")
        await until(lambda: self.records(name), f"the record of {name}")

    def tool_call(self, call_id: str, kind: str = "edit", **fields: Any) -> None:
        self.thread.apply(ToolCall.model_validate({
            "sessionUpdate": "tool_call", "toolCallId": call_id, "title": f"call {call_id}",
            "kind": kind, "status": "in_progress", **fields,
        }))  # fmt: skip


@pytest.fixture
async def session_in(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    made: list[Session] = []

    async def make(root: Path, fs: FileSystemHost | None = None, **monitor: Any) -> Session:
        session = Session(root, fs, **monitor)
        made.append(session)
        session.tracking.start_soon()
        await session.tracking.wait_ready()
        assert session.monitor.running
        return session

    yield make
    for session in made:
        await session.tracking.stop()


async def test_an_agent_owned_edit_in_a_git_tree_has_the_index_as_baseline(
    tmp_path: Path, session_in: Callable[..., Any]
) -> None:
    make_repo(tmp_path, {"notes.txt": "first\nold line\nlast\n", "other.txt": "x\n"})
    s = await session_in(tmp_path)
    s.thread.begin_turn()
    s.tool_call("edit-1", locations=[{"path": str(s.root / "notes.txt")}])
    (tmp_path / "notes.txt").write_text("first\nnew line\nlast\n")
    await until(lambda: s.records("notes.txt"), "the edit's record")
    [record] = s.records("notes.txt")
    assert record.before == "first\nold line\nlast\n"
    assert record.after == "first\nnew line\nlast\n"
    assert record.observed is not None
    assert (record.observed.origin, record.observed.tool_call_id) == ("tool_call", "edit-1")
    assert record.observed.turn == 1
    assert s.monitor.baseline is not None and s.monitor.baseline.scans == 1
    assert s.monitor.baseline.snapshot == {}  # a clean tree: nothing read up front


async def test_a_file_dirty_at_the_start_keeps_its_worktree_content_not_the_index(
    tmp_path: Path, session_in: Callable[..., Any]
) -> None:
    make_repo(tmp_path, {"a.txt": "committed\n"})
    (tmp_path / "a.txt").write_text("the user's unstaged work\n")
    (tmp_path / "new.txt").write_text("untracked\n")
    s = await session_in(tmp_path)
    s.thread.begin_turn()
    (tmp_path / "a.txt").write_text("agent\n")
    (tmp_path / "new.txt").write_text("agent too\n")
    await until(lambda: s.records("a.txt") and s.records("new.txt"), "both records")
    assert s.records("a.txt")[0].before == "the user's unstaged work\n"
    assert s.records("new.txt")[0].before == "untracked\n"
    # unattributed: no tool call named them
    assert whose(s.records("a.txt")[0]).origin == "agent"


async def test_without_git_one_scan_keeps_text_files_and_a_tool_call_keeps_the_rest(
    tmp_path: Path, session_in: Callable[..., Any]
) -> None:
    (tmp_path / "small.txt").write_text("small\n")
    (tmp_path / "big.txt").write_text("B" * 5000 + "\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "deep.txt").write_text("deep\n")
    s = await session_in(tmp_path, max_file_bytes=1000, use_git=False)
    baseline = s.monitor.baseline
    assert baseline is not None and baseline.git_top is None and baseline.scans == 1
    assert set(baseline.snapshot) == {s.root / "small.txt", s.root / "sub" / "deep.txt"}
    assert baseline.unknown == {s.root / "big.txt"}
    s.thread.begin_turn()
    s.tool_call("w", locations=[{"path": "sub/deep.txt"}])  # a relative path: from the cwd
    (tmp_path / "sub" / "deep.txt").write_text("deeper\n")
    (tmp_path / "created.txt").write_text("new\n")
    await until(lambda: s.records("sub/deep.txt") and s.records("created.txt"), "records")
    assert s.records("sub/deep.txt")[0].before == "deep\n"
    assert whose(s.records("sub/deep.txt")[0]).tool_call_id == "w"
    assert s.records("created.txt")[0].before is None
    # a file the scan did not keep is kept when a tool call names it, before the edit lands
    baseline.max_file_bytes = 10_000
    s.tool_call("big", locations=[{"path": str(s.root / "big.txt")}])
    assert s.root / "big.txt" in baseline.snapshot
    (tmp_path / "big.txt").write_text("small now\n")
    await until(lambda: s.records("big.txt"), "the big file's record")
    assert s.records("big.txt")[0].before == "B" * 5000 + "\n"
    assert baseline.scans == 1


@pytest.mark.parametrize("use_git", [True, False])
async def test_ignored_files_and_dot_git_are_not_recorded(
    tmp_path: Path, session_in: Callable[..., Any], use_git: bool
) -> None:
    (tmp_path / ".gitignore").write_text("*.log\nbuild/\n!keep.log\n")
    if use_git:
        make_repo(tmp_path, {"tracked.txt": "t\n"})
    else:
        (tmp_path / ".git").mkdir()  # looks like one, but no git is asked
    (tmp_path / "build").mkdir()
    s = await session_in(tmp_path, use_git=use_git)
    s.thread.begin_turn()
    (tmp_path / "debug.log").write_text("noise\n")
    (tmp_path / "keep.log").write_text("kept\n")
    (tmp_path / "build" / "out.txt").write_text("artifact\n")
    (tmp_path / ".git" / "junk").write_text("internal\n")
    await s.fence()
    names = {r.path.relative_to(s.root).as_posix() for r in s.log.records}
    assert names == {"keep.log", "fence-1.txt"}


async def test_acp_tuis_own_writes_are_not_counted_twice(
    tmp_path: Path, session_in: Callable[..., Any]
) -> None:
    make_repo(tmp_path, {"notes.txt": "old\n"})
    root = await asyncio.to_thread(tmp_path.resolve)
    fs = FileSystemHost(root, FixedAnswer("allow_once"))
    s = await session_in(tmp_path, fs)
    s.thread.begin_turn()
    for name, content in [("notes.txt", "new\n"), ("made.txt", "m\n")]:
        params = {"sessionId": "s", "path": str(root / name), "content": content}
        await fs.write_text_file(WriteTextFileRequest.model_validate(params))
    await s.fence()
    await s.monitor.settle([s.root / "notes.txt", s.root / "made.txt"])
    assert [(r.path.name, r.observed) for r in s.log.records] == [
        ("notes.txt", None),
        ("made.txt", None),
        ("fence-1.txt", s.log.records[2].observed),
    ]
    # a revert is acp-tui's write too
    await s.fs.reverts.revert_record(1)
    await s.fence()
    assert [r.path.name for r in s.log.records] == [
        "notes.txt", "made.txt", "fence-1.txt", "notes.txt", "fence-2.txt",
    ]  # fmt: skip
    assert (tmp_path / "notes.txt").read_text() == "old\n"


async def test_acp_tuis_own_xdg_directories_inside_the_project_are_not_changes(
    tmp_path: Path, session_in: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """acp-tui's data, cache and state directories are its own files wherever they are (issue
    39, 13): inside the project, what acp-tui keeps there is no change of the session. A git
    worktree acp-tui made under its data directory is where sessions work: not its own."""
    for variable, folder in [("XDG_DATA_HOME", "data"), ("XDG_CACHE_HOME", "cache"),
                             ("XDG_STATE_HOME", "state")]:  # fmt: skip
        monkeypatch.setenv(variable, str(tmp_path / folder))
        (tmp_path / folder / "acp-tui").mkdir(parents=True)
    s = await session_in(tmp_path, use_git=False)
    s.thread.begin_turn()
    (tmp_path / "data" / "acp-tui" / "sessions.json").write_text("{}\n")
    (tmp_path / "cache" / "acp-tui" / "index.json").write_text("{}\n")
    (tmp_path / "state" / "acp-tui" / "errors.log").write_text("x\n")
    (tmp_path / "data" / "acp-tui" / "worktrees").mkdir()
    (tmp_path / "data" / "acp-tui" / "worktrees" / "wt.txt").write_text("work\n")
    await s.fence()
    names = {r.path.relative_to(s.root).as_posix() for r in s.log.records}
    assert names == {"data/acp-tui/worktrees/wt.txt", "fence-1.txt"}


async def test_attribution_diff_match_idle_edits_and_mismatch_notes(
    tmp_path: Path, session_in: Callable[..., Any]
) -> None:
    make_repo(tmp_path, {"a.txt": "a\n", "b.txt": "b\n"})
    s = await session_in(tmp_path)
    (tmp_path / "a.txt").write_text("the user, idle\n")
    await until(lambda: s.records("a.txt"), "the idle edit")
    assert whose(s.records("a.txt")[0]).origin == "outside"
    assert whose(s.records("a.txt")[0]).turn is None

    s.thread.begin_turn()
    path_b = str(s.root / "b.txt")
    s.tool_call("read", kind="read", locations=[{"path": path_b}])
    s.tool_call("shows", content=[diff(path_b, "b\n", "B\n")])
    s.tool_call("later", locations=[{"path": path_b}])
    (tmp_path / "b.txt").write_text("B\n")
    await until(lambda: s.records("b.txt"), "b's record")
    # the call whose diff has exactly this content wins over a later call naming the file
    assert whose(s.records("b.txt")[0]).tool_call_id == "shows"
    assert s.thread.tool_calls["shows"].disk_notes == []

    s.tool_call("lies", content=[diff(path_b, "B\n", "C\n")])
    (tmp_path / "b.txt").write_text("something else\n")
    await until(lambda: len(s.records("b.txt")) == 2, "b's second record")
    assert whose(s.records("b.txt")[1]).tool_call_id == "lies"
    assert s.thread.tool_calls["lies"].disk_notes == ["b.txt on disk differs from this diff (F2)"]
    (tmp_path / "b.txt").write_text("C\n")
    await until(lambda: not s.thread.tool_calls["lies"].disk_notes, "the note cleared")


async def test_v2_background_work_after_the_turn_is_attributed_to_its_tool_call(
    tmp_path: Path, session_in: Callable[..., Any]
) -> None:
    make_repo(tmp_path, {"a.txt": "a\n", "b.txt": "b\n"})
    s = await session_in(tmp_path)
    s.tracking.attribution.grace = 0.0  # the turn's own window is over at once
    s.thread.mark_background = True  # a v2 session: what arrives while idle is background
    s.thread.begin_turn()
    s.thread.end_turn("end_turn")
    (tmp_path / "a.txt").write_text("the user, idle\n")
    await until(lambda: s.records("a.txt"), "the idle edit")
    assert whose(s.records("a.txt")[0]).origin == "outside"
    path_b = str(s.root / "b.txt")
    s.tool_call("bg", content=[diff(path_b, "b\n", "B\n")])  # reported while idle
    assert s.thread.tool_calls["bg"].id in s.thread.background
    (tmp_path / "b.txt").write_text("B\n")
    await until(lambda: s.records("b.txt"), "b's record")
    observed = whose(s.records("b.txt")[0])
    assert (observed.origin, observed.tool_call_id, observed.turn) == ("tool_call", "bg", 1)


async def test_turn_summary_lists_the_turns_files_and_reverts_them(
    tmp_path: Path, session_in: Callable[..., Any]
) -> None:
    make_repo(tmp_path, {"notes.txt": "first\nold line\nlast\n"})
    s = await session_in(tmp_path)
    summaries: list[Any] = []
    s.tracking.turns.summary_changed.subscribe(summaries.append)
    s.thread.begin_turn()
    s.tool_call("edit", locations=[{"path": str(s.root / "notes.txt")}])
    s.tool_call("write", locations=[{"path": str(s.root / "hello.txt")}])
    (tmp_path / "notes.txt").write_text("first\nnew line\nlast\n")
    (tmp_path / "hello.txt").write_text("Hello\n")
    await s.tracking.before_turn_end()  # reads the named paths now: no waiting on events
    assert {r.path.name for r in s.log.records} == {"notes.txt", "hello.txt"}
    s.thread.end_turn("end_turn")
    [summary] = summaries
    assert summary.turn == 1
    counts = {f.path.name: (f.diff.added, f.diff.removed) for f in summary.files}
    assert counts == {"notes.txt": (1, 1), "hello.txt": (1, 0)}

    result = await s.tracking.turns.revert(1)
    assert sorted(p.name for p in result.reverted) == ["hello.txt", "notes.txt"]
    assert not (tmp_path / "hello.txt").exists()
    assert (tmp_path / "notes.txt").read_text() == "first\nold line\nlast\n"
    await s.fence()
    kept = [r for r in s.log.records if r.reverts is None and r.path.name != "fence-1.txt"]
    assert len(kept) == 2


async def test_an_agents_own_state_files_are_listed_apart_and_not_reverted_with_the_turn(
    tmp_path: Path, session_in: Callable[..., Any]
) -> None:
    """Issue 39, 15d: fast-agent's `.fast-agent/sessions/*` were the turn's changes and
    "R revert turn" would delete them."""
    make_repo(tmp_path, {"notes.txt": "n\n"})
    s = await session_in(tmp_path)
    summaries: list[Any] = []
    s.tracking.turns.summary_changed.subscribe(summaries.append)
    s.thread.begin_turn()
    state = tmp_path / ".fast-agent" / "sessions" / "2612" / "session.json"
    state.parent.mkdir(parents=True)
    state.write_text("{}\n")
    s.tool_call("write", locations=[{"path": str(s.root / "hello.txt")}])
    (tmp_path / "hello.txt").write_text("Hello\n")
    await until(lambda: s.records(".fast-agent/sessions/2612/session.json"), "the state's record")
    await s.tracking.before_turn_end()
    s.thread.end_turn("end_turn")
    summary = summaries[-1]
    assert [f.path.name for f in summary.files] == ["hello.txt"]
    assert [f.path.name for f in summary.apart] == ["session.json"]
    result = await s.tracking.turns.revert(1)
    assert [p.name for p in result.reverted] == ["hello.txt"]
    assert state.read_text() == "{}\n", "the agent's own state is left alone"


async def test_a_write_the_project_ignores_is_listed_apart_and_not_reverted_with_the_turn(
    tmp_path: Path, session_in: Callable[..., Any]
) -> None:
    """Issue 39, 15d: a file the project's ignore rules exclude (here .git/info/exclude), that
    the agent wrote through acp-tui, is listed apart from the turn's changes and left by R."""
    make_repo(tmp_path, {"notes.txt": "n\n"})
    (tmp_path / ".git" / "info").mkdir(exist_ok=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("state/\n")
    root = await asyncio.to_thread(tmp_path.resolve)
    fs = FileSystemHost(root, FixedAnswer("allow_once"))
    s = await session_in(tmp_path, fs)
    summaries: list[Any] = []
    s.tracking.turns.summary_changed.subscribe(summaries.append)
    s.thread.begin_turn()
    s.tool_call("w", locations=[{"path": str(root / "state" / "s.json")},
                                {"path": str(root / "notes.txt")}])  # fmt: skip
    for name, content in [("state/s.json", "{}\n"), ("notes.txt", "n2\n")]:
        params = {"sessionId": "s", "path": str(root / name), "content": content}
        await fs.write_text_file(WriteTextFileRequest.model_validate(params))
    await s.tracking.before_turn_end()
    s.thread.end_turn("end_turn")
    summary = summaries[-1]
    assert [f.path.name for f in summary.files] == ["notes.txt"]
    assert [f.path.name for f in summary.apart] == ["s.json"]
    result = await s.tracking.turns.revert(1)
    assert [p.name for p in result.reverted] == ["notes.txt"]
    assert (root / "state" / "s.json").read_text() == "{}\n"


@pytest.mark.parametrize(
    ("old", "new", "before", "after", "expected"),
    [
        (None, "Hello\n", None, "Hello\n", True),  # a new file, shown whole
        ("a\nold\nz\n", "a\nnew\nz", "a\nold\nz\n", "a\nnew\nz\n", True),  # final newline dropped
        ("old line", "new line", "first\nold line\nlast\n", "first\nnew line\nlast\n", True),
        ("old line", "new line", "first\nold line\nlast\n", "first\nother\nlast\n", False),
        ("a\n", "b\n", "a\n", None, False),  # deleted instead
        ("gone", "new", "first\n", "first\nnew\n", False),  # the fragment is not in the file
    ],
)
def test_what_counts_as_the_diff_the_card_showed(
    old: str | None, new: str, before: str | None, after: str | None, expected: bool
) -> None:
    assert shows((old, new), before, after) is expected


async def test_a_start_interrupted_from_inside_does_not_cancel_the_prompt_waiting_on_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Something the start awaits cancelled under it (a shared watcher whose first caller went
    away): the start is logged as failed, and the prompt waiting for the baseline goes out
    (before, the prompt's turn got the CancelledError and ended unsent, without a word)."""
    session = Session(tmp_path)

    async def interrupted() -> None:
        raise asyncio.CancelledError

    monkeypatch.setattr(session.monitor, "start", interrupted)
    session.tracking.start_soon()
    await asyncio.wait_for(session.tracking.wait_ready(), 10)  # returns, does not raise
    await session.tracking.stop()

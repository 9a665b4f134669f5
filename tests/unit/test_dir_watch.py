"""`DirectoryWatchers` on real directories: one watcher per directory (a directory below a watched
one shares it, and hears only its own events), new directories followed with what they already
hold, two registries apart, and nothing running while nothing changes (inotify: no thread, no
timer). Nothing sleeps to synchronise: tests wait until a listener heard what they expect."""

from __future__ import annotations

import asyncio
import errno
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from acp_tui.host.dir_watch import DirectoryWatchers, PolledTree, Watching
from acp_tui.host.inotify import ADDED, DELETED, Event, InotifyTree, available
from tests.unit.inotify_limit import limit_watches

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.skipif(not available(), reason="inotify (Linux) only"),
]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path.resolve()


async def until(condition: Callable[[], object], what: str, within: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + within
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


class Heard:
    def __init__(self) -> None:
        self.events: set[Event] = set()

    def __call__(self, _at: float, events: set[Event]) -> None:
        self.events |= events

    def paths(self, change: int = ADDED) -> set[str]:
        return {path for kind, path in self.events if kind == change}


async def test_a_directory_below_a_watched_one_shares_its_watcher_and_hears_only_its_own(
    root: Path,
) -> None:
    (root / "sub").mkdir()
    watchers = DirectoryWatchers()
    top, below = Heard(), Heard()
    watching: list[Watching] = [
        await watchers.watch(root, top),
        await watchers.watch(root / "sub", below),
    ]
    assert watchers.roots == [root]
    (root / "sub" / "inner.txt").write_text("x")
    (root / "outer.txt").write_text("y")
    await until(lambda: str(root / "outer.txt") in top.paths(), "the outer file")
    await until(lambda: str(root / "sub" / "inner.txt") in top.paths(), "the inner file")
    await until(lambda: below.paths(), "the inner file below")
    assert below.paths() == {str(root / "sub" / "inner.txt")}
    (root / "outer.txt").unlink()
    await until(lambda: str(root / "outer.txt") in top.paths(DELETED), "the deletion")
    for w in watching:
        w.close()
    assert watchers.roots == []


async def test_files_made_in_a_new_directory_at_once_are_reported(root: Path) -> None:
    watchers = DirectoryWatchers()
    heard = Heard()
    watching = await watchers.watch(root, heard)
    deep = root / "a" / "b" / "c"
    deep.mkdir(parents=True)  # before any watch of them exists
    (deep / "made.py").write_text("x")
    await until(lambda: str(deep / "made.py") in heard.paths(), "the file in the new directory")
    (deep / "later.py").write_text("y")  # the new directory is watched now
    await until(lambda: str(deep / "later.py") in heard.paths(), "a later file there")
    watching.close()


async def test_two_registries_stay_apart_and_an_idle_watcher_runs_nothing(root: Path) -> None:
    first, second = DirectoryWatchers(), DirectoryWatchers()
    one, two = Heard(), Heard()
    watching = [await first.watch(root, one), await second.watch(root, two)]
    assert first.roots == second.roots == [root]  # each app its own watcher
    (root / "f.txt").write_text("x")
    await until(lambda: one.paths() and two.paths(), "both heard")
    watch = watching[0].watch
    await until(lambda: watch.idle, "the batch handed out")
    # idle: no thread of its own, no timer set; only the descriptor the loop selects on
    assert [t for t in threading.enumerate() if t.name.startswith("acp-tui-")] == []
    for w in watching:
        w.close()
    assert first.roots == second.roots == []


async def test_when_inotify_cannot_start_watchfiles_watches_instead(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(self: InotifyTree) -> None:
        raise OSError(errno.EMFILE, "inotify_init1 failed")

    monkeypatch.setattr(InotifyTree, "arm", refused)
    watchers = DirectoryWatchers()
    heard = Heard()
    watching = await watchers.watch(root, heard)
    (root / "seen.txt").write_text("x")
    await until(lambda: str(root / "seen.txt") in heard.paths(), "the file, through watchfiles")
    assert [t.name for t in threading.enumerate() if t.name == "acp-tui-watch"] == ["acp-tui-watch"]
    watching.close()
    assert [t.name for t in threading.enumerate() if t.name == "acp-tui-watch"] == []


@pytest.mark.parametrize("inotify", [True, False], ids=["inotify", "watchfiles"])
async def test_a_directory_above_a_watched_one_takes_its_watcher_over(
    root: Path, inotify: bool
) -> None:
    (root / "sub").mkdir()
    watchers = DirectoryWatchers(use_inotify=inotify)
    below, top = Heard(), Heard()
    inner = await watchers.watch(root / "sub", below)
    old = inner.watch
    outer = await watchers.watch(root, top)
    assert watchers.roots == [root], "one watcher: the one below stopped"
    assert old.closed and inner.watch is outer.watch
    assert inner.neighbours is outer.neighbours
    (root / "sub" / "inner.txt").write_text("x")
    (root / "outer.txt").write_text("y")
    await until(lambda: str(root / "outer.txt") in top.paths(), "the outer file")
    await until(lambda: str(root / "sub" / "inner.txt") in top.paths(), "the inner file")
    await until(lambda: below.paths(), "the inner file below")
    assert below.paths() == {str(root / "sub" / "inner.txt")}, "below hears only its own"
    outer.close()
    assert watchers.roots == [root], "kept for the listener below"
    (root / "sub" / "later.txt").write_text("z")
    await until(lambda: str(root / "sub" / "later.txt") in below.paths(), "still heard below")
    inner.close()
    assert watchers.roots == []
    assert [t.name for t in threading.enumerate() if t.name.startswith("acp-tui-")] == []


async def test_the_watch_limit_reached_while_arming_polls_the_tree_and_says_so_once(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("a", "b", "c"):
        (root / name / "deep").mkdir(parents=True)
    limited = limit_watches(monkeypatch, allowed=2)
    watchers = DirectoryWatchers()
    heard, notices, later = Heard(), list[str](), list[str]()
    watching = await watchers.watch(root, heard, on_notice=notices.append)
    assert limited.refused > 0
    assert len(notices) == 1 and notices[0].startswith("file watching incomplete: ")
    assert "fs.inotify.max_user_watches" in notices[0] and str(root) in notices[0]
    assert "checked for changes every 2 s" in notices[0]
    # polled now: a change deep in a directory inotify could not watch is heard
    (root / "c" / "deep" / "late.txt").write_text("x")
    await until(lambda: str(root / "c" / "deep" / "late.txt") in heard.paths(), "the change")
    # a listener coming later is told too, once
    other = await watchers.watch(root / "b", Heard(), on_notice=later.append)
    assert later == notices and len(notices) == 1
    other.close()
    watching.close()
    assert [t.name for t in threading.enumerate() if t.name.startswith("acp-tui-")] == []


async def test_the_watch_limit_reached_by_a_new_directory_polls_from_then_on(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    limit_watches(monkeypatch, allowed=1)  # the root only
    watchers = DirectoryWatchers()
    heard, notices = Heard(), list[str]()
    watching = await watchers.watch(root, heard, on_notice=notices.append)
    assert notices == []
    (root / "new" / "inner").mkdir(parents=True)  # cannot be watched: the limit
    (root / "new" / "inner" / "made.txt").write_text("x")
    await until(lambda: notices, "the notice")
    assert "fs.inotify.max_user_watches" in notices[0]
    # changes in the directory inotify could not watch are heard from then on
    (root / "new" / "inner" / "later.txt").write_text("y")
    await until(lambda: str(root / "new" / "inner" / "later.txt") in heard.paths(), "polled")
    (root / "another").mkdir()
    await until(lambda: str(root / "another") in heard.paths(), "another directory")
    assert len(notices) == 1, "said once"
    watching.close()
    assert [t.name for t in threading.enumerate() if t.name.startswith("acp-tui-")] == []


async def test_when_polling_cannot_start_either_the_notice_says_what_may_be_missed(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "a").mkdir()
    limit_watches(monkeypatch, allowed=1)

    def refused(self: PolledTree) -> None:
        raise OSError(errno.EMFILE, "too many open files")

    monkeypatch.setattr(PolledTree, "arm", refused)
    watchers = DirectoryWatchers()
    heard, notices = Heard(), list[str]()
    watching = await watchers.watch(root, heard, on_notice=notices.append)
    assert len(notices) == 1 and "fs.inotify.max_user_watches" in notices[0]
    assert "changes the agent makes itself" in notices[0] and "may be missed" in notices[0]
    (root / "top.txt").write_text("x")  # what inotify does watch is still heard
    await until(lambda: str(root / "top.txt") in heard.paths(), "the change at the top")
    watching.close()


async def test_the_first_caller_cancelled_while_arming_does_not_fail_the_others(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen as a prompt never sent: the prompt field's file index armed the shared watcher, its
    worker was cancelled (the main screen rebuilt for a new session) while arming, and the
    change monitor waiting on the same arming got CancelledError, so its baseline never came
    and the first prompt's turn ended unsent."""
    release = threading.Event()
    entered = threading.Event()
    real_arm = InotifyTree.arm

    def slow_arm(self: InotifyTree) -> None:
        entered.set()
        release.wait(20)
        real_arm(self)

    monkeypatch.setattr(InotifyTree, "arm", slow_arm)
    watchers = DirectoryWatchers()
    first = asyncio.create_task(watchers.watch(root, Heard()))
    await until(entered.is_set, "the first caller arming")
    heard = Heard()
    second = asyncio.create_task(watchers.watch(root, heard))
    await until(lambda: watchers._watches[root].users == 2, "the second caller waiting")
    first.cancel()
    await asyncio.wait({first})
    release.set()
    watching = await asyncio.wait_for(second, 20)
    (root / "seen.txt").write_text("x")
    await until(lambda: str(root / "seen.txt") in heard.paths(), "the file, heard by the second")
    watching.close()
    assert watchers.roots == []

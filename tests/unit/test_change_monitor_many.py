"""The change monitor with many files at once (issue 25, item 7): it records them a slice at a
time and lets the event loop run between slices, its reading thread and the start-up scan stop
at the next file once it is stopped, late records of an ended turn cost one summary per slice,
and a change is attributed to the turn as of when its event arrived."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from acp_tui.host import baseline, change_monitor
from acp_tui.host.baseline import Baseline, Before
from acp_tui.host.change_log import WriteRecord
from acp_tui.host.ignore import IgnoreRules
from tests.unit.test_change_monitor import Session, until

pytestmark = pytest.mark.timeout(60)
FILES = 1000


@pytest.fixture
async def started(tmp_path: Path) -> AsyncIterator[Callable[[Path], Any]]:
    made: list[Session] = []

    async def make(root: Path) -> Session:
        session = Session(root)
        made.append(session)
        session.tracking.start_soon()
        await session.tracking.wait_ready()
        return session

    yield make
    for session in made:
        await session.tracking.stop()


def make_files(root: Path, count: int) -> list[Path]:
    folder = root / "flood"
    folder.mkdir()
    paths = [folder / f"f{i:05}.txt" for i in range(count)]
    for index, path in enumerate(paths):
        path.write_text(f"file {index}\n")
    return paths


async def test_many_changes_are_recorded_a_slice_at_a_time_with_the_loop_running_between(
    tmp_path: Path, started: Callable[[Path], Any]
) -> None:
    paths = make_files(tmp_path, FILES)
    s = await started(tmp_path)
    assert s.monitor.baseline is not None
    for path in paths:  # as if they had not been there at the start: no event will come
        s.monitor.baseline.snapshot[path.resolve()] = None
    loop = asyncio.get_running_loop()
    seen_by_the_loop: list[int] = []
    settled: list[None] = []

    def on_record(record: WriteRecord) -> None:
        if len(s.log.records) == 1:  # the loop's next turn: how many are in by then?
            loop.call_soon(lambda: seen_by_the_loop.append(len(s.log.records)))

    s.log.subscribe(on_record)
    s.log.settled.subscribe(settled.append)
    await s.monitor.settle([path.resolve() for path in paths])
    assert len(s.log.records) == FILES
    assert seen_by_the_loop and seen_by_the_loop[0] <= change_monitor.SLICE
    assert len(settled) == FILES // change_monitor.SLICE  # one per slice, not one per file


async def test_stopping_stops_the_reading_thread_at_the_next_file(
    tmp_path: Path, started: Callable[[Path], Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = make_files(tmp_path, FILES)
    s = await started(tmp_path)
    assert s.monitor.baseline is not None
    for path in paths:
        s.monitor.baseline.snapshot[path.resolve()] = None
    reads: list[Path] = []
    blocked, release, finished = threading.Event(), threading.Event(), threading.Event()
    real_read, real_look = baseline.read_small, s.monitor._look

    def read_small(path: Path, limit: int) -> Before:
        reads.append(path)
        if len(reads) == 5:
            blocked.set()
            release.wait(30)
        return real_read(path, limit)

    def look(*args: Any) -> Any:
        try:
            return real_look(*args)
        finally:
            finished.set()

    monkeypatch.setattr(change_monitor, "read_small", read_small)
    monkeypatch.setattr(s.monitor, "_look", look)
    processing = asyncio.create_task(s.monitor.settle([path.resolve() for path in paths]))
    try:
        await asyncio.to_thread(blocked.wait, 30)  # the thread is held at the 5th file
        await s.tracking.stop()
    finally:
        release.set()
    await asyncio.to_thread(finished.wait, 30)
    assert len(reads) <= 6, f"{len(reads)} files read after the monitor stopped"
    await processing  # returns without the rest of the files
    assert len(s.log.records) < FILES


def test_the_start_up_scan_ends_at_the_next_file_once_stopped(tmp_path: Path) -> None:
    make_files(tmp_path, 300)
    stop = threading.Event()
    start = Baseline(tmp_path, IgnoreRules(tmp_path, git=False), git_top=None)
    real_keep = start._keep

    def keep(path: Path) -> None:
        real_keep(path)
        if start.files_scanned == 10:
            stop.set()  # the session closes while the scan runs

    start._keep = keep  # type: ignore[method-assign]
    start.scan(stop)
    assert start.files_scanned == 10


async def test_records_of_a_turn_arriving_after_it_ended_are_summed_up_once_per_slice(
    tmp_path: Path, started: Callable[[Path], Any]
) -> None:
    s = await started(tmp_path)
    summaries: list[Any] = []
    s.tracking.turns.summary_changed.subscribe(summaries.append)
    s.thread.begin_turn()
    s.thread.end_turn("end_turn")
    attribution = s.tracking.attribution
    ended = attribution.clock()
    attribution.grace = 60.0  # the events arrive within the grace after the turn ended ...
    attribution.clock = lambda: ended + 3600  # ... and are handled an hour after it
    paths = make_files(tmp_path, 450)
    assert s.monitor.baseline is not None
    await until(lambda: len(s.log.records) == 450, "the 450 records")
    assert all(r.observed is not None and r.observed.turn == 1 for r in s.log.records)
    assert 1 <= len(summaries) <= 45  # per slice of records, not one per record
    assert len(summaries[-1].files) == len(paths)


async def test_the_files_of_a_new_directory_are_looked_at_with_it(
    tmp_path: Path, started: Callable[[Path], Any]
) -> None:
    """Files made in a new directory before the watcher watched it have no event of their own:
    the directory's event brings them in."""
    paths = make_files(tmp_path, 30)
    s = await started(tmp_path)
    assert s.monitor.baseline is not None
    for path in paths:  # as if made after the start, their events lost
        s.monitor.baseline.snapshot[path.resolve()] = None
    await s.monitor.settle([(tmp_path / "flood").resolve()])
    assert sorted(r.path.name for r in s.log.records) == [p.name for p in paths]

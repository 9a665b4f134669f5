"""The change monitor: files that change in the session directory without acp-tui writing them.

Agents that edit files themselves (claude-agent-acp, codex, ...) never call `fs/write_text_file`, so
their edits would bypass review. The monitor listens to the session directory's watcher (one per
directory, shared with the file index and the other sessions there: `dir_watch`), skips what git or
the root ``.gitignore`` ignores (`ignore`), and for each file that now differs from what acp-tui
last knew of it appends a `WriteRecord` to the session's `ChangeLog` with `observed` set by the
`attribute` callback (which tool call, the agent, or outside acp-tui). What acp-tui last knew is the
`after` of the file's latest record, else its `Baseline` (the content before the agent first touched
it). acp-tui's own writes (the file host's writes and reverts) are in the log before their events
arrive, so they match and are not counted twice; acp-tui's temporary files are ignored, and so are
its own files (`OwnFiles`: the traffic log, exports), which are never changes of the session.

Several sessions in one directory see each other's changes: the monitors meet in the watcher's
`Neighbours`, which tell them whose a change is (another session's write or agent: not recorded
here; several agents working at once: recorded by each as made while they all worked).

`settle(paths)` reads paths at once instead of waiting for their events (the end of a turn).

Many files at once (an agent that creates 20,000) are handled in slices of `SLICE` paths: each
slice is read in a worker thread, then recorded on the event loop inside one `ChangeLog.group`
(one `settled` per slice, not per file), and the loop gets control back between slices. The
reading thread and the start-up scan stop at the next file once `stop()` is called, so closing
the session never waits for a scan to finish. A change is attributed as of the moment its event
arrived from the watcher, not when its slice came round.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from acp_tui.host.baseline import (
    BUDGET_BYTES,
    MAX_FILE_BYTES,
    Baseline,
    Before,
    read_small,
)
from acp_tui.host.change_log import ChangeLog, Observed, WriteRecord, decode_for_record
from acp_tui.host.dir_watch import DirectoryWatchers, Watching
from acp_tui.host.ignore import IgnoreRules, git_root
from acp_tui.host.inotify import Event
from acp_tui.host.neighbours import Neighbour
from acp_tui.host.own_files import OwnFiles
from acp_tui.tasks import Supervisor

log = logging.getLogger(__name__)

Attribute = Callable[[Path, bytes | None, str | None, float | None], Observed]
"""Whose a change is: the changed file, its content now (None: deleted) and before (text), and
when its event arrived (`time.monotonic()`; None: now)."""

SLICE = 200
"""Paths read in one go and recorded between two returns to the event loop."""
MAX_NEW_DIRECTORY_FILES = 200_000
"""Files looked at inside one new directory (see `_look`)."""


class ChangeMonitor:
    def __init__(
        self,
        root: Path,
        changes: ChangeLog,
        attribute: Attribute,
        *,
        max_file_bytes: int = MAX_FILE_BYTES,
        budget_bytes: int = BUDGET_BYTES,
        use_git: bool = True,
        tasks: Supervisor | None = None,
        own_files: OwnFiles | None = None,
        on_observed: Callable[[WriteRecord], None] | None = None,
        watchers: DirectoryWatchers | None = None,
        name: Callable[[], str] = lambda: "the agent",
        busy: Callable[[float | None], bool] = lambda at: False,
        on_notice: Callable[[str], None] | None = None,
    ) -> None:
        self.watchers = watchers if watchers is not None else DirectoryWatchers()
        self.root = root.resolve()
        self.neighbour = Neighbour(name, busy, self.root)
        """This session among the others watching the directory (its name, its agent working,
        its directory)."""
        self.own_files = own_files if own_files is not None else OwnFiles()
        self.ignored: set[Path] = set()
        """Paths seen changing that the project's ignore rules exclude (not recorded; a write
        acp-tui made there for the agent is listed apart from the turn's changes)."""
        self.on_observed = on_observed
        """Told each record the monitor adds (the file host: what the agent changed itself)."""
        self.on_notice = on_notice
        """Told (once) when the directory's watching is incomplete (the inotify limit)."""
        self._tasks = tasks if tasks is not None else Supervisor("change monitor")
        self.changes = changes
        self.attribute = attribute
        self.max_file_bytes = max_file_bytes
        self.budget_bytes = budget_bytes
        self.use_git = use_git
        self.ignore: IgnoreRules | None = None
        self.baseline: Baseline | None = None
        self.batches = 0
        """Batches of events processed (tests and the bench wait on it)."""
        self.observed = 0
        """Records the monitor added."""
        self._last: dict[Path, bytes | None] = {}
        self._walked: set[Path] = set()
        """Directories whose files were looked at when their event arrived."""
        self._unsubscribe = changes.subscribe(self._on_record)
        self._stop = threading.Event()
        self._watching: Watching | None = None
        self._leave: Callable[[], None] | None = None
        self._consumer: asyncio.Task[None] | None = None
        self._queue: asyncio.Queue[tuple[float, set[Event]]] = asyncio.Queue()
        self._ready = asyncio.Event()
        self._process_lock = asyncio.Lock()

    @property
    def running(self) -> bool:
        return self._watching is not None

    async def start(self) -> None:
        """Listen to the directory's watcher, then take the baseline (the one scan); returns when
        both are done."""
        if self._watching is not None:
            return
        git_top = await asyncio.to_thread(git_root, self.root) if self.use_git else None
        self.ignore = IgnoreRules(self.root, git=git_top is not None)
        self.baseline = Baseline(
            self.root,
            self.ignore,
            git_top=git_top,
            max_file_bytes=self.max_file_bytes,
            budget_bytes=self.budget_bytes,
        )
        self._watching = await self.watchers.watch(
            self.root, self._on_batch, on_notice=self.on_notice
        )
        if self._stop.is_set():  # stopped while the watcher was armed
            self._watching.close()
            return
        self._leave = self._watching.neighbours.join(self.neighbour)
        self._consumer = self._tasks.spawn("change monitor events", self._consume())
        await asyncio.to_thread(self.baseline.scan, self._stop)
        self._ready.set()

    async def stop(self) -> None:
        self._unsubscribe()
        self._stop.set()
        leave, self._leave = self._leave, None
        if leave is not None:
            leave()
        watching, self._watching = self._watching, None
        if watching is not None:
            watching.close()
        consumer, self._consumer = self._consumer, None
        if consumer is not None:
            consumer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await consumer

    async def wait_ready(self) -> None:
        await self._ready.wait()

    def touch(self, paths: Iterable[Path]) -> None:
        """The agent announced a tool call on `paths`: keep baselines the scan could not keep."""
        if self.baseline is None:
            return
        for path in paths:
            if path not in self._last:
                self.baseline.touch(path)

    async def settle(self, paths: Iterable[Path]) -> None:
        """Look at `paths` now (their events may not have arrived yet)."""
        if self._watching is not None:
            await self._process({path for path in paths})

    def _on_batch(self, at: float, events: set[Event]) -> None:
        """(on the loop) A batch of the watcher's events, `at`: when its first was read."""
        self._queue.put_nowait((at, events))

    # ---- processing ---------------------------------------------------------------------------

    async def _consume(self) -> None:
        while True:
            at, batch = await self._queue.get()
            await self._ready.wait()
            try:
                await self._process({Path(path) for _, path in batch}, at)
            except Exception:
                log.exception("change monitor could not process %d events", len(batch))
            self.batches += 1

    async def _process(self, paths: set[Path], at: float | None = None) -> None:
        """Read `paths` a slice at a time (in a thread) and record what changed (on the loop)."""
        ordered = sorted(paths)
        async with self._process_lock:
            done = 0
            while done < len(ordered) and not self._stop.is_set():
                known = set(self._last)
                chunk = ordered[done : done + SLICE]
                done += len(chunk)
                found, inside, ignored = await asyncio.to_thread(self._look, chunk, known)
                # (kept only for files acp-tui wrote: build trees' paths would pile up)
                self.ignored |= {path for path in ignored if self.changes.records_for(path)}
                ordered.extend(sorted(set(inside) - paths))
                with self.changes.group():
                    for path, current, baseline in found:
                        self._compare(path, current, baseline, at)
                await asyncio.sleep(0)  # the loop's turn (keys, frames) before the next slice

    def _look(
        self, paths: list[Path], known: set[Path]
    ) -> tuple[list[tuple[Path, Before, Before | None]], list[Path], set[Path]]:
        """(blocking) each wanted path's content now, and its baseline if not known yet; stops
        at the next file once the monitor is stopped. Also the files inside each directory seen
        for the first time: files made in a new directory before the watcher watched it have
        no event of their own."""
        ignore, baseline = self.ignore, self.baseline
        assert ignore is not None and baseline is not None
        for path in paths:
            ignore.changed(path)
        found, inside = [], []
        candidates = [path for path in paths if path not in self.own_files]
        kept = ignore.filter(candidates)
        ignored = set(candidates).difference(kept)
        for path in kept:
            if self._stop.is_set():
                break
            current = read_small(path, self.max_file_bytes)
            if current.known:
                found.append((path, current, None if path in known else baseline.get(path)))
            elif path not in self._walked and os.path.isdir(path) and not os.path.islink(path):
                self._walked.add(path)
                inside.extend(self._files_under(path))
        return found, inside, ignored

    def _files_under(self, directory: Path) -> list[Path]:
        """(blocking) the files below a new directory (ignored directories not entered)."""
        assert self.ignore is not None
        found: list[Path] = []
        for top, dirs, files in os.walk(directory):
            if self._stop.is_set() or len(found) > MAX_NEW_DIRECTORY_FILES:
                break
            base = Path(top).relative_to(self.root).as_posix()
            dirs[:] = [d for d in dirs if not self.ignore.ignored_dir(f"{base}/{d}")]
            found.extend(Path(top, name) for name in files)
        return found

    def _compare(
        self, path: Path, current: Before, baseline: Before | None, at: float | None
    ) -> None:
        if path in self._last:
            before = Before(True, self._last[path])
        elif baseline is not None:
            before = baseline
        else:
            return  # it was known, then forgotten: cannot happen; be safe
        if before.known and before.data == current.data:
            return  # acp-tui's own write, or nothing changed
        if before.data is None and current.data is None:
            if not before.known:
                self._last[path] = None
            return
        verdict = (
            self._watching.neighbours.whose(self.neighbour, path, current.data, at)
            if self._watching is not None
            else None
        )
        if verdict is not None and verdict.kind == "theirs":
            # another session's: what is on disk now is known, not recorded; who made it is
            # noted (a rewind names them rather than taking the change for the user's)
            self._last[path] = current.data
            self.changes.note_other(path, current.data, verdict.working)
            return
        before_text, before_exact = decode_for_record(before.data)
        observed = self.attribute(path, current.data, before_text, at)
        if verdict is not None and verdict.kind == "shared":
            observed = Observed("shared", turn=observed.turn, working=verdict.working)
        after_text, after_exact = decode_for_record(current.data)
        self.observed += 1
        record = self.changes.add(
            path,
            before_text,
            after_text or "",
            deleted=current.data is None,
            before_bytes=before_exact,
            after_bytes=after_exact,
            before_omitted=not before.known,
            observed=observed,
        )
        if self.on_observed is not None:
            self.on_observed(record)

    def _on_record(self, record: WriteRecord) -> None:
        data = None if record.deleted else record.after_data()
        self._last[record.path] = data
        if record.observed is None and self._watching is not None:  # acp-tui wrote it
            self._watching.neighbours.wrote(self.neighbour, record.path, data)

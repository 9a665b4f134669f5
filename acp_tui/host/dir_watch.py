"""One file-system watcher per directory, shared by every session of the process rooted there.

`DirectoryWatchers` is built once by the app (`acp_tui.ui.launch`) and handed to the host
services of every session it opens (each `AgentSession` makes its own when given none, so two
apps in one process, or two tests, stay apart). `await watchers.watch(root, listener)` returns a
`Watching`: the listener is called on the event loop with `(at, events)` batches, only events
under its `root`; a directory already watched, or below one that is, shares that watcher. A
directory above watched ones gets a watcher that takes over their listeners once it is armed
(theirs stop): directories never have two watchers, so no change is read twice. Closing the
last `Watching` of a watcher stops it.

The file index (the @-completion) and the change monitor of every session in a directory listen
to the same watcher, and the monitors meet in the watchers' one `Neighbours`
(`Watching.neighbours`) to attribute a change once between the sessions whose directories hold
it (`acp_tui.host.neighbours`).

The watcher is inotify read on the loop (`acp_tui.host.inotify`: nothing wakes up while nothing
changes); where inotify is missing or cannot start (its limit of instances reached), watchfiles'
watcher in a thread of its own. When the user's limit of inotify watches is reached
(`fs.inotify.max_user_watches`), the directory is polled by watchfiles instead (every
`POLL_FALLBACK_MS`; what the directories left unwatched hold is looked at once) and its
listeners are told once (`watch(..., on_notice=)`: "file watching incomplete: …"); if polling
cannot start either, they are told that changes there may be missed. Events are batched
on the loop: a batch is handed out `QUIET` seconds after its last event, or `LONGEST` seconds
after its first while events keep coming; `at` is when its first event was read
(`time.monotonic()`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from acp_tui.host.inotify import ADDED, Event, InotifyTree, available
from acp_tui.host.neighbours import Neighbours
from acp_tui.safe_text import safe_line
from acp_tui.signal import Signal
from acp_tui.tasks import Supervisor

log = logging.getLogger(__name__)

QUIET = 0.05
LONGEST = 0.4
POLL_STEP_MS = 50
POLL_WAIT_MS = 1000
"""The watchfiles fallback: how often its thread looks, and checks the stop flag."""
POLL_FALLBACK_MS = 2000
"""How often watchfiles walks a tree it polls (the inotify limit was reached there)."""
LIMIT = "the limit of inotify watches (fs.inotify.max_user_watches)"

Batch = tuple[float, set[Event]]
Listener = Callable[[float, set[Event]], None]


class Backend(Protocol):
    """A watcher of one tree (`InotifyTree`, `PolledTree`), handing lists of events to the
    callback it was made with."""

    def arm(self) -> None:
        """(blocking, in a worker thread) Start watching the tree."""
        ...

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start handing events to the callback, on `loop`."""
        ...

    def drain(self) -> None:
        """(on the loop) Hand the events already read, or waiting to be, to the callback now."""
        ...

    def close(self) -> None:
        """Stop watching (idempotent); nothing is handed out afterwards."""
        ...


class DirectoryWatch:
    """The watcher of one directory and its listeners."""

    def __init__(
        self,
        root: Path,
        backend: Callable[[Path, Callable[[list[Event]], None]], Backend],
        tasks: Supervisor,
    ):
        """`tasks`: the owner of its arming (the registry's)."""
        self.root = root
        self._tasks = tasks
        self.batches: Signal[Batch] = Signal(f"changes under {root}")
        self.users = 0
        self.listening: list[Watching] = []
        """Its listeners (moved to a watcher of a directory above when one comes)."""
        self._backend: Backend = backend(root, self._events)
        if isinstance(self._backend, InotifyTree):
            self._backend.on_full = self._limit_reached
        self.incomplete: str | None = None
        """What its listeners were told about its watching being incomplete, if anything."""
        self._started: asyncio.Task[None] | None = None
        self._pending: set[Event] = set()
        self._first_at = 0.0
        self._first_seen = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self.closed = False

    @property
    def idle(self) -> bool:
        """No events waiting to be handed out (and so no timer set)."""
        return self._timer is None and not self._pending

    async def start(self) -> None:
        """Arm the watcher (once; later callers wait for the first). The arming is the
        watcher's own task: a caller cancelled while it runs (a screen rebuilt) leaves it
        running for the others waiting on it."""
        if self._started is None:
            self._started = self._tasks.spawn(f"arm {self.root}", self._arm(), awaited=True)
        await asyncio.shield(self._started)

    async def _arm(self) -> None:
        try:
            await asyncio.to_thread(self._backend.arm)
        except OSError as error:  # e.g. inotify's limit of instances reached
            if not isinstance(self._backend, InotifyTree):
                raise
            log.warning("inotify failed under %s (%s): watchfiles instead", self.root, error)
            self._backend.close()
            self._backend = PolledTree(self.root, self._events)
            await asyncio.to_thread(self._backend.arm)
        if isinstance(self._backend, InotifyTree) and self._backend.full:
            await self._poll_instead()
        if self.closed:  # every caller left while it armed: give back what arming took
            self._backend.close()
        else:
            self._backend.attach(asyncio.get_running_loop())

    async def _poll_instead(self) -> None:
        """The limit of inotify watches was reached while arming: poll the tree instead (the
        inotify watches are given back), or keep what inotify watches and say what may be
        missed."""
        polled = PolledTree(self.root, self._events, polling=True)
        try:
            await asyncio.to_thread(polled.arm)
        except Exception as error:
            polled.close()
            self._missing(error)
            return
        if self.closed:
            polled.close()
            return
        self._backend.close()
        self._backend = polled
        self._polling()

    def _limit_reached(self) -> None:
        """(on the loop) The limit of inotify watches was reached after arming (a new
        directory): poll the tree instead once watchfiles is armed."""
        if self.closed:
            return
        loop = asyncio.get_running_loop()
        polled = PolledTree(self.root, self._events, polling=True)
        armed = loop.run_in_executor(None, polled.arm)
        armed.add_done_callback(lambda future: self._polled_armed(polled, future, loop))

    def _polled_armed(
        self, polled: PolledTree, future: asyncio.Future[None], loop: asyncio.AbstractEventLoop
    ) -> None:
        old = self._backend
        if self.closed or future.cancelled() or not isinstance(old, InotifyTree):
            polled.close()
            return
        error = future.exception()
        if error is not None:
            polled.close()
            self._missing(error)
            return
        self._backend = polled
        polled.attach(loop)
        old.close()
        if old.unwatched:  # what the directories inotify could not watch got meanwhile
            self._events([(ADDED, directory) for directory in old.unwatched])
        self._polling()

    def _polling(self) -> None:
        seconds = f"{POLL_FALLBACK_MS / 1000:g}"
        self._tell(
            f"file watching incomplete: {LIMIT} was reached under "
            f"{safe_line(str(self.root))}; it is now checked for changes every {seconds} s"
        )

    def _missing(self, error: BaseException) -> None:
        log.warning("could not poll %s either: %s", self.root, error)
        self._tell(
            f"file watching incomplete: {LIMIT} was reached under "
            f"{safe_line(str(self.root))}; changes the agent makes itself in the directories "
            "not watched may be missed"
        )

    def _tell(self, text: str) -> None:
        """Tell the listeners (once) that watching is incomplete."""
        if self.incomplete is None:
            self.incomplete = text
            for watching in list(self.listening):
                watching._tell(text)

    @property
    def started(self) -> bool:
        """Armed (and handing out events)."""
        return self._started is not None and self._started.done() and not self.closed

    def hand_out(self) -> None:
        """Hand out the events read, and those waiting for their batch, now (before the
        listeners move)."""
        self._backend.drain()
        if self._timer is not None:
            self._timer.cancel()
            self._flush()

    def close(self) -> None:
        """Stop the watcher; events not handed out yet are dropped."""
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._pending.clear()
        self._backend.close()

    def _events(self, events: list[Event]) -> None:
        """(on the loop) Events read: batch them."""
        if self.closed:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        if not self._pending:
            self._first_at = now
            self._first_seen = time.monotonic()
        self._pending.update(events)
        if self._timer is not None:
            self._timer.cancel()
        wait = QUIET if now - self._first_at < LONGEST else 0.0
        self._timer = loop.call_later(wait, self._flush)

    def _flush(self) -> None:
        self._timer = None
        batch, self._pending = self._pending, set()
        if batch and not self.closed:
            self.batches.emit((self._first_seen, batch))


class Watching:
    """One listener of a shared watcher; `close()` (idempotent) ends it."""

    def __init__(
        self,
        watch: DirectoryWatch,
        root: Path,
        neighbours: Neighbours,
        on_close: Callable[[DirectoryWatch], None],
        on_notice: Callable[[str], None] | None = None,
    ) -> None:
        self.watch = watch
        """The watcher it listens to (one of a directory above, once one took it over)."""
        self.root = root
        self.neighbours = neighbours
        self._listener: Listener | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._on_close = on_close
        self._on_notice = on_notice
        self._told = False
        self.closed = False

    def _listen(self, listener: Listener) -> None:
        self._listener = listener
        self._subscribe()
        if self.watch.incomplete is not None:
            self._tell(self.watch.incomplete)

    def _tell(self, text: str) -> None:
        """Its watcher's watching is incomplete: say so (once) to whoever asked to know."""
        if not self._told and self._listener is not None and self._on_notice is not None:
            self._told = True
            self._on_notice(text)

    def _subscribe(self) -> None:
        listener = self._listener
        assert listener is not None
        root = str(self.root)
        prefix = root.rstrip("/") + "/"
        whole = self.root == self.watch.root

        def mine(batch: Batch) -> None:
            at, events = batch
            if not whole:
                events = {e for e in events if e[1] == root or e[1].startswith(prefix)}
            if events:
                listener(at, events)

        self._unsubscribe = self.watch.batches.subscribe(mine)

    def _move(self, watch: DirectoryWatch) -> None:
        """Listen to `watch` (of a directory above) instead."""
        unsubscribe, self._unsubscribe = self._unsubscribe, None
        if unsubscribe is not None:
            unsubscribe()
        self.watch = watch
        if self._listener is not None:
            self._subscribe()
            if watch.incomplete is not None:
                self._tell(watch.incomplete)

    def close(self) -> None:
        """Stop listening (idempotent); the watcher stops with its last listener."""
        if self.closed:
            return
        self.closed = True
        unsubscribe, self._unsubscribe = self._unsubscribe, None
        if unsubscribe is not None:
            unsubscribe()
        if self in self.watch.listening:
            self.watch.listening.remove(self)
        self._on_close(self.watch)


class DirectoryWatchers:
    """The process's watchers, by directory (see the module)."""

    def __init__(self, *, use_inotify: bool | None = None) -> None:
        self.use_inotify = use_inotify
        """inotify or watchfiles (None: inotify where it works, decided at the first watch)."""
        self.neighbours = Neighbours()
        """Where the change monitors of every session meet (see `acp_tui.host.neighbours`)."""
        self._watches: dict[Path, DirectoryWatch] = {}
        self._tasks = Supervisor("directory watchers")

    @property
    def roots(self) -> list[Path]:
        """The directories watched now."""
        return list(self._watches)

    async def watch(
        self, root: Path, listener: Listener, *, on_notice: Callable[[str], None] | None = None
    ) -> Watching:
        """Listen to changes under `root` (resolved) until the answer is closed; `on_notice`
        is told once, on the loop, if watching it is incomplete (the inotify limit)."""
        root = await asyncio.to_thread(root.resolve)
        if self.use_inotify is None:
            self.use_inotify = await asyncio.to_thread(available)
        watch = self._shared(root)
        if watch is None:
            watch = DirectoryWatch(
                root, InotifyTree if self.use_inotify else PolledTree, self._tasks
            )
            self._watches[root] = watch
        watch.users += 1
        watching = Watching(watch, root, self.neighbours, self._release, on_notice)
        watch.listening.append(watching)
        try:
            await watch.start()
        except BaseException:
            watching.close()
            raise
        watching._listen(listener)
        self._merge()
        return watching

    def _merge(self) -> None:
        """Of two armed watchers, one of a directory below the other's: the lower one's
        listeners listen to the upper one from now on, and the lower one stops (after handing
        out what it read). Watchers still being armed are left until they are."""
        for below in list(self._watches.values()):
            above = next(
                (
                    watch
                    for watch in self._watches.values()
                    if watch is not below
                    and watch.started
                    and below.root.is_relative_to(watch.root)
                ),
                None,
            )
            if above is None or not below.started:
                continue
            below.hand_out()
            del self._watches[below.root]
            for watching in below.listening:
                watching._move(above)
                above.listening.append(watching)
            above.users += below.users
            below.listening.clear()
            below.users = 0
            below.close()

    def _shared(self, root: Path) -> DirectoryWatch | None:
        for watched, watch in self._watches.items():
            if root == watched or root.is_relative_to(watched):
                return watch
        return None

    def _release(self, watch: DirectoryWatch) -> None:
        watch.users -= 1
        if watch.users <= 0:
            if self._watches.get(watch.root) is watch:
                del self._watches[watch.root]
            watch.close()


class PolledTree:
    """watchfiles' watcher in a thread (where inotify is missing): it looks every
    `POLL_STEP_MS` while events come and checks the stop flag every `POLL_WAIT_MS`."""

    def __init__(
        self, root: Path, on_events: Callable[[list[Event]], None], *, polling: bool = False
    ) -> None:
        self.root = root
        self.on_events = on_events
        self.polling = polling
        """Walk the tree every `POLL_FALLBACK_MS` (no inotify: its limit was reached)."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def arm(self) -> None:
        """(blocking) watchfiles' watcher on the tree (imported here, in the worker thread)."""
        from watchfiles._rust_notify import RustNotify

        delay = POLL_FALLBACK_MS if self.polling else 300
        self._notify = RustNotify([str(self.root)], False, self.polling, delay, True, True)

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start the thread that waits for events and hands them to `loop`."""
        self._loop = loop
        self._thread = threading.Thread(target=self._run, name="acp-tui-watch", daemon=True)
        self._thread.start()

    def drain(self) -> None:
        """Nothing to do: the thread hands out what it found as soon as it has it."""

    def close(self) -> None:
        """Stop the thread (it sees the flag within `POLL_STEP_MS`) and the watcher."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join()
        if getattr(self, "_notify", None) is not None:
            self._notify.close()

    def _run(self) -> None:
        loop = self._loop
        assert loop is not None
        while not self._stop.is_set():
            try:
                result = self._notify.watch(POLL_STEP_MS, POLL_STEP_MS, POLL_WAIT_MS, self._stop)
            except Exception:  # the watcher broke (e.g. the directory went away)
                log.exception("the watcher of %s stopped", self.root)
                return
            if isinstance(result, set) and result:
                with contextlib.suppress(RuntimeError):  # the loop closed
                    loop.call_soon_threadsafe(self.on_events, list(result))

"""The bound on an agent's start: `initialize` has its own warning (the connector's stall); once
it is answered, past `start_timeout` seconds with no session open (`session/new`, load or
resume unanswered), the start is a stall (the same `AgentCrash`), said once, with the agent's
stderr; the answer is still awaited. The user may wait on (the bound starts again), restart or
quit.

An agent that answered `initialize` and never `session/new` (a refused flag on its stderr) showed
"● starting" forever: nothing timed the step after `initialize`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from acp_tui.client.events import AgentCrash, SessionState
from acp_tui.signal import Signal
from acp_tui.tasks import Supervisor


class StartWatch:
    """Times one start (or restart) of a session until it leaves "starting"."""

    def __init__(
        self,
        tasks: Supervisor,
        *,
        seconds: Callable[[], float],
        state: Callable[[], SessionState],
        state_changed: Signal[SessionState],
        stalled: Signal[AgentCrash | None],
        stderr_tail: Callable[[int], list[str]],
        step: Callable[[], str],
    ) -> None:
        self._tasks = tasks
        self._seconds = seconds
        self._state = state
        self._state_changed = state_changed
        self._stalled = stalled
        self._stderr_tail = stderr_tail
        self._step = step
        self.stall: AgentCrash | None = None
        """Set while the start has taken longer than the bound (and the user has not chosen to
        wait on)."""
        self.started_at: float | None = None
        """When this start began (`time.monotonic`), None once the session left "starting"."""
        self._task: asyncio.Task[None] | None = None

    def arm(self) -> None:
        """A start begins now (a stall of an earlier start is cleared)."""
        self.started_at = time.monotonic()
        self._clear()

    def opening(self) -> None:
        """`initialize` was answered and the session is being opened: bound that."""
        if self.started_at is not None:
            self._spawn()

    def keep_waiting(self) -> bool:
        """The user waits on: the stall is cleared and the bound starts again. False when there
        was no stall."""
        if self.stall is None:
            return False
        self._clear()
        self._spawn()
        return True

    def settled(self) -> None:
        """The session left "starting" (open, failed, crashed, closed): stop timing it."""
        self.started_at = None
        task, self._task = self._task, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        self._clear()

    def _spawn(self) -> None:
        if self._task is not None:
            self._task.cancel()
        self._task = self._tasks.spawn("start watch", self._watch(self._seconds()))

    def _clear(self) -> None:
        if self.stall is not None:
            self.stall = None
            self._stalled.emit(None)

    async def _watch(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
        while self._state() is SessionState.AUTHENTICATING:  # a login question waits on the user
            await self._next_change()
        if self._state() is not SessionState.STARTING:
            return
        waited = time.monotonic() - (self.started_at or time.monotonic())
        self.stall = AgentCrash(
            description=f"is not answering: no session after {waited:.0f} s",
            stderr_tail=self._stderr_tail(12),
            during=self._step(),  # what it was asked last: initialize, session/new, ...
        )
        self._stalled.emit(self.stall)

    async def _next_change(self) -> None:
        """Until the session's state changes."""
        changed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake(_value: object) -> None:
            if not changed.done():
                changed.set_result(None)

        unsubscribe = self._state_changed.subscribe(wake)
        try:
            await changed
        finally:
            unsubscribe()

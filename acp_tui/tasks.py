"""`Supervisor`: the owner of background tasks (no bare `asyncio.create_task` in client/host).

Layer-neutral (uses only `acp_tui.signal`). A supervisor holds a strong reference to every task it
spawned until the task ends (the event loop keeps only weak ones), cancels what is left on
`close()` and waits for it, and never lets a failure pass unseen: a task that ends with an
exception nobody awaits is logged with its traceback and reported on `failed`.

A task whose result its spawner awaits (`awaited=True`) reports its exception to that awaiter
instead; the supervisor still owns its cancellation.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from acp_tui.signal import Signal

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True)
class TaskFailure:
    """A supervised task ended with an exception nobody was waiting for."""

    task: str
    error: BaseException

    def describe(self) -> str:
        return f"{self.task} failed: {type(self.error).__name__}: {self.error}"


class Supervisor:
    """A set of named tasks: spawned, kept, cancelled on `close`, failures reported."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.failed: Signal[TaskFailure] = Signal(f"{name} task failure")
        self._tasks: set[asyncio.Task[Any]] = set()
        self._awaited: set[asyncio.Task[Any]] = set()

    def spawn(
        self, name: str, coro: Coroutine[Any, Any, T], *, awaited: bool = False
    ) -> asyncio.Task[T]:
        """Run `coro` as a task named `<supervisor>:<name>`. With `awaited`, the caller awaits
        the task and handles its exception; otherwise an exception is logged and reported."""
        task = asyncio.get_running_loop().create_task(coro, name=f"{self.name}:{name}")
        self._tasks.add(task)
        if awaited:
            self._awaited.add(task)
        task.add_done_callback(self._finished)
        return task

    @property
    def running(self) -> int:
        """How many spawned tasks have not ended yet."""
        return len(self._tasks)

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        awaited = task in self._awaited
        self._awaited.discard(task)
        if task.cancelled():
            return
        error = task.exception()  # retrieved here: no "exception was never retrieved"
        if error is None or awaited:
            return
        trace = (type(error), error, error.__traceback__)
        log.error("task %s failed", task.get_name(), exc_info=trace)
        self.failed.emit(TaskFailure(task.get_name(), error))

    async def close(self) -> None:
        """Cancel every task still running (not the one calling) and wait until they end."""
        current = asyncio.current_task()
        while True:
            left = [task for task in self._tasks if task is not current and not task.done()]
            if not left:
                return
            for task in left:
                task.cancel()
            await asyncio.wait(left)

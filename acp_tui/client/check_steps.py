"""The steps of `acp-tui check`, each bounded and told as it goes.

A step is a request acp-tui sends the agent (`initialize`, `authenticate`, `session/new`,
`session/set_mode`, `session/prompt`): it is told when it goes out ("initialize… ") and when its
answer comes ("1.2 s"). Each must be answered within its bound (the prompt has its own, longer
one), and the time between two steps is bounded the same way (the agent's start, a login that
sends nothing), so that a check never waits silently for an agent that will not answer: past the
bound `StepClock.bound` stops the work and raises `StepTimeout` naming what was awaited.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from acp_tui.protocol.methods import SESSION_PROMPT
from acp_tui.protocol.traffic import NOT_PARSED, TrafficEvent

T = TypeVar("T")

BETWEEN_STEPS = "the agent (between two steps)"


@dataclass(frozen=True)
class StepLimits:
    """How long each step may take, in seconds."""

    step: float = 60.0
    """Each step but the prompt, and the time between two steps."""
    prompt: float = 300.0
    """`session/prompt`: the whole turn."""

    def of(self, method: str) -> float:
        """The bound of the step `method`."""
        return self.prompt if method == SESSION_PROMPT else self.step


class StepTimeout(Exception):
    """A step was not answered within its bound."""

    def __init__(self, what: str, seconds: float) -> None:
        super().__init__(f"{what}: no answer after {seconds:g} s")
        self.what = what
        self.seconds = seconds


@dataclass
class _Waiting:
    method: str
    started: float


class StepClock:
    """Times the requests a check sends (feed it the session's traffic with `on_traffic`),
    tells each one as it goes through `say` (text without a newline unless it ends a line), and
    bounds the work given to `bound` by the step it waits for."""

    def __init__(
        self,
        limits: StepLimits,
        say: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limits = limits
        self._say = say or (lambda _text: None)
        self._clock = clock
        self._waiting: dict[str, _Waiting] = {}
        self._since = clock()
        """When the last step began or ended (or the clock was made)."""
        self._open_line: str | None = None
        """The request key whose "method… " ends the text said so far, waiting for its time."""
        self._scope: tuple[asyncio.Timeout, asyncio.AbstractEventLoop] | None = None
        """The timeout scope of the running `bound`, and its loop."""

    def on_traffic(self, event: TrafficEvent) -> None:
        """A frame either way: a request of ours starts a step, its answer ends it."""
        frame: Any = event.frame
        if frame is NOT_PARSED:
            try:
                frame = json.loads(event.raw)
            except (ValueError, RecursionError):
                return
        if not isinstance(frame, dict) or "id" not in frame:
            return
        key = json.dumps(frame["id"])
        method = frame.get("method")
        if event.direction == "out" and isinstance(method, str):
            self._start(key, method)
        elif event.direction == "in" and method is None and key in self._waiting:
            error = frame.get("error")
            self._finish(key, "error" if error is not None else None)

    def _start(self, key: str, method: str) -> None:
        now = self._clock()
        self._waiting[key] = _Waiting(method, now)
        self._since = now
        self._end_open_line()
        self._say(f"{method}… ")
        self._open_line = key
        self._move_deadline()

    def _finish(self, key: str, outcome: str | None) -> None:
        step = self._waiting.pop(key)
        now = self._clock()
        self._since = now
        told = f"{now - step.started:.1f} s" + (f" ({outcome})" if outcome else "")
        if self._open_line == key:
            self._say(told + "\n")
            self._open_line = None
        else:
            self._end_open_line()
            self._say(f"{step.method}: {told}\n")
        self._move_deadline()

    def _end_open_line(self) -> None:
        if self._open_line is not None:
            self._say("\n")
            self._open_line = None

    def timed_out(self, error: StepTimeout) -> None:
        """Tell the step that ran out of time (ends the line it is on)."""
        if self._open_line is not None:
            self._say(f"no answer after {error.seconds:g} s\n")
            self._open_line = None
        else:
            self._say(f"{error}\n")

    def awaited(self) -> tuple[str, float, float]:
        """What the check waits for now, its bound, and when that runs out (clock time)."""
        if self._waiting:
            oldest = min(self._waiting.values(), key=lambda step: step.started)
            limit = self.limits.of(oldest.method)
            return oldest.method, limit, oldest.started + limit
        return BETWEEN_STEPS, self.limits.step, self._since + self.limits.step

    async def bound(self, work: Awaitable[T]) -> T:
        """Await `work`, stopped (cancelled, then `StepTimeout`) once the step it waits for
        outlives its bound. No task of its own: one timeout scope, moved as steps go."""
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(None) as scope:
                self._scope = (scope, loop)
                self._move_deadline()
                return await work
        except TimeoutError:
            if not scope.expired():
                raise  # not ours: the work's own
            what, limit, _ = self.awaited()
            raise StepTimeout(what, limit) from None
        finally:
            self._scope = None

    def _move_deadline(self) -> None:
        """Set the bound's scope to end when what is awaited now runs out of time."""
        if self._scope is None:
            return
        scope, loop = self._scope
        _, _, deadline = self.awaited()
        scope.reschedule(loop.time() + max(0.0, deadline - self._clock()))

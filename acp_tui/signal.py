"""`Signal[T]`: the one observer list of acp-tui, with one error policy.

Layer-neutral (imports nothing of acp-tui): the session, the host services, the client core and
the UI all use it. `subscribe(listener)` returns a function that unsubscribes; `emit(value)`
calls every listener subscribed when the emit started, in subscription order, synchronously.

A listener that raises is never silently swallowed and never stops the others: the exception is
logged with its traceback, the emit goes on to the next listener, and the failure is handed to
the reporter set with `set_failure_reporter` (the app shows it on screen) once per signal,
listener and exception type, so a listener failing on every chunk does not flood the screen.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

Unsubscribe = Callable[[], None]


@dataclass(frozen=True)
class ListenerFailure:
    """A listener raised while a signal was emitted."""

    signal: str
    listener: str
    error: BaseException

    def describe(self) -> str:
        return f"{self.listener} failed on {self.signal}: {type(self.error).__name__}: {self.error}"


FailureReporter = Callable[[ListenerFailure], None]

# Process-wide on purpose, and safe to share between sessions: a listener failing is a bug of
# acp-tui's own code, not of one session or agent, and the one app of the process shows it (all
# its sessions' signals report to it). The app sets the reporter when it mounts and gives the
# previous one back when it unmounts; a new reporter starts with an empty set of reported
# failures. Nothing of a session is kept here.
_reporter: FailureReporter | None = None
_reported: set[tuple[str, str, type[BaseException]]] = set()


def set_failure_reporter(reporter: FailureReporter | None) -> FailureReporter | None:
    """Show listener failures with `reporter` (None: only log them); returns the previous one.

    Each (signal, listener, exception type) is reported once per reporter; logging is
    unconditional."""
    global _reporter
    previous, _reporter = _reporter, reporter
    _reported.clear()
    return previous


def report_failure(failure: ListenerFailure) -> None:
    """Log `failure` and hand it to the reporter once per (signal, listener, error type)."""
    log.error(
        "listener %s of %s failed",
        failure.listener,
        failure.signal,
        exc_info=(type(failure.error), failure.error, failure.error.__traceback__),
    )
    key = (failure.signal, failure.listener, type(failure.error))
    reporter = _reporter
    if reporter is None or key in _reported:
        return
    _reported.add(key)
    try:
        reporter(failure)
    except Exception:
        log.exception("the listener-failure reporter failed")


def _label(listener: Callable[..., object]) -> str:
    name = getattr(listener, "__qualname__", None) or type(listener).__qualname__
    module = getattr(listener, "__module__", None)
    return f"{module}.{name}" if module else str(name)


class Signal(Generic[T]):
    """Listeners called with each emitted value; one raising is logged, reported, skipped."""

    __slots__ = ("_listeners", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        """What the signal is, for failure reports ("thread change", "terminal output")."""
        self._listeners: tuple[Callable[[T], object], ...] = ()

    def subscribe(self, listener: Callable[[T], object]) -> Unsubscribe:
        """Call `listener(value)` on every emit from now on; returns a function that
        unsubscribes (calling it twice is harmless)."""
        self._listeners = (*self._listeners, listener)

        def unsubscribe() -> None:
            self._listeners = tuple(cb for cb in self._listeners if cb is not listener)

        return unsubscribe

    def emit(self, value: T) -> None:
        """Call every listener with `value`; a listener's exception does not reach the caller."""
        for listener in self._listeners:  # a tuple: (un)subscribing during emit is safe
            try:
                listener(value)
            except Exception as exc:
                report_failure(ListenerFailure(self.name, _label(listener), exc))

    def clear(self) -> None:
        """Forget every listener: what is emitted from now on is heard by nobody (their
        unsubscribe functions stay harmless)."""
        self._listeners = ()

    @property
    def listener_count(self) -> int:
        return len(self._listeners)

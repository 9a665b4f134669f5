"""Plain observer lists and the events the client core reports to whoever shows it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Generic, TypeVar

T = TypeVar("T")


class Signal(Generic[T]):
    """A list of callbacks; `emit` calls each with the value. Errors in one do not stop others."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[[T], None]] = []

    def subscribe(self, callback: Callable[[T], None]) -> Callable[[], None]:
        self._callbacks.append(callback)

        def unsubscribe() -> None:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

        return unsubscribe

    def emit(self, value: T) -> None:
        for callback in list(self._callbacks):
            callback(value)


class SessionState(StrEnum):
    STARTING = "starting"
    AUTHENTICATING = "authenticating"
    READY = "ready"
    RUNNING = "running"
    CRASHED = "crashed"
    FAILED = "failed"
    CLOSED = "closed"


@dataclass(frozen=True)
class AgentCrash:
    """The agent process ended while we still needed it."""

    description: str  # e.g. "exited with code 3", "killed by SIGKILL"
    stderr_tail: list[str]
    during: str  # what we were doing: "initialize", "prompt", ... or "idle" (between turns)
    returncode: int | None = None


@dataclass(frozen=True)
class Notice:
    text: str
    severity: str = "information"  # information | warning | error


@dataclass
class QueuedPrompt:
    id: int
    text: str
    sent: bool = False
    """v2: already sent to the agent, which takes it when it decides (v1 sends at turn end)."""

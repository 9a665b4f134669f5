"""The events the client core reports to whoever shows it (observed through `acp_tui.signal`)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


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

"""Answers about earlier sessions: `session/list`, `session/resume` and the unstable
`session/fork` (whose answer is a new session's, id included)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from ._base import AcpModel, DefaultOnError, OptDisplayStr, OptStr, SkipInvalidItems
from .agent_methods import LoadSessionResponse, NewSessionResponse
from .session import SessionConfigOption, SessionModeState

OptConfigOptions = Annotated[list[SessionConfigOption] | None, SkipInvalidItems, DefaultOnError]


class SessionInfo(AcpModel):
    """One session of a `session/list` answer."""

    session_id: str
    cwd: OptStr = None
    title: OptDisplayStr = None
    updated_at: OptStr = None
    archived: Annotated[bool | None, DefaultOnError] = None
    """Unstable: the session is archived (hidden from the default list)."""
    additional_directories: Annotated[list[str], SkipInvalidItems, DefaultOnError] = Field(
        default_factory=list
    )


class ListSessionsResponse(AcpModel):
    """The agent's `session/list` answer: a page of sessions and the cursor of the next."""

    sessions: Annotated[list[SessionInfo], SkipInvalidItems, DefaultOnError] = Field(
        default_factory=list
    )
    next_cursor: OptStr = None


class ResumeSessionResponse(AcpModel):
    """The agent's `session/resume` answer: modes and config options (no replay in v1)."""

    modes: Annotated[SessionModeState | None, DefaultOnError] = None
    config_options: OptConfigOptions = None


class ForkSessionResponse(AcpModel):
    """The agent's unstable `session/fork` answer: the new session's id, modes and options."""

    session_id: str
    modes: Annotated[SessionModeState | None, DefaultOnError] = None
    config_options: OptConfigOptions = None


SessionSetup = (
    NewSessionResponse | LoadSessionResponse | ResumeSessionResponse | ForkSessionResponse
)
"""An answer that sets a session up: its modes and config options (and, kept as an extra
field, the unstable `models`)."""


__all__ = [
    "ForkSessionResponse",
    "ListSessionsResponse",
    "ResumeSessionResponse",
    "SessionInfo",
    "SessionSetup",
]

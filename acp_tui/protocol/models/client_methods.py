"""Methods the agent calls on the client: permission requests, file system, terminals."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError

from ._base import (
    AcpModel,
    DefaultOnError,
    DisplayStr,
    OptStr,
    OptUInt,
    SkipInvalidItems,
    StrList,
    parse_with,
)
from .agent_methods import EnvVariable
from .tools import ToolCallUpdate

PERMISSION_OPTION_KINDS = ("allow_once", "allow_always", "reject_once", "reject_always")

# ---- session/request_permission -----------------------------------------------------------------


class PermissionOption(AcpModel):
    """A choice offered to the user; `kind` is one of `PERMISSION_OPTION_KINDS` or newer."""

    option_id: str
    name: DisplayStr
    kind: str


class RequestPermissionRequest(AcpModel):
    session_id: str
    tool_call: ToolCallUpdate
    options: list[PermissionOption]


class SelectedPermissionOutcome(AcpModel):
    outcome: Literal["selected"] = "selected"
    option_id: str


class CancelledPermissionOutcome(AcpModel):
    outcome: Literal["cancelled"] = "cancelled"


def _parse_outcome(raw: Any) -> SelectedPermissionOutcome | CancelledPermissionOutcome:
    if isinstance(raw, SelectedPermissionOutcome | CancelledPermissionOutcome):
        return raw
    outcome = raw.get("outcome") if isinstance(raw, dict) else None
    try:
        if outcome == "selected":
            return SelectedPermissionOutcome.model_validate(raw)
        if outcome == "cancelled":
            return CancelledPermissionOutcome.model_validate(raw)
    except ValidationError as error:
        raise ValueError(f"invalid permission outcome: {error}") from None
    raise ValueError("permission outcome must be 'selected' or 'cancelled'")


RequestPermissionOutcome = Annotated[
    SelectedPermissionOutcome | CancelledPermissionOutcome, parse_with(_parse_outcome)
]


class RequestPermissionResponse(AcpModel):
    outcome: RequestPermissionOutcome

    @classmethod
    def selected(cls, option_id: str) -> RequestPermissionResponse:
        return cls(outcome=SelectedPermissionOutcome(option_id=option_id))

    @classmethod
    def cancelled(cls) -> RequestPermissionResponse:
        return cls(outcome=CancelledPermissionOutcome())


# ---- fs/* ----------------------------------------------------------------------------------------


class ReadTextFileRequest(AcpModel):
    session_id: str
    path: str
    line: OptUInt = None
    """1-based line to start reading from."""
    limit: OptUInt = None
    """Maximum number of lines to read."""


class ReadTextFileResponse(AcpModel):
    content: str


class WriteTextFileRequest(AcpModel):
    session_id: str
    path: str
    content: str


class WriteTextFileResponse(AcpModel):
    pass


# ---- terminal/* ----------------------------------------------------------------------------------


class CreateTerminalRequest(AcpModel):
    session_id: str
    command: str
    args: StrList = Field(default_factory=list)
    env: Annotated[list[EnvVariable], SkipInvalidItems, DefaultOnError] = Field(
        default_factory=list
    )
    cwd: OptStr = None
    output_byte_limit: OptUInt = None


class CreateTerminalResponse(AcpModel):
    terminal_id: str


class TerminalRequest(AcpModel):
    """Params shared by terminal/output, release, wait_for_exit and kill."""

    session_id: str
    terminal_id: str


class TerminalOutputRequest(TerminalRequest):
    pass


class ReleaseTerminalRequest(TerminalRequest):
    pass


class WaitForTerminalExitRequest(TerminalRequest):
    pass


class KillTerminalRequest(TerminalRequest):
    pass


class TerminalExitStatus(AcpModel):
    exit_code: OptUInt = None
    signal: OptStr = None


class TerminalOutputResponse(AcpModel):
    output: str
    truncated: bool
    exit_status: Annotated[TerminalExitStatus | None, DefaultOnError] = None


class ReleaseTerminalResponse(AcpModel):
    pass


class WaitForTerminalExitResponse(AcpModel):
    exit_code: OptUInt = None
    signal: OptStr = None


class KillTerminalResponse(AcpModel):
    pass


__all__ = [
    "PERMISSION_OPTION_KINDS",
    "CancelledPermissionOutcome",
    "CreateTerminalRequest",
    "CreateTerminalResponse",
    "KillTerminalRequest",
    "KillTerminalResponse",
    "PermissionOption",
    "ReadTextFileRequest",
    "ReadTextFileResponse",
    "ReleaseTerminalRequest",
    "ReleaseTerminalResponse",
    "RequestPermissionOutcome",
    "RequestPermissionRequest",
    "RequestPermissionResponse",
    "SelectedPermissionOutcome",
    "TerminalExitStatus",
    "TerminalOutputRequest",
    "TerminalOutputResponse",
    "TerminalRequest",
    "WaitForTerminalExitRequest",
    "WaitForTerminalExitResponse",
    "WriteTextFileRequest",
    "WriteTextFileResponse",
]

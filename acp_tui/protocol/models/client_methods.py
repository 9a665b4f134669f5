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
    """Params of `session/request_permission`: the tool call asking and the options offered."""

    session_id: str
    tool_call: ToolCallUpdate
    options: list[PermissionOption]


class SelectedPermissionOutcome(AcpModel):
    """The user chose an option."""

    outcome: Literal["selected"] = "selected"
    option_id: str


class CancelledPermissionOutcome(AcpModel):
    """The request was cancelled (the turn was cancelled, or nobody answered)."""

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
    """The client's answer to `session/request_permission` (`protocol/permission_outcome.py` reads
    one back)."""

    outcome: RequestPermissionOutcome

    @classmethod
    def selected(cls, option_id: str) -> RequestPermissionResponse:
        """The answer choosing `option_id`."""
        return cls(outcome=SelectedPermissionOutcome(option_id=option_id))

    @classmethod
    def cancelled(cls) -> RequestPermissionResponse:
        """The answer for a cancelled request."""
        return cls(outcome=CancelledPermissionOutcome())


# ---- fs/* ----------------------------------------------------------------------------------------


class ReadTextFileRequest(AcpModel):
    """Params of `fs/read_text_file`: an absolute path, optionally a range of lines."""

    session_id: str
    path: str
    line: OptUInt = None
    """1-based line to start reading from."""
    limit: OptUInt = None
    """Maximum number of lines to read."""


class ReadTextFileResponse(AcpModel):
    """The answer to `fs/read_text_file`: the text read."""

    content: str


class WriteTextFileRequest(AcpModel):
    """Params of `fs/write_text_file`: an absolute path and the whole new content."""

    session_id: str
    path: str
    content: str


class WriteTextFileResponse(AcpModel):
    """The (empty) answer to `fs/write_text_file`."""


# ---- terminal/* ----------------------------------------------------------------------------------


class CreateTerminalRequest(AcpModel):
    """Params of `terminal/create`: the command, its arguments, environment, directory and output
    limit."""

    session_id: str
    command: str
    args: StrList = Field(default_factory=list)
    env: Annotated[list[EnvVariable], SkipInvalidItems, DefaultOnError] = Field(
        default_factory=list
    )
    cwd: OptStr = None
    output_byte_limit: OptUInt = None


class CreateTerminalResponse(AcpModel):
    """The answer to `terminal/create`: the id the agent uses for the terminal from now on."""

    terminal_id: str


class TerminalRequest(AcpModel):
    """Params shared by terminal/output, release, wait_for_exit and kill."""

    session_id: str
    terminal_id: str


class TerminalOutputRequest(TerminalRequest):
    """Params of `terminal/output`."""


class ReleaseTerminalRequest(TerminalRequest):
    """Params of `terminal/release` (kill the command if still running, forget the terminal)."""


class WaitForTerminalExitRequest(TerminalRequest):
    """Params of `terminal/wait_for_exit`."""


class KillTerminalRequest(TerminalRequest):
    """Params of `terminal/kill` (the terminal stays readable)."""


class TerminalExitStatus(AcpModel):
    """How a terminal's command ended: its exit code, or the signal that killed it."""

    exit_code: OptUInt = None
    signal: OptStr = None


class TerminalOutputResponse(AcpModel):
    """The answer to `terminal/output`: the output kept, whether older output was dropped, and the
    exit if it ended."""

    output: str
    truncated: bool
    exit_status: Annotated[TerminalExitStatus | None, DefaultOnError] = None


class ReleaseTerminalResponse(AcpModel):
    """The (empty) answer to `terminal/release`."""


class WaitForTerminalExitResponse(AcpModel):
    """The answer to `terminal/wait_for_exit`: the exit code or signal."""

    exit_code: OptUInt = None
    signal: OptStr = None


class KillTerminalResponse(AcpModel):
    """The (empty) answer to `terminal/kill`."""


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

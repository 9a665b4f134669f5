"""JSON-RPC error codes and the exception that carries one across the wire."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import ValidationError

from acp_tui.safe_text import safe_text

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
REQUEST_CANCELLED = -32800
AUTH_REQUIRED = -32000
RESOURCE_NOT_FOUND = -32002

MAX_SHOWN_CHARS = 500
"""How much of an error's message, and of its reason, `RpcError.describe` shows."""


class RpcError(Exception):
    """An error answer: raised by a handler to answer with it, raised to a caller who got one."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_wire(self) -> dict[str, Any]:
        """The JSON-RPC `error` object for an answer."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error

    @classmethod
    def from_wire(cls, error: Any) -> RpcError:
        """Read the agent's `error` object; a malformed one becomes an internal error that quotes
        it."""
        if not isinstance(error, dict):
            return cls(INTERNAL_ERROR, f"malformed error: {error!r}")
        code = error.get("code")
        message = error.get("message")
        return cls(
            code if isinstance(code, int) else INTERNAL_ERROR,
            message if isinstance(message, str) else "unknown error",
            error.get("data"),
        )

    @property
    def reason(self) -> str | None:
        """Why, when the error's `data` says more than its message: `data.details`,
        `data.message`, or `data` itself when it is a string (shortened, not made safe)."""
        data = self.data
        if isinstance(data, dict):
            data = next(
                (data[key] for key in ("details", "message") if isinstance(data.get(key), str)),
                None,
            )
        if not isinstance(data, str) or not data.strip():
            return None
        reason = data.strip()
        return None if reason == self.message.strip() else _shortened(reason)

    def describe(self) -> str:
        """The error for a person, safe to display: the message and, if given, the reason.

        Gemini answers a refused mode switch with `{"code": -32603, "message": "Internal
        error", "data": {"details": "Cannot enable … in an untrusted folder."}}`: this gives
        "Internal error: Cannot enable … in an untrusted folder.".
        """
        message = _shortened(self.message.strip()) or f"error {self.code}"
        reason = self.reason
        return safe_text(f"{message}: {reason}" if reason else message)

    def __repr__(self) -> str:
        return f"RpcError({self.code}, {self.message!r}, {self.data!r})"


def _shortened(text: str) -> str:
    if len(text) <= MAX_SHOWN_CHARS:
        return text
    return text[: MAX_SHOWN_CHARS - 1] + "\u2026"


def invalid_params(message: str, data: Any = None) -> RpcError:
    """A -32602 answer with a message of our own (params the models accept but the client cannot
    use)."""
    return RpcError(INVALID_PARAMS, message, data)


def invalid_params_from(error: ValidationError) -> RpcError:
    """The -32602 answer for params their model rejected: the problems, without the input."""
    details = json.loads(error.json(include_url=False, include_input=False))
    return RpcError(INVALID_PARAMS, "Invalid params", details)


class ConnectionClosed(Exception):
    """The connection is closed: the request will never be answered, or cannot be sent."""


class MalformedAnswer(RpcError):
    """The agent answered a request with a result its response model rejects (raised by
    `AgentApi`, handled wherever the caller handles the agent's errors)."""

    def __init__(self, method: str, problem: str) -> None:
        super().__init__(INTERNAL_ERROR, f"the agent's {method} answer {problem}")
        self.method = method

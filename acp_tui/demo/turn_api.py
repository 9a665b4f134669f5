"""What the tour's steps see of a session and of the turn that runs them, and what a turn raises.

`turn.py` runs the tour (v1 updates) and hands the v2 steps (`v2.py`) the running `Turn`; those
steps are typed against `TurnApi` here, so `v2.py` never imports `turn.py` back. Stdlib only.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, Protocol

from acp_tui.demo import content

JsonObject = dict[str, Any]


@dataclass
class Session:
    """One demo session: its directory, mode, conversation and running turn."""

    id: str
    cwd: str
    mode: str = content.DEFAULT_MODE
    history: list[tuple[str, str]] = field(default_factory=list)  # ("user" | "agent", text)
    turn: asyncio.Task[str] | None = None
    edits_allowed: bool | None = None  # remembered "allow always" (True) / "reject always"
    tool_ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))


class Spawner(Protocol):
    """Runs work that outlives the turn (v2's background task)."""

    def spawn(self, coroutine: Awaitable[Any]) -> Any: ...


class TurnApi(Protocol):
    """What a step reads and calls on the running turn (`turn.Turn` implements it)."""

    @property
    def session(self) -> Session: ...
    @property
    def peer(self) -> Spawner: ...
    @property
    def open_tool_calls(self) -> dict[str, str]: ...

    async def send(self, update: JsonObject) -> None: ...
    async def pause(self, seconds: float = ...) -> None: ...
    def path(self, relative: str) -> str: ...
    async def tool_start(self, title: str, kind: str, status: str, **fields: Any) -> str: ...
    async def tool_update(self, tool_call_id: str, status: str, **fields: Any) -> None: ...
    async def tool_failed(self, tool_call_id: str, message: str) -> None: ...


class RpcError(Exception):
    """A JSON-RPC error: raised by handlers, and by the client's error answers to our requests."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_json(self) -> JsonObject:
        """The error as a JSON-RPC error object."""
        error: JsonObject = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


class TurnCancelled(Exception):
    """The client answered a permission request with "cancelled": the turn is over."""


def text_block(text: str) -> JsonObject:
    """A text content block."""
    return {"type": "text", "text": text}


def tool_text(text: str) -> list[JsonObject]:
    """A tool call's content holding one text block."""
    return [{"type": "content", "content": text_block(text)}]


def has_capability(capabilities: Any, *keys: str) -> bool:
    """Whether the client's capabilities object has the nested key path `keys` set to `true`."""
    for key in keys:
        if not isinstance(capabilities, dict):
            return False
        capabilities = capabilities.get(key)
    return capabilities is True

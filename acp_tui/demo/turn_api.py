"""What the tour's steps see of a session and of the turn that runs them.

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

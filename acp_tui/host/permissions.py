"""Permission requests from the agent: queued in order, answered by the user (or by a rule).

`PermissionBroker.request(params)` is the handler of `session/request_permission`. It turns the
request into a `PendingPermission` carrying a future, hands it to the UI (through the `present`
callback) and awaits the answer. `cancel_all()` answers every pending one with `cancelled`.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from acp_tui.protocol.errors import invalid_params

CANCELLED: dict[str, Any] = {"outcome": {"outcome": "cancelled"}}


@dataclass(frozen=True)
class PermissionOption:
    option_id: str
    name: str
    kind: str  # allow_once | allow_always | reject_once | reject_always | (unknown kinds kept)


@dataclass
class PendingPermission:
    id: int
    session_id: str
    tool_call: dict[str, Any]
    options: list[PermissionOption]
    future: asyncio.Future[dict[str, Any]] = field(repr=False)
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def tool_call_id(self) -> str | None:
        value = self.tool_call.get("toolCallId")
        return value if isinstance(value, str) else None

    @property
    def done(self) -> bool:
        return self.future.done()

    def select(self, option_id: str) -> None:
        if not self.future.done():
            self.future.set_result({"outcome": {"outcome": "selected", "optionId": option_id}})

    def cancel(self) -> None:
        if not self.future.done():
            self.future.set_result(dict(CANCELLED))

    def option_of_kind(self, kind: str) -> PermissionOption | None:
        return next((o for o in self.options if o.kind == kind), None)


def parse_permission_request(params: Any) -> tuple[str, dict[str, Any], list[PermissionOption]]:
    if not isinstance(params, dict):
        raise invalid_params("session/request_permission params must be an object")
    session_id = params.get("sessionId")
    tool_call = params.get("toolCall")
    options = params.get("options")
    if not isinstance(session_id, str):
        raise invalid_params("sessionId must be a string")
    if not isinstance(tool_call, dict) or not isinstance(tool_call.get("toolCallId"), str):
        raise invalid_params("toolCall must be an object with a toolCallId")
    if not isinstance(options, list):
        raise invalid_params("options must be a list")
    parsed: list[PermissionOption] = []
    for option in options:
        if (
            isinstance(option, dict)
            and isinstance(option.get("optionId"), str)
            and isinstance(option.get("name"), str)
        ):
            kind = option.get("kind")
            parsed.append(PermissionOption(option["optionId"], option["name"], str(kind)))
    return session_id, tool_call, parsed


Presenter = Callable[[PendingPermission], None]
AutoAnswer = Callable[[PendingPermission], str | None]


class PermissionBroker:
    """Holds pending permission requests in arrival order until each is answered."""

    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self.pending: list[PendingPermission] = []
        self._presenters: list[Presenter] = []
        self.auto_answer: AutoAnswer | None = None

    def subscribe(self, presenter: Presenter) -> Callable[[], None]:
        self._presenters.append(presenter)
        return lambda: self._presenters.remove(presenter)

    async def request(self, params: Any) -> dict[str, Any]:
        session_id, tool_call, options = parse_permission_request(params)
        loop = asyncio.get_running_loop()
        pending = PendingPermission(
            next(self._ids), session_id, tool_call, options, loop.create_future(), params
        )
        if self.auto_answer is not None:
            chosen = self.auto_answer(pending)
            if chosen is not None:
                return {"outcome": {"outcome": "selected", "optionId": chosen}}
        self.pending.append(pending)
        for presenter in list(self._presenters):
            presenter(pending)
        try:
            return await pending.future
        except asyncio.CancelledError:
            pending.cancel()
            raise
        finally:
            if pending in self.pending:
                self.pending.remove(pending)

    def cancel_all(self) -> int:
        count = 0
        for pending in list(self.pending):
            if not pending.done:
                pending.cancel()
                count += 1
        return count

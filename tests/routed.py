"""Drive host handlers the way the connection does: raw params through the router's models.

`routed(Model, handler)(params)` validates `params` with `Model` and calls the handler, exactly as
`protocol.router` does for a request off the wire; a `ValidationError` is what the connection
answers -32602. `RoutedTerminals` wraps a `TerminalHost` so tests keep sending wire dicts.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from acp_tui.host.terminals import TerminalHost
from acp_tui.protocol.errors import INVALID_PARAMS, RpcError
from acp_tui.protocol.models import (
    CreateTerminalRequest,
    KillTerminalRequest,
    ReleaseTerminalRequest,
    TerminalOutputRequest,
    WaitForTerminalExitRequest,
)
from acp_tui.protocol.router import wire_form

__all__ = ["RoutedTerminals", "error_code", "routed"]


def routed(model: Any, handler: Any) -> Any:
    """`handler` taking raw params: validated by `model` first, a model result sent as its wire
    form (what the connection does with a route the router installed)."""

    async def handle(params: Any) -> Any:
        return wire_form(await handler(model.model_validate(params)))

    return handle


async def error_code(call: Any) -> int:
    """The JSON-RPC error code the connection would answer for awaiting `call`."""
    try:
        await call
    except ValidationError:
        return INVALID_PARAMS
    except RpcError as error:
        return error.code
    raise AssertionError("expected an error")


class RoutedTerminals:
    """A `TerminalHost` whose `terminal/*` methods take raw wire params."""

    def __init__(self, host: TerminalHost) -> None:
        self.host = host
        self.create = routed(CreateTerminalRequest, host.create)
        self.output = routed(TerminalOutputRequest, host.output)
        self.wait_for_exit = routed(WaitForTerminalExitRequest, host.wait_for_exit)
        self.kill = routed(KillTerminalRequest, host.kill)
        self.release = routed(ReleaseTerminalRequest, host.release)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.host, name)

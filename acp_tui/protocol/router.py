"""One way in for the agent's requests: method → params model → handler with typed params.

`Router.route(method, Model, handler)` registers a handler that receives `Model` instances, not
dicts; `Router.route_named(method, handler)` the same with the model the router's table names
for the method (`CLIENT_REQUESTS`), built when the first such request arrives: the models of
the agent's v1 requests (`models.client_methods`, a `LATER` module) are not built on the way to
the first screen, where no request has come yet. `install(connection)` puts every route on a
`Connection` with its model: the connection validates each incoming request's params exactly
once, where it serves the request, and answers a `pydantic.ValidationError` -32602 (invalid
params) with the error details: the one place malformed params are answered. A handler may
return a model (sent as its wire form) or a dict.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from acp_tui.protocol import methods, models
from acp_tui.protocol.connection import Connection, RequestHandler
from acp_tui.protocol.models import to_wire
from acp_tui.protocol.serving import ParamsModel

P = TypeVar("P", bound=BaseModel)

CLIENT_REQUESTS: dict[str, type[BaseModel] | str] = {
    methods.SESSION_REQUEST_PERMISSION: "RequestPermissionRequest",
    methods.FS_READ_TEXT_FILE: "ReadTextFileRequest",
    methods.FS_WRITE_TEXT_FILE: "WriteTextFileRequest",
    methods.TERMINAL_CREATE: "CreateTerminalRequest",
    methods.TERMINAL_OUTPUT: "TerminalOutputRequest",
    methods.TERMINAL_RELEASE: "ReleaseTerminalRequest",
    methods.TERMINAL_WAIT_FOR_EXIT: "WaitForTerminalExitRequest",
    methods.TERMINAL_KILL: "KillTerminalRequest",
}
"""The requests an ACP agent sends its client, and the params model of each (by name: a model
of `models.LATER`, built when it is first used)."""


def model_of(entry: type[BaseModel] | str) -> type[BaseModel]:
    """A table's model: the class itself, or the model of that name (built now if not yet)."""
    if isinstance(entry, str):
        found: type[BaseModel] = getattr(models, entry)
        return found
    return entry


class NamedModel:
    """The params model a table names, looked up (and built) at the first request it
    validates, not when the route is installed."""

    def __init__(self, name: str) -> None:
        self.name = name

    def model_validate(self, obj: Any) -> Any:
        return model_of(self.name).model_validate(obj)


def v2_client_requests() -> dict[str, type[BaseModel] | str]:
    """The same for a v2 agent (v2 dropped fs/* and terminal/*); its models are imported here,
    when an agent speaks v2, not by every launch."""
    from acp_tui.protocol.models.v2 import RequestPermissionRequestV2

    return {methods.SESSION_REQUEST_PERMISSION: RequestPermissionRequestV2}


def wire_form(result: Any) -> Any:
    """A handler's result as JSON: a model as its wire form, anything else as is."""
    return to_wire(result) if isinstance(result, BaseModel) else result


class Router:
    """The request table of one client: which handler answers which method."""

    def __init__(self, table: dict[str, type[BaseModel] | str] | None = None) -> None:
        self._routes: dict[str, tuple[ParamsModel, RequestHandler]] = {}
        self._table = CLIENT_REQUESTS if table is None else table

    def route(self, method: str, model: type[P], handler: Callable[[P], Awaitable[Any]]) -> None:
        """Answer `method` with `handler`, which gets params validated by `model` (the model must be
        the one this router's table names for the method)."""
        expected = self._table.get(method)
        if expected is not None and model_of(expected) is not model:
            raise TypeError(f"{method} takes {model_of(expected).__name__}, not {model.__name__}")
        self._routes[method] = (model, handler)

    def route_named(self, method: str, handler: Callable[[Any], Awaitable[Any]]) -> None:
        """Answer `method` with `handler`, which gets params validated by the model this
        router's table names for it, built when the first such request arrives (the handler's
        parameter is to be that model: `tests/unit/test_router.py` checks the session's)."""
        entry = self._table[method]
        model = NamedModel(entry) if isinstance(entry, str) else entry
        self._routes[method] = (model, handler)

    @property
    def methods(self) -> list[str]:
        """The methods routed so far."""
        return list(self._routes)

    def handler(self, method: str) -> RequestHandler:
        """The handler routed for `method` (KeyError if none)."""
        return self._routes[method][1]

    def install(self, connection: Connection) -> None:
        """Serve every routed method on `connection`."""
        for method, (model, handler) in self._routes.items():
            connection.on_request(method, handler, params=model, result=wire_form)

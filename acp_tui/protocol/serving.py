"""The agent's requests to us, served for a `Connection`: each in its own task, answered exactly
once (a result, its `RpcError`, -32602 for params a model rejected, -32603 for a bug, -32800
when cancelled), cancellable by the agent's `$/cancel_request` until its answer is decided."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeGuard

from acp_tui.protocol import methods
from acp_tui.protocol.errors import (
    INTERNAL_ERROR,
    METHOD_NOT_FOUND,
    REQUEST_CANCELLED,
    ConnectionClosed,
    RpcError,
    invalid_params_from,
)

if TYPE_CHECKING:
    import contextvars

    from pydantic import ValidationError

logger = logging.getLogger("acp_tui.protocol.connection")

RequestHandler = Callable[[Any], Awaitable[Any]]
CANCEL_REQUEST = methods.CANCEL_REQUEST
_VALID_ID_TYPES = (int, str, type(None))


def encode(frame: dict[str, Any]) -> str:
    """One frame as the compact JSON line we send (no NaN/Infinity)."""
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def is_valid_id(request_id: Any) -> bool:
    """A request id we can echo: an int, a string, null or a finite number."""
    kind = type(request_id)
    if kind is float:
        return math.isfinite(request_id)  # NaN/Infinity cannot be echoed as JSON
    return kind in _VALID_ID_TYPES


class ParamsModel(Protocol):
    """What validates a request's params (a pydantic model class; the connection never imports
    pydantic itself)."""

    def model_validate(self, obj: Any) -> Any: ...


@dataclass(frozen=True)
class Route:
    """How one method is answered: its params validated by `params` (if any) right here, the
    handler's result turned into JSON by `result` (if any)."""

    handler: RequestHandler
    params: ParamsModel | None = None
    result: Callable[[Any], Any] | None = None


class Answering(Protocol):
    """What serving needs of its connection (a `connection.Connection`, which imports this
    module: the other way is this Protocol)."""

    @property
    def closing(self) -> bool: ...
    @property
    def handler_context(self) -> contextvars.Context | None: ...
    def spawn(self, coro: Awaitable[Any]) -> None: ...
    async def write_line(self, line: str) -> bool: ...


def _id_key(request_id: Any) -> tuple[type, Any]:
    return (type(request_id), request_id)


class Serving:
    """The requests `connection` is serving, by id."""

    def __init__(self, connection: Answering) -> None:
        self.connection = connection
        self.routes: dict[str, Route] = {}
        self._serving: dict[tuple[type, Any], asyncio.Task[None]] = {}

    def tasks(self) -> list[asyncio.Task[None]]:
        return list(self._serving.values())

    def clear(self) -> None:
        self._serving.clear()

    def serve(self, request_id: Any, method: str, params: Any) -> None:
        """Answer one request in its own task (in the connection's handler context)."""
        connection = self.connection
        if connection.closing:
            return
        key = _id_key(request_id)
        context = connection.handler_context
        task = asyncio.get_running_loop().create_task(
            self._answer(request_id, key, method, params),
            name=f"acp-serve {method}",
            context=None if context is None else context.copy(),
        )
        self._serving[key] = task
        task.add_done_callback(lambda t: self._served(t, request_id, key))

    def _served(self, task: asyncio.Task[None], request_id: Any, key: tuple[type, Any]) -> None:
        # A task cancelled before its first step never ran `_answer`: answer for it here.
        if self._serving.get(key) is task:
            del self._serving[key]
        if task.cancelled() and not self.connection.closing:
            error = RpcError(REQUEST_CANCELLED, "Request cancelled")
            self.connection.spawn(self._write_quietly(error_line(request_id, error)))

    async def _answer(
        self, request_id: Any, key: tuple[type, Any], method: str, params: Any
    ) -> None:
        task = asyncio.current_task()
        try:
            route = self.routes.get(method)
            if route is None:
                raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}", {"method": method})
            model = route.params
            result = await route.handler(params if model is None else model.model_validate(params))
            if route.result is not None:
                result = route.result(result)
            line = _response_line(request_id, result)
        except asyncio.CancelledError:
            if self.connection.closing:
                raise
            line = error_line(request_id, RpcError(REQUEST_CANCELLED, "Request cancelled"))
        except RpcError as exc:
            line = error_line(request_id, exc)
        except Exception as exc:
            if _is_validation_error(exc):  # params their model rejected
                line = error_line(request_id, invalid_params_from(exc))
            else:
                logger.exception("request handler for %s failed", method)
                line = error_line(request_id, RpcError(INTERNAL_ERROR, "Internal error"))
        if self._serving.get(key) is task:
            del self._serving[key]  # from now on a $/cancel_request cannot touch this answer
        try:
            await self.connection.write_line(line)
        except ConnectionClosed:
            logger.debug("could not answer %s: connection closed", method)

    def reply_error(self, request_id: Any, error: RpcError) -> None:
        """Answer a malformed request with `error` at once."""
        logger.warning("invalid request (id %.100r): %s", request_id, error.message)
        self.connection.spawn(self._write_quietly(error_line(request_id, error)))

    async def _write_quietly(self, line: str) -> None:
        with contextlib.suppress(ConnectionClosed):
            await self.connection.write_line(line)

    def cancel(self, params: Any) -> None:
        """The agent's `$/cancel_request`: cancel the request it names, if still being served."""
        if type(params) is not dict or "requestId" not in params:
            logger.warning("ignored a malformed %s: %.200r", CANCEL_REQUEST, params)
            return
        request_id = params["requestId"]
        if not is_valid_id(request_id):
            return
        task = self._serving.get(_id_key(request_id))
        if task is not None and not task.done():
            task.cancel()


def _response_line(request_id: Any, result: Any) -> str:
    try:
        return encode({"jsonrpc": "2.0", "id": request_id, "result": result})
    except (TypeError, ValueError, RecursionError):
        logger.exception("result of request %r is not JSON", request_id)
        return error_line(request_id, RpcError(INTERNAL_ERROR, "Internal error"))


def error_line(request_id: Any, error: RpcError) -> str:
    """The error answer to `request_id` (data that is not JSON dropped, the code kept)."""
    try:
        return encode({"jsonrpc": "2.0", "id": request_id, "error": error.to_wire()})
    except (TypeError, ValueError, RecursionError):
        logger.exception("error data for request %r is not JSON", request_id)
        code = error.code if type(error.code) is int else INTERNAL_ERROR
        wire = {"code": code, "message": str(error.message)}
        return encode({"jsonrpc": "2.0", "id": request_id, "error": wire})


def _is_validation_error(error: Exception) -> TypeGuard[ValidationError]:
    """A pydantic ValidationError, without importing pydantic: if pydantic_core was never
    imported, no model can have raised one (keeps the connection light for `prestart`)."""
    core = sys.modules.get("pydantic_core")
    return core is not None and isinstance(error, core.ValidationError)

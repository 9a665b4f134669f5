"""JSON-RPC 2.0 over newline-delimited JSON on asyncio streams.

- Outgoing requests wait on a future keyed by an integer id (0, 1, 2, ...).
- Incoming notifications are delivered strictly in arrival order by one consumer task.
- Incoming requests run concurrently, each in its own task, and are answered exactly once.
- `$/cancel_request` works both ways.
- The reader reads blocks and splits lines itself. A line longer than `max_frame_bytes` is
  discarded up to its newline as it streams in (memory stays bounded by the cap), logged as a
  -32700 parse error and reported to `on_oversized_frame`.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import json
import logging
import math
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeGuard

from acp_tui.protocol.errors import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    REQUEST_CANCELLED,
    RpcError,
    invalid_params_from,
)
from acp_tui.protocol.traffic import Direction, TrafficEvent

if TYPE_CHECKING:
    from pydantic import ValidationError

logger = logging.getLogger(__name__)

RequestHandler = Callable[[Any], Awaitable[Any]]
NotificationHandler = Callable[[Any], Awaitable[None] | None]
Tap = Callable[[TrafficEvent], None]
OversizedFrameHandler = Callable[[int, int], None]
"""Called with (bytes discarded, the cap) once per discarded frame."""

CANCEL_REQUEST = "$/cancel_request"
READ_BLOCK = 256 * 1024
DEFAULT_MAX_FRAME_BYTES = 64 * 1024 * 1024
_VALID_ID_TYPES = (int, str, type(None))


class ConnectionClosed(Exception):
    """The connection is closed: the request will never be answered, or cannot be sent."""


def _encode(frame: dict[str, Any]) -> str:
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _id_key(request_id: Any) -> tuple[type, Any]:
    return (type(request_id), request_id)


def _is_valid_id(request_id: Any) -> bool:
    kind = type(request_id)
    if kind is float:
        return math.isfinite(request_id)  # NaN/Infinity cannot be echoed as JSON
    return kind in _VALID_ID_TYPES


class Connection:
    """One JSON-RPC peer. Call `start()` (or `await run()`), then `request`/`notify`."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        request_handlers: Mapping[str, RequestHandler] | None = None,
        notification_handlers: Mapping[str, NotificationHandler] | None = None,
        max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES,
        on_oversized_frame: OversizedFrameHandler | None = None,
    ) -> None:
        self._reader = reader
        self.max_frame_bytes = max(1, max_frame_bytes)
        self.on_oversized_frame = on_oversized_frame
        self._writer = writer
        self._request_handlers: dict[str, RequestHandler] = dict(request_handlers or {})
        self._notification_handlers: dict[str, NotificationHandler] = dict(
            notification_handlers or {}
        )
        self._taps: list[Tap] = []
        self._handler_context: contextvars.Context | None = None
        self._next_id = 0
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._serving: dict[tuple[type, Any], asyncio.Task[None]] = {}
        self._background: set[asyncio.Task[Any]] = set()
        self._notifications: collections.deque[tuple[str, Any]] = collections.deque()
        self._notification_ready = asyncio.Event()
        self._write_lock = asyncio.Lock()
        self._read_task: asyncio.Task[None] | None = None
        self._consumer_task: asyncio.Task[None] | None = None
        self._eof = False
        self._closing = False
        self._closed = False
        self._closed_event = asyncio.Event()

    # ---- registration -------------------------------------------------------------------

    def on_request(self, method: str, handler: RequestHandler) -> None:
        """Serve the agent's requests for `method` with `handler` (its result or `RpcError` becomes
        the answer)."""
        self._request_handlers[method] = handler

    def on_notification(self, method: str, handler: NotificationHandler) -> None:
        """Deliver the agent's notifications for `method` to `handler`, one at a time, in order."""
        self._notification_handlers[method] = handler

    def add_tap(self, tap: Tap) -> None:
        """Let `tap` see every frame read or written from now on (the traffic log, the inspector's
        store)."""
        self._taps.append(tap)

    # ---- lifecycle ----------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """True once the connection has closed (read loop stopped, pending requests failed)."""
        return self._closed

    def run_handlers_in(self, context: contextvars.Context) -> None:
        """From now on, call handlers and taps in `context` (a copy of it per call).

        A connection started before its owner existed (the agent is started before the UI is
        even imported, see `client.prestart`) runs its tasks in the context of that early
        moment; the owner hands over its own context (a UI needs its context variables, such
        as Textual's active app, in whatever a handler does)."""
        self._handler_context = context

    def _in_context(self, function: Callable[..., Any], *args: Any) -> Any:
        context = self._handler_context
        if context is None:
            return function(*args)
        return context.copy().run(function, *args)

    def start(self) -> None:
        """Start the read loop and the notification consumer as tasks (idempotent)."""
        if self._read_task is not None:
            return
        self._read_task = asyncio.create_task(self._read_loop(), name="acp-read")
        self._consumer_task = asyncio.create_task(self._consume(), name="acp-notifications")

    async def wait_closed(self) -> None:
        """Wait until the connection has closed (the agent closed its stdout, or `close`)."""
        await self._closed_event.wait()

    async def close(self) -> None:
        """Stop reading, fail pending requests, cancel handlers, close the writer."""
        if self._closing:
            await self.wait_closed()
        else:
            self._closing = True
            self._notifications.clear()
            for task in (self._read_task, self._consumer_task):
                if task is not None and task is not asyncio.current_task():
                    task.cancel()
            await self._finish()
        try:
            self._writer.close()
        except (OSError, RuntimeError) as exc:  # e.g. the loop's transport is already gone
            logger.debug("closing writer: %s", exc)

    async def _finish(self) -> None:
        """Common end for EOF and close(): everything pending fails, then `closed` is True."""
        self._closing = True
        self._closed = True
        self._fail_pending()
        tasks = [*self._serving.values(), *self._background]
        tasks += [t for t in (self._read_task, self._consumer_task) if t is not None]
        tasks = [t for t in tasks if t is not asyncio.current_task() and not t.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=2.0)
        self._serving.clear()
        self._closed_event.set()

    def _fail_pending(self) -> None:
        pending = list(self._pending.values())
        self._pending.clear()
        for future in pending:
            if not future.done():
                future.set_exception(ConnectionClosed("connection closed"))

    # ---- sending ------------------------------------------------------------------------

    async def request(self, method: str, params: Any = None) -> Any:
        """Send a request and return its result; raises RpcError or ConnectionClosed."""
        if self._closing or self._eof:
            raise ConnectionClosed(f"connection closed; cannot send {method}")
        request_id = self._next_id
        self._next_id += 1
        frame: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            frame["params"] = params
        line = _encode(frame)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        sent = False
        try:
            sent = await self._write_line(line)
            return await future
        except asyncio.CancelledError:
            if sent and self._pending.pop(request_id, None) is not None and not self._closing:
                self._spawn(self._send_cancel(request_id))
            raise
        finally:
            self._pending.pop(request_id, None)

    async def notify(self, method: str, params: Any = None) -> None:
        """Send a notification; raises `ConnectionClosed` once the connection is closing."""
        if self._closing:
            raise ConnectionClosed(f"connection closed; cannot send {method}")
        frame: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            frame["params"] = params
        await self._write_line(_encode(frame))

    async def _send_cancel(self, request_id: int) -> None:
        with contextlib.suppress(ConnectionClosed):
            await self.notify(CANCEL_REQUEST, {"requestId": request_id})

    async def _write_line(self, line: str) -> bool:
        """Write one frame; returns True once it is in the transport's buffer."""
        async with self._write_lock:
            if self._closed:
                raise ConnectionClosed("connection closed")
            self._tap("out", line, True)  # encoded by us
            try:
                self._writer.write(line.encode("utf-8") + b"\n")
            except (OSError, RuntimeError) as exc:
                raise ConnectionClosed(f"cannot write: {exc}") from exc
            try:
                await self._writer.drain()
            except (OSError, RuntimeError) as exc:
                raise ConnectionClosed(f"cannot write: {exc}") from exc
            return True

    def _tap(self, direction: Direction, raw: str, json_ok: bool | None = None) -> None:
        if not self._taps:
            return
        event = TrafficEvent(direction, time.time(), raw, json_ok)
        for tap in self._taps:
            try:
                self._in_context(tap, event)
            except Exception:
                logger.exception("traffic tap %r failed", tap)

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # ---- reading ------------------------------------------------------------------------

    async def _read_loop(self) -> None:
        parts: list[bytes] = []
        size = 0  # bytes in `parts`
        discarded = 0  # > 0 while skipping the rest of an oversized frame
        read = self._reader.read
        try:
            while True:
                try:
                    block = await read(READ_BLOCK)
                    # read per block: a prestarted connection gets the setting after it started
                    cap = self.max_frame_bytes
                except (OSError, ValueError) as exc:
                    logger.warning("reading from the agent failed: %s", exc)
                    break
                if not block:
                    break
                newline = block.find(b"\n")
                if newline < 0:
                    if discarded:
                        discarded += len(block)
                    elif size + len(block) > cap:
                        discarded = size + len(block)
                        parts.clear()
                        size = 0
                    else:
                        parts.append(block)
                        size += len(block)
                    continue
                if discarded:
                    self._discarded(discarded + newline)
                    discarded = 0
                    block = block[newline + 1 :]
                lines = block.split(b"\n")
                if parts:
                    parts.append(lines[0])
                    size += len(lines[0])
                    lines[0] = b"".join(parts)
                    parts.clear()
                last = lines.pop()
                size = 0
                for line in lines:
                    if len(line) > cap:
                        self._discarded(len(line))
                    else:
                        self._receive_line(line)
                if len(last) > cap:
                    discarded = len(last)
                elif last:
                    parts.append(last)
                    size = len(last)
            if discarded:
                self._discarded(discarded)
            elif parts:
                self._receive_line(b"".join(parts))
        finally:
            self._eof = True
            self._fail_pending()
            self._notification_ready.set()
            if self._consumer_task is None and not self._closing:
                self._spawn_finish()

    def _discarded(self, length: int) -> None:
        logger.warning(
            "parse error %d: discarded a frame of %d bytes (over the %d-byte cap)",
            PARSE_ERROR,
            length,
            self.max_frame_bytes,
        )
        if self.on_oversized_frame is not None:
            try:
                self.on_oversized_frame(length, self.max_frame_bytes)
            except Exception:
                logger.exception("oversized-frame handler failed")

    def _receive_line(self, line: bytes) -> None:
        try:
            frame = json.loads(line)  # bytes: decoded (strict UTF-8) by json itself
            parsed = True
        except (ValueError, RecursionError):  # includes UnicodeDecodeError
            frame, parsed = None, False
        if self._taps:  # before the frame is acted on; told whether it parsed (the log uses it)
            text = line.decode("utf-8", "replace")
            if text and not text.isspace():
                self._tap("in", text, parsed)
        if not parsed:
            if line.strip():
                logger.warning("dropped a line that is not UTF-8 JSON: %.200r", line)
            return
        try:
            self._dispatch(frame)
        except Exception:  # a bug here must not kill the read loop
            logger.exception("dispatching frame failed: %.200r", line)

    def _dispatch(self, frame: Any) -> None:
        if type(frame) is not dict:
            logger.warning("dropped a JSON value that is not a frame: %.200r", frame)
            return
        if "method" in frame:
            method = frame["method"]
            if "id" in frame:
                request_id = frame["id"]
                if not _is_valid_id(request_id):
                    self._reply_error(None, RpcError(INVALID_REQUEST, "Invalid request id"))
                elif type(method) is not str:
                    self._reply_error(request_id, RpcError(INVALID_REQUEST, "Invalid method"))
                else:
                    self._serve(request_id, method, frame.get("params"))
            elif type(method) is not str:
                logger.warning("dropped a notification without a method: %.200r", frame)
            elif method == CANCEL_REQUEST:
                self._cancel_incoming(frame.get("params"))
            else:
                self._notifications.append((method, frame.get("params")))
                self._notification_ready.set()
        elif "result" in frame or "error" in frame:
            self._resolve(frame)
        elif "id" in frame:
            request_id = frame["id"]
            self._reply_error(
                request_id if _is_valid_id(request_id) else None,
                RpcError(INVALID_REQUEST, "Invalid request: no method"),
            )
        else:
            logger.warning("dropped an object that is not a frame: %.200r", frame)

    def _resolve(self, frame: dict[str, Any]) -> None:
        request_id = frame.get("id")
        future = self._pending.pop(request_id, None) if type(request_id) is int else None
        if future is None:
            logger.info("ignored a response to unknown request id %.100r", request_id)
            return
        if future.done():
            return
        if "error" in frame:
            future.set_exception(RpcError.from_wire(frame["error"]))
        else:
            future.set_result(frame["result"])

    # ---- notifications ------------------------------------------------------------------

    async def _consume(self) -> None:
        queue = self._notifications
        ready = self._notification_ready
        handlers = self._notification_handlers
        try:
            while True:
                while queue:
                    method, params = queue.popleft()
                    handler = handlers.get(method)
                    if handler is None:
                        logger.debug("ignored notification %s", method)
                        continue
                    try:
                        result = self._in_context(handler, params)
                        if result is not None:
                            await self._awaited_in_context(result)
                    except asyncio.CancelledError:
                        raise
                    except Exception:
                        logger.exception("notification handler for %s failed", method)
                if self._eof:
                    break
                ready.clear()
                await ready.wait()
        finally:
            if self._eof and not self._closing:
                self._spawn_finish()

    def _awaited_in_context(self, result: Awaitable[Any]) -> Awaitable[Any]:
        context = self._handler_context
        if context is None or not asyncio.iscoroutine(result):
            return result
        return asyncio.get_running_loop().create_task(result, context=context.copy())

    def _spawn_finish(self) -> None:
        # runs outside this task so _finish can cancel and await the others
        asyncio.get_running_loop().create_task(self._finish())

    # ---- incoming requests --------------------------------------------------------------

    def _serve(self, request_id: Any, method: str, params: Any) -> None:
        if self._closing:
            return
        key = _id_key(request_id)
        context = self._handler_context
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
        if task.cancelled() and not self._closing:
            error = RpcError(REQUEST_CANCELLED, "Request cancelled")
            self._spawn(self._write_quietly(self._error_line(request_id, error)))

    async def _answer(
        self, request_id: Any, key: tuple[type, Any], method: str, params: Any
    ) -> None:
        task = asyncio.current_task()
        try:
            handler = self._request_handlers.get(method)
            if handler is None:
                raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}", {"method": method})
            result = await handler(params)
            line = self._response_line(request_id, result)
        except asyncio.CancelledError:
            if self._closing:
                raise
            line = self._error_line(request_id, RpcError(REQUEST_CANCELLED, "Request cancelled"))
        except RpcError as exc:
            line = self._error_line(request_id, exc)
        except Exception as exc:
            if _is_validation_error(exc):  # params their model rejected
                line = self._error_line(request_id, invalid_params_from(exc))
            else:
                logger.exception("request handler for %s failed", method)
                line = self._error_line(request_id, RpcError(INTERNAL_ERROR, "Internal error"))
        if self._serving.get(key) is task:
            del self._serving[key]  # from now on a $/cancel_request cannot touch this answer
        try:
            await self._write_line(line)
        except ConnectionClosed:
            logger.debug("could not answer %s: connection closed", method)

    def _response_line(self, request_id: Any, result: Any) -> str:
        try:
            return _encode({"jsonrpc": "2.0", "id": request_id, "result": result})
        except (TypeError, ValueError, RecursionError):
            logger.exception("result of request %r is not JSON", request_id)
            return self._error_line(request_id, RpcError(INTERNAL_ERROR, "Internal error"))

    def _error_line(self, request_id: Any, error: RpcError) -> str:
        try:
            return _encode({"jsonrpc": "2.0", "id": request_id, "error": error.to_wire()})
        except (TypeError, ValueError, RecursionError):
            logger.exception("error data for request %r is not JSON", request_id)
            code = error.code if type(error.code) is int else INTERNAL_ERROR
            wire = {"code": code, "message": str(error.message)}
            return _encode({"jsonrpc": "2.0", "id": request_id, "error": wire})

    def _reply_error(self, request_id: Any, error: RpcError) -> None:
        logger.warning("invalid request (id %.100r): %s", request_id, error.message)
        self._spawn(self._write_quietly(self._error_line(request_id, error)))

    async def _write_quietly(self, line: str) -> None:
        with contextlib.suppress(ConnectionClosed):
            await self._write_line(line)

    def _cancel_incoming(self, params: Any) -> None:
        if type(params) is not dict or "requestId" not in params:
            logger.warning("ignored a malformed %s: %.200r", CANCEL_REQUEST, params)
            return
        request_id = params["requestId"]
        if not _is_valid_id(request_id):
            return
        task = self._serving.get(_id_key(request_id))
        if task is not None and not task.done():
            task.cancel()


def _is_validation_error(error: Exception) -> TypeGuard[ValidationError]:
    """A pydantic ValidationError, without importing pydantic: if pydantic_core was never
    imported, no model can have raised one (keeps the connection light for `prestart`)."""
    core = sys.modules.get("pydantic_core")
    return core is not None and isinstance(error, core.ValidationError)

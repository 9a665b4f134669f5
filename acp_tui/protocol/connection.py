"""JSON-RPC 2.0 over newline-delimited JSON on asyncio streams.

- Outgoing requests wait on a future keyed by an integer id (0, 1, 2, ...).
- Incoming notifications are delivered strictly in arrival order: straight from the read loop
  to their handler when nothing waits before them (the streaming hot path: no queue, no task
  switch); behind a handler's awaitable, queued for one consumer task.
- Incoming requests run concurrently, each in its own task, and are answered exactly once
  (`serving.py`).
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
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from acp_tui.protocol.errors import INVALID_REQUEST, PARSE_ERROR, ConnectionClosed, RpcError
from acp_tui.protocol.line_reader import read_lines
from acp_tui.protocol.serving import (
    CANCEL_REQUEST,
    ParamsModel,
    RequestHandler,
    Route,
    Serving,
    encode,
    is_valid_id,
)
from acp_tui.protocol.traffic import NOT_PARSED, Direction, TrafficEvent

__all__ = [
    "CANCEL_REQUEST",
    "Connection",
    "ConnectionClosed",
    "NotificationHandler",
    "RequestHandler",
]

logger = logging.getLogger(__name__)

NotificationHandler = Callable[[Any], Awaitable[None] | None]
Tap = Callable[[TrafficEvent], None]
OversizedFrameHandler = Callable[[int, int], None]
"""Called with (bytes discarded, the cap) once per discarded frame."""

DEFAULT_MAX_FRAME_BYTES = 64 * 1024 * 1024


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
        self._incoming = Serving(self)
        for method, handler in (request_handlers or {}).items():
            self.on_request(method, handler)
        self._notification_handlers: dict[str, NotificationHandler] = dict(
            notification_handlers or {}
        )
        self._taps: list[Tap] = []
        self.handler_context: contextvars.Context | None = None
        """The context handlers and taps run in (a copy per call), if handed over."""
        self._next_id = 0
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._background: set[asyncio.Task[Any]] = set()
        self._notifications: collections.deque[tuple[str, Any]] = collections.deque()
        self._notification_ready = asyncio.Event()
        self._awaiting: Awaitable[Any] | None = None  # a notification handler's, for the consumer
        self._write_lock = asyncio.Lock()
        self._read_task: asyncio.Task[None] | None = None
        self._consumer_task: asyncio.Task[None] | None = None
        self._eof = False
        self.closing = False
        """Set once closing began: nothing more is sent or served."""
        self._closed = False
        self._closed_event = asyncio.Event()

    # ---- registration -------------------------------------------------------------------

    def on_request(
        self,
        method: str,
        handler: RequestHandler,
        *,
        params: ParamsModel | None = None,
        result: Callable[[Any], Any] | None = None,
    ) -> None:
        """Serve the agent's requests for `method` with `handler` (its result or `RpcError` becomes
        the answer). With `params`, the handler gets the params validated by that model (a
        `ValidationError` is answered -32602); `result` turns what it returns into JSON."""
        self._incoming.routes[method] = Route(handler, params, result)

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
        self.handler_context = context

    def _in_context(self, function: Callable[..., Any], *args: Any) -> Any:
        context = self.handler_context
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
        if self.closing:
            await self.wait_closed()
        else:
            self.closing = True
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
        self.closing = True
        self._closed = True
        self._fail_pending()
        tasks = [*self._incoming.tasks(), *self._background]
        tasks += [t for t in (self._read_task, self._consumer_task) if t is not None]
        tasks = [t for t in tasks if t is not asyncio.current_task() and not t.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=2.0)
        self._incoming.clear()
        awaiting, self._awaiting = self._awaiting, None
        if asyncio.iscoroutine(awaiting):
            awaiting.close()  # a handler's coroutine the consumer never got to
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
        if self.closing or self._eof:
            raise ConnectionClosed(f"connection closed; cannot send {method}")
        request_id = self._next_id
        self._next_id += 1
        frame: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            frame["params"] = params
        line = encode(frame)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        sent = False
        try:
            sent = await self.write_line(line)
            return await future
        except asyncio.CancelledError:
            if sent and self._pending.pop(request_id, None) is not None and not self.closing:
                self.spawn(self._send_cancel(request_id))
            raise
        finally:
            self._pending.pop(request_id, None)

    async def notify(self, method: str, params: Any = None) -> None:
        """Send a notification; raises `ConnectionClosed` once the connection is closing."""
        if self.closing:
            raise ConnectionClosed(f"connection closed; cannot send {method}")
        frame: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            frame["params"] = params
        await self.write_line(encode(frame))

    async def _send_cancel(self, request_id: int) -> None:
        with contextlib.suppress(ConnectionClosed):
            await self.notify(CANCEL_REQUEST, {"requestId": request_id})

    async def write_line(self, line: str) -> bool:
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

    def _tap(
        self, direction: Direction, raw: str, json_ok: bool | None = None, frame: Any = NOT_PARSED
    ) -> None:
        if not self._taps:
            return
        event = TrafficEvent(direction, time.time(), raw, json_ok, frame)
        for tap in self._taps:
            try:
                self._in_context(tap, event)
            except Exception:
                logger.exception("traffic tap %r failed", tap)

    def spawn(self, coro: Awaitable[Any]) -> None:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # ---- reading ------------------------------------------------------------------------

    async def _read_loop(self) -> None:
        try:
            await read_lines(
                self._reader, lambda: self.max_frame_bytes, self._receive_line, self._discarded
            )
        finally:
            self._eof = True
            self._fail_pending()
            self._notification_ready.set()
            if self._consumer_task is None and not self.closing:
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
                self._tap("in", text, parsed, frame if parsed else NOT_PARSED)
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
                if not is_valid_id(request_id):
                    self._incoming.reply_error(
                        None, RpcError(INVALID_REQUEST, "Invalid request id")
                    )
                elif type(method) is not str:
                    self._incoming.reply_error(
                        request_id, RpcError(INVALID_REQUEST, "Invalid method")
                    )
                else:
                    self._incoming.serve(request_id, method, frame.get("params"))
            elif type(method) is not str:
                logger.warning("dropped a notification without a method: %.200r", frame)
            elif method == CANCEL_REQUEST:
                self._incoming.cancel(frame.get("params"))
            elif self._notifications or self._awaiting is not None:  # behind others: queued
                self._notifications.append((method, frame.get("params")))
                self._notification_ready.set()
            else:
                self._deliver(method, frame.get("params"))
        elif "result" in frame or "error" in frame:
            self._resolve(frame)
        elif "id" in frame:
            request_id = frame["id"]
            self._incoming.reply_error(
                request_id if is_valid_id(request_id) else None,
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

    def _deliver(self, method: str, params: Any) -> None:
        """Call the handler of `method`; an awaitable it returns is awaited by the consumer
        before anything after this notification is delivered."""
        handler = self._notification_handlers.get(method)
        if handler is None:
            logger.debug("ignored notification %s", method)
            return
        try:
            result = self._in_context(handler, params)
        except Exception:
            logger.exception("notification handler for %s failed", method)
            return
        if result is not None:
            self._awaiting = self._awaited_in_context(result)
            self._notification_ready.set()

    async def _consume(self) -> None:
        """Await what a handler returned, then deliver what queued behind it, in order."""
        queue = self._notifications
        ready = self._notification_ready
        try:
            while True:
                awaiting = self._awaiting
                if awaiting is not None:
                    try:
                        await awaiting
                    except asyncio.CancelledError:
                        raise
                    except Exception:
                        logger.exception("notification handler failed")
                    self._awaiting = None
                while queue and self._awaiting is None:
                    method, params = queue.popleft()
                    self._deliver(method, params)
                if self._awaiting is not None:
                    continue
                if self._eof:
                    break
                ready.clear()
                await ready.wait()
        finally:
            if self._eof and not self.closing:
                self._spawn_finish()

    def _awaited_in_context(self, result: Awaitable[Any]) -> Awaitable[Any]:
        context = self.handler_context
        if context is None or not asyncio.iscoroutine(result):
            return result
        return asyncio.get_running_loop().create_task(result, context=context.copy())

    def _spawn_finish(self) -> None:
        # runs outside this task so _finish can cancel and await the others
        asyncio.get_running_loop().create_task(self._finish())

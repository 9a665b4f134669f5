"""The demo agent's side of JSON-RPC 2.0 over NDJSON: this process's stdin/stdout, frames
dispatched to handlers, requests to the client matched to their answers, `$/cancel_request`
both ways. Self-contained (asyncio + stdlib): the demo shares no code with acp-tui's protocol
layer, being "the other side" of it."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from acp_tui.demo.turn_api import JsonObject, RpcError
from acp_tui.protocol import methods

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
REQUEST_CANCELLED = -32800

MAX_LINE_BYTES = 64 * 1024 * 1024

Handler = Callable[[JsonObject], Awaitable[JsonObject]]


def _key(request_id: Any) -> str:
    return json.dumps(request_id)


class StdioLines:
    """NDJSON over this process's stdin/stdout, non-blocking where the fds allow it."""

    def __init__(self) -> None:
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        """Connect asynchronous readers/writers to stdin and stdout (falling back to blocking
        writes where a pipe cannot be).
        """
        loop = asyncio.get_running_loop()
        with contextlib.suppress(ValueError, OSError):
            reader = asyncio.StreamReader(limit=MAX_LINE_BYTES)
            protocol = asyncio.StreamReaderProtocol(reader)
            await loop.connect_read_pipe(lambda: protocol, sys.stdin.buffer)
            self._reader = reader
        with contextlib.suppress(ValueError, OSError):
            transport, flow = await loop.connect_write_pipe(
                asyncio.streams.FlowControlMixin, sys.stdout.buffer
            )
            transport.set_write_buffer_limits(high=0)  # drain() waits until the OS took it all
            self._writer = asyncio.StreamWriter(transport, flow, None, loop)

    async def read_line(self) -> bytes | None:
        """The next line (without its newline), b"" for an over-long one, None at end of input."""
        if self._reader is None:
            line = await asyncio.to_thread(sys.stdin.buffer.readline)
            return line.rstrip(b"\r\n") if line else None
        try:
            line = await self._reader.readline()
        except ValueError:  # longer than MAX_LINE_BYTES: the reader dropped it
            return b""
        return line.rstrip(b"\r\n") if line else None

    async def write(self, data: bytes) -> None:
        """Write bytes to stdout, flushed."""
        if self._writer is None:
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
            return
        self._writer.write(data)
        await self._writer.drain()


class RpcPeer:
    """Dispatches the client's frames to `handlers` and matches the client's answers to ours."""

    def __init__(self, write: Callable[[bytes], Awaitable[None]]) -> None:
        self._write = write
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._inflight: dict[str, tuple[str, asyncio.Task[None], Any]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._handlers: dict[str, Handler] = {}

    async def answered(self, method: str, params: JsonObject, result: JsonObject) -> None:
        """Called after a request's answer went out (what follows it: announcements)."""

    def cancel_turn(self, session_id: Any) -> None:
        """`session/cancel` (or a `$/cancel_request` for a prompt): end that session's turn."""

    async def serve(self, read_line: Callable[[], Awaitable[bytes | None]]) -> None:
        """Handle frames until end of input (or until the client stops reading our output)."""
        try:
            while (line := await read_line()) is not None:
                if line.strip():
                    try:
                        self.feed(line)
                    except Exception as error:  # odd input must never take the agent down
                        print(f"demo agent: ignored a frame: {error!r}", file=sys.stderr)
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            for task in list(self._tasks):
                task.cancel()

    def feed(self, line: bytes) -> None:
        """Handle one received line: a response to a request of ours, or a request/notification
        to dispatch (bad JSON is answered with a parse error).
        """
        try:
            frame = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            self._spawn(self._send_error(None, RpcError(PARSE_ERROR, "Parse error")))
            return
        if not isinstance(frame, dict):
            self._spawn(self._send_error(None, RpcError(INVALID_REQUEST, "Invalid request")))
        elif "method" in frame:
            self._on_call(frame)
        elif "id" in frame and ("result" in frame or "error" in frame):
            self._on_answer(frame)
        else:
            self._spawn(self._send_error(None, RpcError(INVALID_REQUEST, "Invalid request")))

    def _on_call(self, frame: JsonObject) -> None:
        method, params = frame["method"], frame.get("params")
        if "id" not in frame:
            if isinstance(params, dict):
                self._on_notification(method, params)
            return
        request_id = frame["id"]
        if not isinstance(request_id, str | int) or isinstance(request_id, bool):
            self._spawn(self._send_error(None, RpcError(INVALID_REQUEST, "Invalid request id")))
            return
        if not isinstance(method, str):
            self._spawn(self._send_error(request_id, RpcError(INVALID_REQUEST, "Invalid method")))
            return
        task = self._spawn(self._serve_request(request_id, method, params))
        self._inflight[_key(request_id)] = (method, task, params)
        task.add_done_callback(lambda _: self._inflight.pop(_key(request_id), None))

    def _on_notification(self, method: Any, params: JsonObject) -> None:
        if method == methods.SESSION_CANCEL:
            self.cancel_turn(params.get("sessionId"))
        elif method == methods.CANCEL_REQUEST:
            entry = self._inflight.get(_key(params.get("requestId")))
            if entry is None:
                return
            called, task, call_params = entry
            if called == methods.SESSION_PROMPT:  # a prompt is cancelled the ACP way: end the turn
                if isinstance(call_params, dict):
                    self.cancel_turn(call_params.get("sessionId"))
            else:
                task.cancel()
        # any other notification is ignored, as JSON-RPC and ACP ask

    def _on_answer(self, frame: JsonObject) -> None:
        request_id = frame.get("id")
        future = None
        if isinstance(request_id, int) and not isinstance(request_id, bool):
            future = self._pending.pop(request_id, None)
        if future is None or future.done():
            return
        error = frame.get("error")
        if error is not None:
            error = error if isinstance(error, dict) else {}
            code, message = error.get("code"), error.get("message")
            future.set_exception(
                RpcError(
                    code if isinstance(code, int) else INTERNAL_ERROR,
                    message if isinstance(message, str) else "error",
                    error.get("data"),
                )
            )
        else:
            future.set_result(frame.get("result"))

    async def _serve_request(self, request_id: str | int, method: str, params: Any) -> None:
        handler = self._handlers.get(method)
        try:
            if handler is None:
                raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")
            if not isinstance(params, dict):
                raise RpcError(INVALID_PARAMS, "params must be an object")
            result = await handler(params)
        except RpcError as error:
            await self._send_error(request_id, error)
            return
        except asyncio.CancelledError:  # `$/cancel_request`, or shutting down
            with contextlib.suppress(Exception):
                await self._send_error(request_id, RpcError(REQUEST_CANCELLED, "Request cancelled"))
            raise
        except Exception as error:  # a bug in the demo must not take the agent down
            await self._send_error(request_id, RpcError(INTERNAL_ERROR, f"Internal error: {error}"))
            return
        await self.send({"jsonrpc": "2.0", "id": request_id, "result": result})
        await self.answered(method, params, result)

    def spawn(self, coroutine: Awaitable[Any]) -> asyncio.Task[Any]:
        """Run a coroutine as a task the peer keeps track of."""
        return self._spawn(coroutine)

    def _spawn(self, coroutine: Awaitable[Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def send(self, frame: JsonObject) -> None:
        """Write one JSON-RPC frame as a line."""
        data = json.dumps(frame, ensure_ascii=False, separators=(",", ":")) + "\n"
        await self._write(data.encode("utf-8"))

    async def _send_error(self, request_id: Any, error: RpcError) -> None:
        await self.send({"jsonrpc": "2.0", "id": request_id, "error": error.to_json()})

    async def _request(self, method: str, params: JsonObject) -> Any:
        request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            await self.send(
                {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
            )
            return await future
        except asyncio.CancelledError:
            # The turn was cancelled: tell the client we no longer need the answer (a pending
            # permission request is answered "cancelled" by the client on session/cancel itself).
            if method != methods.SESSION_REQUEST_PERMISSION:
                self.notify_soon(methods.CANCEL_REQUEST, {"requestId": request_id})
            raise
        finally:
            self._pending.pop(request_id, None)

    def notify_soon(self, method: str, params: JsonObject) -> None:
        """Send a notification from a task (without waiting for the write)."""
        self._spawn(self.send({"jsonrpc": "2.0", "method": method, "params": params}))

"""The demo ACP agent behind `acp-tui --demo`: run it as `python -m acp_tui.demo.agent`.

A real agent subprocess speaking ACP v1 (JSON-RPC 2.0, one JSON object per line on stdin/stdout)
with no network and no key. It is deliberately self-contained (asyncio + stdlib): it is "the
other side" of the protocol, so it shares no code with acp-tui's own protocol layer.

Environment: `ACP_TUI_DEMO_SPEED` multiplies every delay (default 1.0, 0 = no delays);
`ACP_TUI_DEMO_AUTH=1` makes `session/new` and `session/load` fail with -32000 until the client
called `authenticate` with `demo-login`. This module is the wire and the ACP methods; what a
prompt turn does is in `acp_tui.demo.turn`, the words it says in `acp_tui.demo.content`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import sys
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from acp_tui import __version__
from acp_tui.demo import content, v2
from acp_tui.demo.session_extras import SESSION_CAPABILITIES, SessionExtras
from acp_tui.demo.turn import JsonObject, RpcError, Session, Turn, TurnCancelled, text_block

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
AUTH_REQUIRED = -32000
REQUEST_CANCELLED = -32800

MAX_LINE_BYTES = 64 * 1024 * 1024


def delay_scale() -> float:
    """`ACP_TUI_DEMO_SPEED` as a non-negative delay multiplier (1.0 if unset or invalid)."""
    try:
        value = float(os.environ.get("ACP_TUI_DEMO_SPEED", "1"))
    except ValueError:
        return 1.0
    return value if 0 <= value < float("inf") else 1.0


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _first_text(prompt: list[Any]) -> str:
    for block in prompt:
        if isinstance(block, dict) and block.get("type") == "text":
            text = block.get("text")
            return text if isinstance(text, str) else ""
    return ""


def _key(request_id: Any) -> str:
    return json.dumps(request_id)


class StdioLines:
    """NDJSON over this process's stdin/stdout, non-blocking where the fds allow it."""

    def __init__(self) -> None:
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
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
        if self._writer is None:
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
            return
        self._writer.write(data)
        await self._writer.drain()


class DemoAgent:
    """Dispatches the client's frames to handlers and matches the client's answers to ours."""

    def __init__(
        self,
        write: Callable[[bytes], Awaitable[None]],
        *,
        speed: float = 1.0,
        auth_required: bool = False,
    ) -> None:
        self._write = write
        self.speed = speed
        self._authenticated = not auth_required
        self.client_capabilities: JsonObject = {}
        self.protocol = 1
        """1, or 2 when the client offered v2 (and ACP_TUI_DEMO_V1_ONLY is not set)."""
        self.v1_only = os.environ.get("ACP_TUI_DEMO_V1_ONLY") == "1"
        self.v2_states: dict[str, v2.V2State] = {}
        self.sessions: dict[str, Session] = {}
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._inflight: dict[str, tuple[str, asyncio.Task[None], Any]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._handlers: dict[str, Callable[[JsonObject], Awaitable[JsonObject]]] = {
            "initialize": self._initialize,
            "authenticate": self._authenticate,
            "session/new": self._new_session,
            "session/load": self._load_session,
            "session/set_mode": self._set_mode,
            "session/prompt": self._prompt,
            "auth/login": self._authenticate,
            "session/resume": self._resume_session,
            "session/set_config_option": self._set_config_option,
        }
        self.extras = SessionExtras(self.sessions)
        for method, handler in self.extras.handlers().items():
            v2_handler = self._handlers.get(method)  # v2's resume and mode option stay
            self._handlers[method] = (
                handler if v2_handler is None else self._by_protocol(v2_handler, handler)
            )

    def _by_protocol(
        self,
        v2_handler: Callable[[JsonObject], Awaitable[JsonObject]],
        v1_handler: Callable[[JsonObject], Awaitable[JsonObject]],
    ) -> Callable[[JsonObject], Awaitable[JsonObject]]:
        async def handle(params: JsonObject) -> JsonObject:
            return await (v2_handler if self.protocol >= 2 else v1_handler)(params)

        return handle

    # ---- the wire -------------------------------------------------------------------------

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
        if method == "session/cancel":
            self.cancel_turn(params.get("sessionId"))
        elif method == "$/cancel_request":
            entry = self._inflight.get(_key(params.get("requestId")))
            if entry is None:
                return
            called, task, call_params = entry
            if called == "session/prompt":  # a prompt is cancelled the ACP way: end the turn
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
        if method in ("session/new", "session/resume") and self.protocol >= 2:
            session = self.sessions[result.get("sessionId") or params["sessionId"]]
            await self._announce(session)
            if method == "session/new":  # v2: an agent may speak first
                await self.update(session, {"sessionUpdate": "agent_message_chunk",
                                            "content": text_block(v2.GREETING)})
        elif method == "session/new":
            await self._announce(self.sessions[result["sessionId"]])
        elif method in ("session/load", "session/resume"):
            await self._announce(self.sessions[params["sessionId"]])
        elif method == "session/set_mode":
            session = self.sessions[params["sessionId"]]
            await self.update(session, {"sessionUpdate": "current_mode_update",
                                        "currentModeId": session.mode})

    def spawn(self, coroutine: Awaitable[Any]) -> asyncio.Task[Any]:
        return self._spawn(coroutine)

    def _spawn(self, coroutine: Awaitable[Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def send(self, frame: JsonObject) -> None:
        data = json.dumps(frame, ensure_ascii=False, separators=(",", ":")) + "\n"
        await self._write(data.encode("utf-8"))

    async def _send_error(self, request_id: Any, error: RpcError) -> None:
        await self.send({"jsonrpc": "2.0", "id": request_id, "error": error.to_json()})

    async def update(self, session: Session, update: JsonObject) -> None:
        if self.protocol >= 2:
            state = self.v2_states.setdefault(session.id, v2.V2State())
            converted = v2.to_v2(state, session, update)
            if converted is None:
                return
            update = converted
        await self.send({"jsonrpc": "2.0", "method": "session/update",
                         "params": {"sessionId": session.id, "update": update}})

    async def request(self, method: str, params: JsonObject) -> Any:
        """Ask the client; other frames keep flowing while we wait for the answer with our id.

        v2: while a permission request waits, the session `requires_action`.
        """
        session = self.sessions.get(params.get("sessionId"))  # type: ignore[arg-type]
        if self.protocol >= 2 and method == "session/request_permission" and session:
            await self.update(session, {"sessionUpdate": "state_update",
                                        "state": "requires_action"})
            try:
                return await self._request(method, params)
            finally:
                if session.turn is not None and not session.turn.done():
                    await self.update(session, {"sessionUpdate": "state_update",
                                                "state": "running"})
        return await self._request(method, params)

    async def _request(self, method: str, params: JsonObject) -> Any:
        request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            await self.send({"jsonrpc": "2.0", "id": request_id, "method": method,
                             "params": params})
            return await future
        except asyncio.CancelledError:
            # The turn was cancelled: tell the client we no longer need the answer (a pending
            # permission request is answered "cancelled" by the client on session/cancel itself).
            if method != "session/request_permission":
                self.notify_soon("$/cancel_request", {"requestId": request_id})
            raise
        finally:
            self._pending.pop(request_id, None)

    def notify_soon(self, method: str, params: JsonObject) -> None:
        self._spawn(self.send({"jsonrpc": "2.0", "method": method, "params": params}))

    def request_soon(self, method: str, params: JsonObject) -> None:
        """Send a request whose answer nobody waits for (clean-up after a cancelled turn)."""
        async def ask() -> None:
            with contextlib.suppress(RpcError):
                await self.request(method, params)
        self._spawn(ask())

    # ---- the methods ----------------------------------------------------------------------

    async def _initialize(self, params: JsonObject) -> JsonObject:
        capabilities = params.get("clientCapabilities")
        self.client_capabilities = capabilities if isinstance(capabilities, dict) else {}
        if params.get("protocolVersion") == 2 and not self.v1_only:
            self.protocol = 2
            return v2.initialize_answer(__version__)
        return {
            "protocolVersion": 1,
            "agentInfo": {"name": content.AGENT_NAME, "title": "acp-tui demo agent",
                          "version": __version__},
            "agentCapabilities": {
                "loadSession": True,
                "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
                "sessionCapabilities": SESSION_CAPABILITIES,
            },
            "authMethods": [{"id": content.AUTH_METHOD_ID, "name": "Demo login",
                             "description": "Pretend to log in (no key needed)"}],
        }

    async def _authenticate(self, params: JsonObject) -> JsonObject:
        if params.get("methodId") != content.AUTH_METHOD_ID:
            raise RpcError(INVALID_PARAMS, f"Unknown auth method: {params.get('methodId')!r}")
        self._authenticated = True
        return {}

    def _require_auth(self) -> None:
        if not self._authenticated:
            raise RpcError(AUTH_REQUIRED, "Authentication required")

    def _cwd(self, params: JsonObject) -> str:
        cwd = params.get("cwd")
        if not isinstance(cwd, str) or not cwd:
            raise RpcError(INVALID_PARAMS, "cwd must be an absolute path")
        return cwd

    def _modes(self, session: Session) -> JsonObject:
        return {"currentModeId": session.mode, "availableModes": content.MODES}

    async def _new_session(self, params: JsonObject) -> JsonObject:
        self._require_auth()
        session = Session(id=f"demo-{uuid.uuid4().hex[:12]}", cwd=self._cwd(params))
        self.sessions[session.id] = session
        if self.protocol >= 2:
            return {"sessionId": session.id, "configOptions": v2.config_options(session)}
        return {
            "sessionId": session.id,
            "modes": self._modes(session),
            "configOptions": self.extras.config_options(session),
        }

    async def _resume_session(self, params: JsonObject) -> JsonObject:
        """v2 `session/resume` (without replay: the client kept the conversation)."""
        self._require_auth()
        session_id, cwd = params.get("sessionId"), self._cwd(params)
        if not isinstance(session_id, str) or not session_id:
            raise RpcError(INVALID_PARAMS, "sessionId must be a string")
        session = self.sessions.setdefault(session_id, Session(id=session_id, cwd=cwd))
        session.cwd = cwd
        return {"configOptions": v2.config_options(session)}

    async def _set_config_option(self, params: JsonObject) -> JsonObject:
        session = self.session(params)
        if params.get("configId") != v2.MODE_CONFIG_ID:
            raise RpcError(INVALID_PARAMS, f"Unknown config option: {params.get('configId')!r}")
        mode = params.get("value")
        if mode not in {m["id"] for m in content.MODES}:
            raise RpcError(INVALID_PARAMS, f"Unknown mode: {mode!r}")
        session.mode = str(mode)
        return {"configOptions": v2.config_options(session)}

    async def _load_session(self, params: JsonObject) -> JsonObject:
        self._require_auth()
        session_id, cwd = params.get("sessionId"), self._cwd(params)
        if not isinstance(session_id, str) or not session_id:
            raise RpcError(INVALID_PARAMS, "sessionId must be a string")
        session = self.sessions.get(session_id)
        if session is None:
            session = self.sessions[session_id] = Session(id=session_id, cwd=cwd)
        session.cwd = cwd
        for role, text in session.history:
            kind = "user_message_chunk" if role == "user" else "agent_message_chunk"
            await self.update(session, {"sessionUpdate": kind, "content": text_block(text)})
        return {"modes": self._modes(session), "configOptions": self.extras.config_options(session)}

    async def _announce(self, session: Session) -> None:
        commands = [{"name": name, "description": description}
                    for name, description in content.COMMANDS]
        await self.update(session, {"sessionUpdate": "available_commands_update",
                                    "availableCommands": commands})
        await self.update(session, {"sessionUpdate": "session_info_update",
                                    "title": content.SESSION_TITLE, "updatedAt": _now()})

    def session(self, params: JsonObject) -> Session:
        session = self.sessions.get(params.get("sessionId"))  # type: ignore[arg-type]
        if session is None:
            raise RpcError(INVALID_PARAMS, f"Unknown session: {params.get('sessionId')!r}")
        return session

    async def _set_mode(self, params: JsonObject) -> JsonObject:
        session = self.session(params)
        mode = params.get("modeId")
        if mode not in {m["id"] for m in content.MODES}:
            raise RpcError(INVALID_PARAMS, f"Unknown mode: {mode!r}")
        session.mode = str(mode)
        return {}

    async def _prompt(self, params: JsonObject) -> JsonObject:
        session = self.session(params)
        prompt = params.get("prompt")
        if not isinstance(prompt, list):
            raise RpcError(INVALID_PARAMS, "prompt must be a list of content blocks")
        if self.protocol >= 2:
            return await self._prompt_v2(session, prompt)
        if session.turn is not None and not session.turn.done():
            raise RpcError(INVALID_REQUEST, "A prompt turn is already running in this session")
        text = _first_text(prompt)
        turn = Turn(self, session, prompt)
        task = asyncio.ensure_future(turn.run(text))
        session.turn = task
        try:
            stop_reason = await task
        except (asyncio.CancelledError, TurnCancelled):
            ended_by_client = task.done() and (
                task.cancelled() or isinstance(task.exception(), TurnCancelled))
            if not ended_by_client:  # we ourselves are being cancelled (shutting down)
                raise
            await turn.fail_open_tool_calls("Cancelled by the user")
            stop_reason = "cancelled"
        finally:
            if session.turn is task:
                session.turn = None
            session.history.append(("user", text))
            if turn.said:
                session.history.append(("agent", "".join(turn.said)))
            self.extras.touch(session)
        return {"stopReason": stop_reason}

    # ---- v2: the prompt lifecycle ------------------------------------------------------------

    async def _prompt_v2(self, session: Session, prompt: list[Any]) -> JsonObject:
        """Accept now when idle (the turn runs on); during a turn, accept when a break point
        takes it. A `$/cancel_request` before that withdraws it from the inbox."""
        text = _first_text(prompt)
        if session.turn is None or session.turn.done():
            session.turn = self._spawn(self._turns_v2(session, text, prompt))
            return {}
        inbox = self.v2_states.setdefault(session.id, v2.V2State()).inbox
        taken: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (text, taken)
        inbox.waiting.append(entry)
        try:
            await taken
        finally:
            if entry in inbox.waiting:
                inbox.waiting.remove(entry)
        return {}

    async def _user_message(self, session: Session, text: str) -> None:
        state = self.v2_states.setdefault(session.id, v2.V2State())
        await self.update(session, {"sessionUpdate": "user_message",
                                    "messageId": state.new_id("user"),
                                    "content": [text_block(text)]})
        state.last_kind = None
        session.history.append(("user", text))

    async def _turns_v2(self, session: Session, text: str, prompt: list[Any]) -> str:
        """Run turns while prompts keep coming: running → … → idle with the stop reason."""
        state = self.v2_states.setdefault(session.id, v2.V2State())
        await self.update(session, {"sessionUpdate": "state_update", "state": "running"})
        await self._user_message(session, text)
        stop_reason = "end_turn"
        while True:
            turn = Turn(self, session, prompt)
            try:
                stop_reason = await turn.run(text)
            except (asyncio.CancelledError, TurnCancelled):
                await turn.fail_open_tool_calls("Cancelled by the user")
                stop_reason = "cancelled"
            if turn.said:
                session.history.append(("agent", "".join(turn.said)))
            if stop_reason == "cancelled" or not state.inbox.waiting:
                break
            text, taken = state.inbox.waiting.pop(0)
            prompt = [text_block(text)]
            taken.set_result(None)
            await self._user_message(session, text)
        await self.update(session, {"sessionUpdate": "state_update", "state": "idle",
                                    "stopReason": stop_reason})
        return stop_reason

    async def break_point(self, session: Session, turn: Turn) -> None:
        """v2: take the prompts that arrived during the turn, and answer them right here."""
        if self.protocol < 2:
            return
        inbox = self.v2_states.setdefault(session.id, v2.V2State()).inbox
        while inbox.waiting:
            text, taken = inbox.waiting.pop(0)
            taken.set_result(None)
            await self._user_message(session, text)
            await turn.say(f"Taking your message now, mid-turn: *{text.strip()[:60]}*. "
                           "Noted; I'll carry on with the tour.\n")

    async def crash(self, exit_code: int, stderr_lines: list[str]) -> None:
        """`/crash`: our output is already flushed (every send drains); say why and die."""
        for line in stderr_lines:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()
        os._exit(exit_code)

    def cancel_turn(self, session_id: Any) -> None:
        session = self.sessions.get(session_id) if isinstance(session_id, str) else None
        if session is not None and session.turn is not None:
            session.turn.cancel()


async def _run() -> None:
    stdio = StdioLines()
    await stdio.open()
    agent = DemoAgent(stdio.write, speed=delay_scale(),
                      auth_required=os.environ.get("ACP_TUI_DEMO_AUTH") == "1")
    await agent.serve(stdio.read_line)


def main() -> int:
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_run())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

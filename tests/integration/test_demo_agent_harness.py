"""A minimal ACP client for testing the demo agent over real pipes (no acp-tui code involved).

`DemoClient` spawns `python -m acp_tui.demo.agent`, validates every frame the agent sends
against the ACP schema (`AgentFrameValidator`), answers the agent's fs/terminal/permission
requests with overridable handlers, and records everything in arrival order.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Awaitable, Callable
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from tests.schema_check import FrameValidator, schema_defs

TIMEOUT = 10.0
REPO_ROOT = Path(__file__).resolve().parents[2]

AGENT_REQUEST_PARAMS = {
    "fs/read_text_file": "ReadTextFileRequest",
    "fs/write_text_file": "WriteTextFileRequest",
    "session/request_permission": "RequestPermissionRequest",
    "terminal/create": "CreateTerminalRequest",
    "terminal/output": "TerminalOutputRequest",
    "terminal/release": "ReleaseTerminalRequest",
    "terminal/wait_for_exit": "WaitForTerminalExitRequest",
    "terminal/kill": "KillTerminalRequest",
}
AGENT_RESULTS = {
    "initialize": "InitializeResponse",
    "authenticate": "AuthenticateResponse",
    "session/new": "NewSessionResponse",
    "session/load": "LoadSessionResponse",
    "session/set_mode": "SetSessionModeResponse",
    "session/prompt": "PromptResponse",
    "session/list": "ListSessionsResponse",
    "session/resume": "ResumeSessionResponse",
    "session/close": "CloseSessionResponse",
    "session/set_config_option": "SetSessionConfigOptionResponse",
}
UNSTABLE_UPDATES = {
    "plan_update", "plan_removed", "subagent_update", "session_message", "session_message_chunk"
}  # fmt: skip
TEXT_CHUNKS = {"agent_message_chunk", "agent_thought_chunk", "user_message_chunk"}


@cache
def _validator(definition: str, unstable: bool = False) -> Draft202012Validator:
    defs = schema_defs(unstable=unstable)
    return Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": defs})


def check(definition: str, value: Any, what: str, *, unstable: bool = False) -> None:
    errors = list(_validator(definition, unstable).iter_errors(value))
    if errors:
        details = "; ".join(f"{list(e.path)}: {e.message[:200]}" for e in errors[:3])
        raise AssertionError(f"{what} does not match {definition}: {details}\n{value!r:.500}")


class AgentFrameValidator:
    """Checks each frame the agent sends against the exact ACP v1 shape its method calls for."""

    def __init__(self) -> None:
        self.client_requests: dict[str, str] = {}  # json(id) -> method, of requests we sent
        self.checked = 0
        self.chunks_seen: dict[str, int] = {}

    def client_sent(self, frame: dict[str, Any]) -> None:
        if "method" in frame and "id" in frame:
            self.client_requests[json.dumps(frame["id"])] = frame["method"]

    def agent_sent(self, frame: Any) -> None:
        assert isinstance(frame, dict), frame
        assert frame.get("jsonrpc") == "2.0", frame
        method = frame.get("method")
        if method is not None and "id" in frame:
            check("AgentRequest", frame, "agent request")
            assert method in AGENT_REQUEST_PARAMS, f"agent sent unknown request {method}"
            check(AGENT_REQUEST_PARAMS[method], frame["params"], f"params of {method}")
        elif method == "session/update":
            kind = frame["params"]["update"].get("sessionUpdate")
            seen = self.chunks_seen[kind] = self.chunks_seen.get(kind, 0) + 1
            if kind in TEXT_CHUNKS and seen > 200 and seen % 50:
                return  # long streams: every chunk of the first 200, then every 50th (speed)
            check("AgentNotification", frame, "agent notification")
            unstable = kind in UNSTABLE_UPDATES
            check("SessionNotification", frame["params"], "session/update", unstable=unstable)
        elif method == "$/cancel_request":
            check("CancelRequestNotification", frame["params"], "$/cancel_request")
        elif method is not None:
            raise AssertionError(f"agent sent unknown notification {method}")
        else:
            check("AgentResponse", frame, "agent response")
            asked = self.client_requests.pop(json.dumps(frame["id"]), None)
            if "error" in frame:
                check("Error", frame["error"], "error")
            elif asked is not None:
                check(AGENT_RESULTS[asked], frame["result"], f"result of {asked}")
            else:
                raise AssertionError(f"agent answered an id we never used: {frame!r}")
        self.checked += 1


Handler = Callable[[dict[str, Any]], Awaitable[Any]]


class ClientError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


class DemoClient:
    """Speaks to one demo agent subprocess. Use `async with DemoClient.spawn(...)`."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.validator = AgentFrameValidator()
        self.client_validator = FrameValidator()
        self.frames: list[dict[str, Any]] = []  # every frame from the agent, in order
        self.stderr = bytearray()
        self.terminal_output = "total 8\ndrwxr-xr-x 2 demo demo 4096 README.md\n"
        self.handlers: dict[str, Handler] = {
            "fs/read_text_file": self._read,
            "fs/write_text_file": self._write,
            "session/request_permission": self._permission,
            "terminal/create": self._terminal("terminal/create", {"terminalId": "term-1"}),
            "terminal/wait_for_exit": self._terminal("terminal/wait_for_exit", {"exitCode": 0}),
            "terminal/output": self._terminal("terminal/output", None),
            "terminal/release": self._terminal("terminal/release", {}),
        }
        self.writes: list[dict[str, Any]] = []
        self.permission_option = "allow-once"
        self._next_id = 0
        self._answers: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._arrived = asyncio.Condition()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._reader = asyncio.ensure_future(self._read_frames())
        self._stderr_reader = asyncio.ensure_future(self._drain_stderr())
        self.validation_errors: list[BaseException] = []

    @classmethod
    @contextlib.asynccontextmanager
    async def spawn(cls, **env: str):
        environment = {**os.environ, "ACP_TUI_DEMO_SPEED": "0", **env}
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "acp_tui.demo.agent",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=environment,
            cwd=REPO_ROOT,
        )
        client = cls(process)
        try:
            yield client
            assert not client.validation_errors, client.validation_errors[0]
        finally:
            await client.close()

    async def close(self) -> None:
        if self.process.stdin is not None and not self.process.stdin.is_closing():
            self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), TIMEOUT)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
        for task in (self._reader, self._stderr_reader, *self._tasks):
            task.cancel()
        await asyncio.gather(
            self._reader, self._stderr_reader, *self._tasks, return_exceptions=True
        )

    # ---- sending ---------------------------------------------------------------------------

    async def send(self, frame: dict[str, Any]) -> None:
        self.client_validator.outgoing(frame)
        self.validator.client_sent(frame)
        await self.send_raw(json.dumps(frame).encode())

    async def send_raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data + b"\n")
        await self.process.stdin.drain()

    async def start_request(self, method: str, params: Any) -> asyncio.Future[dict[str, Any]]:
        """Send a request; the future resolves to the agent's whole response frame."""
        self._next_id += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._answers[self._next_id] = future
        await self.send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        return future

    async def request(self, method: str, params: Any) -> dict[str, Any]:
        future = await self.start_request(method, params)
        return await asyncio.wait_for(future, TIMEOUT)

    async def notify(self, method: str, params: dict[str, Any]) -> None:
        await self.send({"jsonrpc": "2.0", "method": method, "params": params})

    async def initialize(
        self,
        *,
        read: bool = True,
        write: bool = True,
        terminal: bool = True,
        **more: Any,
    ) -> dict[str, Any]:
        """`initialize`, offering the file system and terminals as said, and `more` client
        capabilities (`subagents={}`, `session={"notices": {}}`)."""
        answer = await self.request(
            "initialize",
            {
                "protocolVersion": 1,
                "clientCapabilities": {
                    "fs": {"readTextFile": read, "writeTextFile": write},
                    "terminal": terminal,
                    **more,
                },
            },
        )
        return answer["result"]  # type: ignore[no-any-return]

    async def new_session(self, cwd: Path) -> str:
        answer = await self.request("session/new", {"cwd": str(cwd), "mcpServers": []})
        return answer["result"]["sessionId"]  # type: ignore[no-any-return]

    async def prompt(self, session_id: str, text: str) -> dict[str, Any]:
        return await self.request(
            "session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}
        )

    # ---- receiving -------------------------------------------------------------------------

    def updates(self, kind: str | None = None) -> list[dict[str, Any]]:
        found = [f["params"]["update"] for f in self.frames if f.get("method") == "session/update"]
        return [u for u in found if kind is None or u["sessionUpdate"] == kind]

    def requests(self, method: str) -> list[dict[str, Any]]:
        return [f for f in self.frames if f.get("method") == method and "id" in f]

    async def wait_for(self, predicate: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first frame (already arrived or arriving) that satisfies `predicate`."""

        async def first() -> dict[str, Any]:
            async with self._arrived:
                while True:
                    for frame in self.frames:
                        if predicate(frame):
                            return frame
                    await self._arrived.wait()

        return await asyncio.wait_for(first(), TIMEOUT)

    async def _read_frames(self) -> None:
        assert self.process.stdout is not None
        while line := await self.process.stdout.readline():
            frame = json.loads(line)
            try:
                self.validator.agent_sent(frame)
            except AssertionError as error:
                self.validation_errors.append(error)
            async with self._arrived:
                self.frames.append(frame)
                self._arrived.notify_all()
            if "method" in frame and "id" in frame:
                self.client_validator.incoming(frame)
                task = asyncio.ensure_future(self._answer(frame))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            elif "method" not in frame and frame.get("id") in self._answers:
                self._answers.pop(frame["id"]).set_result(frame)

    async def _drain_stderr(self) -> None:
        assert self.process.stderr is not None
        while chunk := await self.process.stderr.read(4096):
            self.stderr += chunk

    async def _answer(self, frame: dict[str, Any]) -> None:
        handler = self.handlers.get(frame["method"])
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": frame["id"]}
        try:
            if handler is None:
                raise ClientError(-32601, f"Method not found: {frame['method']}")
            reply["result"] = await handler(frame["params"])
        except ClientError as error:
            reply["error"] = {"code": error.code, "message": error.message}
        with contextlib.suppress(ConnectionResetError, BrokenPipeError):
            await self.send(reply)

    # ---- default handlers -------------------------------------------------------------------

    async def _read(self, params: dict[str, Any]) -> dict[str, Any]:
        try:
            return {"content": await asyncio.to_thread(Path(params["path"]).read_text)}
        except OSError as error:
            raise ClientError(-32002, f"Resource not found: {error.strerror}") from None

    async def _write(self, params: dict[str, Any]) -> dict[str, Any]:
        self.writes.append(params)
        return {}

    async def _permission(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"outcome": {"outcome": "selected", "optionId": self.permission_option}}

    def _terminal(self, method: str, result: dict[str, Any] | None) -> Handler:
        async def handle(params: dict[str, Any]) -> dict[str, Any]:
            if result is None:
                return {
                    "output": self.terminal_output,
                    "truncated": False,
                    "exitStatus": {"exitCode": 0},
                }
            return result

        return handle


def is_update(update_kind: str, **fields: Any) -> Callable[[dict[str, Any]], bool]:
    """A frame predicate: a session/update of `update_kind` whose fields equal `fields`."""

    def match(frame: dict[str, Any]) -> bool:
        if frame.get("method") != "session/update":
            return False
        update = frame["params"]["update"]
        return update["sessionUpdate"] == update_kind and all(
            update.get(k) == v for k, v in fields.items()
        )

    return match


def tool_statuses(client: DemoClient) -> dict[str, list[str]]:
    """toolCallId -> the statuses it went through, in order."""
    statuses: dict[str, list[str]] = {}
    for update in client.updates():
        if update["sessionUpdate"] in ("tool_call", "tool_call_update") and "status" in update:
            statuses.setdefault(update["toolCallId"], []).append(update["status"])
    return statuses


def frame_index(client: DemoClient, predicate: Callable[[dict[str, Any]], bool]) -> int:
    """The index of the first frame `client` saw that matches `predicate`."""
    return next(i for i, frame in enumerate(client.frames) if predicate(frame))


def request_frame(method: str) -> Callable[[dict[str, Any]], bool]:
    """A frame predicate: a request (not a notification) for `method`."""
    return lambda frame: frame.get("method") == method and "id" in frame


def tool_call_update(kind: str) -> Callable[[dict[str, Any]], bool]:
    """A frame predicate: a tool_call update of `kind`."""
    return is_update("tool_call", kind=kind)

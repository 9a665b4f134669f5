"""The demo ACP agent behind `acp-tui --demo`: run it as `python -m acp_tui.demo.agent`.

A real agent subprocess speaking ACP v1 (JSON-RPC 2.0, one JSON object per line on stdin/stdout)
with no network and no key. It is deliberately self-contained (asyncio + stdlib): it is "the
other side" of the protocol, so it shares no code with acp-tui's own protocol layer.

Environment: `ACP_TUI_DEMO_SPEED` multiplies every delay (default 1.0, 0 = no delays);
`ACP_TUI_DEMO_AUTH=1` makes `session/new` and `session/load` fail with -32000 until the client
called `authenticate` with `demo-login`. This module is the ACP methods; the wire is
`acp_tui.demo.peer`, what a prompt turn does `acp_tui.demo.turn`, the words it says
`acp_tui.demo.content`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from acp_tui import __version__
from acp_tui.demo import content, v2
from acp_tui.demo.peer import INVALID_PARAMS, INVALID_REQUEST, RpcPeer, StdioLines
from acp_tui.demo.session_extras import SESSION_CAPABILITIES, SessionExtras
from acp_tui.demo.turn import Turn
from acp_tui.demo.turn_api import JsonObject, RpcError, Session, TurnCancelled, text_block
from acp_tui.protocol import methods

AUTH_REQUIRED = -32000


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


class DemoAgent(RpcPeer):
    """The ACP methods of the demo agent (the wire is `RpcPeer`'s)."""

    def __init__(
        self,
        write: Callable[[bytes], Awaitable[None]],
        *,
        speed: float = 1.0,
        auth_required: bool = False,
    ) -> None:
        super().__init__(write)
        self.speed = speed
        self._authenticated = not auth_required
        self.client_capabilities: JsonObject = {}
        self.protocol = 1
        """1, or 2 when the client offered v2 (and ACP_TUI_DEMO_V1_ONLY is not set)."""
        self.v1_only = os.environ.get("ACP_TUI_DEMO_V1_ONLY") == "1"
        self.v2_states: dict[str, v2.V2State] = {}
        self.sessions: dict[str, Session] = {}
        self._handlers.update(
            {
                methods.INITIALIZE: self._initialize,
                methods.AUTHENTICATE: self._authenticate,
                methods.SESSION_NEW: self._new_session,
                methods.SESSION_LOAD: self._load_session,
                methods.SESSION_SET_MODE: self._set_mode,
                methods.SESSION_PROMPT: self._prompt,
                methods.AUTH_LOGIN: self._authenticate,
                methods.SESSION_RESUME: self._resume_session,
                methods.SESSION_SET_CONFIG_OPTION: self._set_config_option,
                methods.TOOL_CALL_CANCEL: self._cancel_tool_call,
                methods.TERMINAL_CANCEL: self._cancel_terminal,
            }
        )
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

    async def answered(self, method: str, params: JsonObject, result: JsonObject) -> None:
        if method in (methods.SESSION_NEW, methods.SESSION_RESUME) and self.protocol >= 2:
            session = self.sessions[result.get("sessionId") or params["sessionId"]]
            await self._announce(session)
            if method == methods.SESSION_NEW:  # v2: an agent may speak first
                await self.update(
                    session,
                    {"sessionUpdate": "agent_message_chunk", "content": text_block(v2.GREETING)},
                )
        elif method == methods.SESSION_NEW:
            await self._announce(self.sessions[result["sessionId"]])
        elif method in (methods.SESSION_LOAD, methods.SESSION_RESUME):
            await self._announce(self.sessions[params["sessionId"]])
        elif method == methods.SESSION_SET_MODE:
            session = self.sessions[params["sessionId"]]
            await self.update(
                session, {"sessionUpdate": "current_mode_update", "currentModeId": session.mode}
            )

    async def update(self, session: Session, update: JsonObject) -> None:
        """Send a session/update (converted to the v2 draft's messages when the client speaks
        v2).
        """
        if self.protocol >= 2:
            state = self.v2_states.setdefault(session.id, v2.V2State())
            converted = v2.to_v2(state, session, update)
            if converted is None:
                return
            update = converted
        await self.send(
            {
                "jsonrpc": "2.0",
                "method": methods.SESSION_UPDATE,
                "params": {"sessionId": session.id, "update": update},
            }
        )

    def v2_state(self, session: Session) -> v2.V2State:
        """The session's v2 state (message ids, inbox, background work)."""
        return self.v2_states.setdefault(session.id, v2.V2State())

    def state_update(self, session: Session, state: str, **fields: Any) -> JsonObject:
        """A v2 state snapshot, with the session's background work (the whole list)."""
        work = list(self.v2_state(session).background)
        return {"sessionUpdate": "state_update", "state": state, **fields, "background": work}

    async def request(self, method: str, params: JsonObject) -> Any:
        """Ask the client; other frames keep flowing while we wait for the answer with our id.

        v2: while a permission request waits, the session `requires_action`.
        """
        session = self.sessions.get(params.get("sessionId"))  # type: ignore[arg-type]
        if self.protocol >= 2 and method == methods.SESSION_REQUEST_PERMISSION and session:
            await self.update(session, self.state_update(session, "requires_action"))
            try:
                return await self._request(method, params)
            finally:
                if session.turn is not None and not session.turn.done():
                    await self.update(session, self.state_update(session, "running"))
        return await self._request(method, params)

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
            "agentInfo": {
                "name": content.AGENT_NAME,
                "title": "acp-tui demo agent",
                "version": __version__,
            },
            "agentCapabilities": {
                "loadSession": True,
                "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
                "sessionCapabilities": SESSION_CAPABILITIES,
            },
            "authMethods": [
                {
                    "id": content.AUTH_METHOD_ID,
                    "name": "Demo login",
                    "description": "Pretend to log in (no key needed)",
                }
            ],
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
        if self.protocol >= 2:  # the current draft: the commands come with the answer
            return {
                "sessionId": session.id,
                "configOptions": v2.config_options(session),
                "availableCommands": v2.commands(),
            }
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
        return {"configOptions": v2.config_options(session), "availableCommands": v2.commands()}

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
        if self.protocol < 2:  # (v2: in the session/new or resume answer)
            commands = [
                {"name": name, "description": description} for name, description in content.COMMANDS
            ]
            await self.update(
                session,
                {"sessionUpdate": "available_commands_update", "availableCommands": commands},
            )
        await self.update(
            session,
            {
                "sessionUpdate": "session_info_update",
                "title": content.SESSION_TITLE,
                "updatedAt": _now(),
            },
        )

    def session(self, params: JsonObject) -> Session:
        """The session named by the request's sessionId; an RPC error for an unknown one."""
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
                task.cancelled() or isinstance(task.exception(), TurnCancelled)
            )
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
        state = self.v2_states.setdefault(session.id, v2.V2State())
        message_id = state.new_id("user")  # the answer names the user message it became
        if session.turn is None or session.turn.done():
            session.turn = self._spawn(self._turns_v2(session, text, prompt, message_id))
            return {"messageId": message_id}
        inbox = state.inbox
        taken: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (text, taken, message_id)
        inbox.waiting.append(entry)
        try:
            await taken
        finally:
            if entry in inbox.waiting:
                inbox.waiting.remove(entry)
        return {"messageId": message_id}

    async def _user_message(self, session: Session, text: str, message_id: str) -> None:
        state = self.v2_states.setdefault(session.id, v2.V2State())
        await self.update(
            session,
            {
                "sessionUpdate": "user_message",
                "messageId": message_id,
                "content": [text_block(text)],
            },
        )
        state.last_kind = None
        session.history.append(("user", text))

    async def _turns_v2(
        self, session: Session, text: str, prompt: list[Any], message_id: str
    ) -> str:
        """Run turns while prompts keep coming: running → … → idle with the stop reason."""
        state = self.v2_states.setdefault(session.id, v2.V2State())
        await self.update(session, self.state_update(session, "running"))
        await self._user_message(session, text, message_id)
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
            text, taken, message_id = state.inbox.waiting.pop(0)
            prompt = [text_block(text)]
            taken.set_result(None)
            await self._user_message(session, text, message_id)
        state.stop_reason = stop_reason
        await self.update(session, self.state_update(session, "idle", stopReason=stop_reason))
        return stop_reason

    async def break_point(self, session: Session, turn: Turn) -> None:
        """v2: take the prompts that arrived during the turn, and answer them right here."""
        if self.protocol < 2:
            return
        inbox = self.v2_states.setdefault(session.id, v2.V2State()).inbox
        while inbox.waiting:
            text, taken, message_id = inbox.waiting.pop(0)
            taken.set_result(None)
            await self._user_message(session, text, message_id)
            await turn.say(
                f"Taking your message now, mid-turn: *{text.strip()[:60]}*. "
                "Noted; I'll carry on with the tour.\n"
            )

    # ---- v2: stopping background work -----------------------------------------------------

    async def _cancel_tool_call(self, params: JsonObject) -> JsonObject:
        """`tool_call/cancel`: stop the background task if it is the one named (it confirms
        with the call's `cancelled` status)."""
        session = self.session(params)
        stop = self.v2_states.setdefault(session.id, v2.V2State()).stoppable.get(
            str(params.get("toolCallId"))
        )
        if stop is None:
            raise RpcError(INVALID_PARAMS, "Unknown, finished or not cancellable tool call")
        stop()
        return {}

    async def _cancel_terminal(self, params: JsonObject) -> JsonObject:
        """`terminal/cancel`: the demo's terminals never offer it."""
        self.session(params)
        raise RpcError(INVALID_PARAMS, "Unknown, exited or not cancellable terminal")

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
    agent = DemoAgent(
        stdio.write, speed=delay_scale(), auth_required=os.environ.get("ACP_TUI_DEMO_AUTH") == "1"
    )
    await agent.serve(stdio.read_line)


def main() -> int:
    """Run the demo agent on stdio until its input ends (`python -m acp_tui.demo.agent`)."""
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_run())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

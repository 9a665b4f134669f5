"""The v2 prompt lifecycle of an `AgentSession` (ACP v2 draft).

`session/prompt` is answered when the agent accepts the prompt; the turn itself is the thread's
state (`state_update`). So a prompt is sent at once, also while a turn runs: the agent decides
when to take it. A prompt sent while idle is shown at once; one sent during a turn waits in the
queue (`AgentSession.queue`) until the agent's `user_message` with the same text places it in
the conversation. Until then it can be withdrawn (its request is cancelled with
`$/cancel_request`) and so edited. Modes are the config option of category `mode`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from acp_tui.client.events import Notice, QueuedPrompt, SessionState
from acp_tui.client.session.core import DrivenSession
from acp_tui.client.session.permission_route import request_permission
from acp_tui.protocol import methods
from acp_tui.protocol.agent_api import text_prompt
from acp_tui.protocol.connection import Connection, ConnectionClosed, RequestHandler
from acp_tui.protocol.errors import METHOD_NOT_FOUND, RpcError
from acp_tui.protocol.models import (
    SessionConfigSelect,
    SessionMode,
    SessionModeState,
    TextContent,
)
from acp_tui.protocol.models.v2 import RequestPermissionRequestV2
from acp_tui.protocol.router import Router, v2_client_requests
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.entries import MessageEntry
from acp_tui.thread.v2.updates import PendingPrompt, V2Reducer

log = logging.getLogger(__name__)

MODE_CATEGORY = "mode"


class V2Driver:
    """Prompts, queue, cancel and modes of one v2 session; the thread's updates go to `reducer`."""

    def __init__(self, session: DrivenSession) -> None:
        self.session = session
        self.reducer = V2Reducer(
            session.thread, on_placed=self._placed, on_terminal_cancel=self._cancel_terminal
        )
        self._requests: dict[int, asyncio.Task[None]] = {}
        self._unsubscribe = session.thread.subscribe(self._on_change)
        self._unsubscribe_state = session.state_changed.subscribe(self._on_session_state)

    def _on_session_state(self, state: SessionState) -> None:
        """Ready: prompts typed while starting go out. The agent died mid-turn: no idle will
        come, the turn ended with an error."""
        if state is SessionState.READY:
            self.send_waiting()
        if (
            state in (SessionState.CRASHED, SessionState.FAILED)
            and self.session.thread.turn_running
        ):
            self.session.thread.set_state("idle", "error")

    # ---- prompts ----------------------------------------------------------------------------

    def submit(self, text: str) -> QueuedPrompt | None:
        """Send a prompt as a v2 message when the session is ready or running; None: the caller
        queues it.
        """
        session = self.session
        if session.state not in (SessionState.READY, SessionState.RUNNING):
            return None  # (the caller queues it like v1: sent once the session is ready)
        thread = session.thread
        key = session.prompts.next_id()
        if not thread.turn_running and not self._requests:
            entry = thread.add_user_prompt([TextContent(text=text)])
            self.reducer.expect_prompt(key, text, entry)
            self._send(key, text)
            return None
        item = session.prompts.add(text, item_id=key, sent=True)
        self.reducer.expect_prompt(key, text)
        self._send(key, text)
        return item

    def send_waiting(self) -> None:
        """Prompts queued while the session was not ready go out now (all at once, in order)."""
        for item in list(self.session.prompts.items):
            if not item.sent:
                item.sent = True
                self.reducer.expect_prompt(item.id, item.text)
                self._send(item.id, item.text)

    def _send(self, key: int, text: str) -> None:
        self._requests[key] = self.session.tasks.spawn(f"v2 prompt {key}", self._prompt(key, text))

    async def _prompt(self, key: int, text: str) -> None:
        session = self.session
        connection = session.connection
        try:
            if connection is None or session.session_id is None:
                raise ConnectionClosed("no session")
            await session.api.submit_prompt(session.session_id, text_prompt(text))
        except RpcError as error:
            session.notices.emit(Notice(f"The agent refused the prompt: {error.message}", "error"))
            self._drop(key)
        except ConnectionClosed:
            self._drop(key)
        finally:
            self._requests.pop(key, None)

    def withdraw(self, item_id: int) -> bool:
        """Take a queued prompt back (to edit or drop it). False if the agent already took it."""
        session = self.session
        task = self._requests.get(item_id)
        if task is None and any(i.id == item_id and i.sent for i in session.prompts.items):
            session.notices.emit(
                Notice("The agent has already accepted that prompt; it stays queued.", "warning")
            )
            return False
        if task is not None:
            task.cancel()  # the connection sends $/cancel_request for it
        self._drop(item_id)
        return True

    def _drop(self, key: int) -> None:
        self.reducer.forget_prompt(key)
        session = self.session
        if key in session.prompts:
            session.prompts.remove(key)

    def _placed(self, pending: PendingPrompt, entry: MessageEntry) -> None:
        """The agent's user_message placed a prompt: it leaves the queue."""
        session = self.session
        if pending.key in session.prompts:
            session.prompts.remove(pending.key)

    # ---- the turn -------------------------------------------------------------------------

    async def cancel(self) -> None:
        """Cancel the running turn (its unfinished tool calls are marked cancelled first)."""
        session = self.session
        if not session.thread.turn_running or session.connection is None:
            return
        session.thread.cancel_unfinished_tool_calls()
        session.permissions.cancel_all()
        if session.session_id is None:
            return
        with contextlib.suppress(ConnectionClosed):
            await session.api.cancel(session.session_id)

    def _on_change(self, change: ch.Change) -> None:
        session = self.session
        if isinstance(change, ch.TurnStateChanged):
            if change.running and session.state is SessionState.READY:
                session.set_state(SessionState.RUNNING)
            elif not change.running:
                if session.state is SessionState.RUNNING:
                    session.set_state(SessionState.READY)
                # prompts shown at once that the agent never echoed are done
                self.reducer.pending = [p for p in self.reducer.pending if p.entry is None]
        elif isinstance(change, ch.ConfigOptionsChanged):
            self._modes_from_config()

    # ---- background work: tool calls and terminals that offer cancel -----------------------

    async def cancel_tool_call(self, tool_call_id: str) -> str | None:
        """Ask the agent to stop a tool call that offers it (`tool_call/cancel`); why it could
        not, or None (the call's final status comes as an update)."""
        session = self.session
        entry = session.thread.tool_calls.get(tool_call_id)
        if entry is None or not entry.can_cancel:
            return "the agent does not offer to stop this tool call"
        if session.session_id is None:
            return "no session"
        try:
            await session.api.cancel_tool_call(session.session_id, tool_call_id)
        except RpcError as error:
            return error.message
        except ConnectionClosed:
            return "the agent is not running"
        return None

    def _cancel_terminal(self, terminal_id: str) -> None:
        session = self.session
        if session.session_id is None:
            return
        session_id = session.session_id

        async def cancel() -> None:
            try:
                await session.api.cancel_terminal(session_id, terminal_id)
            except RpcError as error:
                session.notices.emit(Notice(f"The terminal was not stopped: {error.message}"))
            except ConnectionClosed:
                pass

        session.tasks.spawn(f"v2 terminal/cancel {terminal_id}", cancel())

    # ---- modes ------------------------------------------------------------------------------

    def mode_option(self) -> SessionConfigSelect | None:
        """The config option that holds the session's mode, if the agent offers one."""
        options = self.session.thread.config_options
        return next(
            (
                o
                for o in options
                if isinstance(o, SessionConfigSelect) and o.category == MODE_CATEGORY
            ),
            None,
        )

    def _modes_from_config(self) -> None:
        option = self.mode_option()
        thread = self.session.thread
        if option is None:
            if thread.modes:
                thread.set_modes(None)
            return
        modes = [
            SessionMode(id=o.value, name=o.name, description=o.description)
            for o in option.flat_options()
        ]
        state = SessionModeState(current_mode_id=option.current_value, available_modes=modes)
        if [m.id for m in thread.modes] != [m.id for m in modes]:
            thread.set_modes(state)
        else:
            thread.set_current_mode(option.current_value)

    async def set_mode(self, mode_id: str) -> str | None:
        """Set the mode through its config option; returns why it failed, or None."""
        session = self.session
        option = self.mode_option()
        if session.connection is None or session.session_id is None:
            return "no session"
        if option is None:
            return "the agent offers no modes"
        try:
            answer = await session.api.set_config_option(session.session_id, option.id, mode_id)
        except RpcError as error:
            return error.message
        except ConnectionClosed:
            return "the agent is not running"
        if "config_options" in answer.model_fields_set:
            session.thread.set_config_options(answer.config_options)
        else:
            session.thread.set_current_mode(mode_id)
        return None

    # ---- the agent's requests -------------------------------------------------------------

    def routes(self) -> Router:
        """The router for the agent's v2 requests (permissions, files, terminals, elicitations)."""
        router = Router(v2_client_requests())
        router.route(
            methods.SESSION_REQUEST_PERMISSION,
            RequestPermissionRequestV2,
            self._on_request_permission,
        )
        return router

    def install_routes(self, connection: Connection, v1_methods: list[str]) -> None:
        """The agent answered v2 (routes were installed for v1 before `initialize`): v2 routes
        replace them, and the methods v2 dropped are answered "method not found"."""
        for method in v1_methods:
            connection.on_request(method, _not_in_v2(method))
        self.routes().install(connection)
        connection.on_notification(methods.SESSION_UPDATE, self.reducer.apply_notification)

    async def _on_request_permission(self, params: RequestPermissionRequestV2) -> dict[str, Any]:
        # as v1's: a subagent session's request is asked here too
        session = self.session
        return await request_permission(session.thread, session.permissions, params.as_v1())

    def close(self) -> None:
        """Cancel the requests being answered and stop following the session."""
        for task in list(self._requests.values()):
            task.cancel()
        self._unsubscribe()
        self._unsubscribe_state()


def _not_in_v2(method: str) -> RequestHandler:
    async def handle(params: Any) -> Any:
        raise RpcError(METHOD_NOT_FOUND, f"{method} is not part of ACP v2")

    return handle

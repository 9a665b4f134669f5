"""The work under way as the user steers it: a prompt sent or queued, the queue, cancelling the
turn, one tool call or a subagent's work.

A part `AgentSession` owns (`AgentSession.controls`). v1's turn is `client/prompt_turn.py`
(`PromptTurns`: one turn at a time, the rest queued here); v2's is the driver
(`client/v2/session.py`: prompts sent at once, queued until the agent places them). This picks
the one the agent speaks, so the UI asks the same of either.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from acp_tui.client.events import QueuedPrompt, SessionState
from acp_tui.client.prompt_queue import PromptQueue
from acp_tui.client.prompt_turn import PromptTurns
from acp_tui.client.session.core import Caller
from acp_tui.protocol.connection import ConnectionClosed
from acp_tui.thread.thread import Thread

if TYPE_CHECKING:  # (v2 is imported once the agent speaks it: not at launch)
    from acp_tui.client.v2.session import V2Driver


class SteeredSession(Caller, Protocol):
    """What steering the work needs of the session: its turns (v1) or driver (v2), its queue,
    state and thread."""

    @property
    def v2(self) -> V2Driver | None:
        """The v2 prompt lifecycle, once the agent speaks v2."""

    @property
    def turns(self) -> PromptTurns:
        """The v1 prompt turns."""

    @property
    def prompts(self) -> PromptQueue:
        """The prompts waiting for their turn."""

    @property
    def state(self) -> SessionState:
        """The session's state."""

    @property
    def thread(self) -> Thread:
        """The conversation (v2's turn state; the subagent sessions)."""


class TurnControls:
    """Send, queue, take back and cancel, on the turn machinery the agent speaks."""

    def __init__(self, session: SteeredSession) -> None:
        self._session = session

    @property
    def turn_running(self) -> bool:
        """Whether a prompt turn is running (v1: the turn task; v2: the thread's state)."""
        session = self._session
        if session.v2 is not None:
            return session.thread.turn_running
        return session.turns.running

    def submit(self, text: str) -> QueuedPrompt | None:
        """Send a prompt now, or queue it while a turn runs; the queued item, if queued.

        v2: sent at once either way; queued (shown waiting) until the agent places it."""
        session = self._session
        if session.v2 is not None and session.v2.submit(text) is not None:
            return session.prompts.items[-1]
        if session.v2 is not None and session.state in (SessionState.READY, SessionState.RUNNING):
            return None
        return session.turns.submit(text)

    def send_queued(self) -> None:
        """The prompts sent while the session was opening go out now that it is open."""
        session = self._session
        if session.v2 is not None:
            session.v2.send_waiting()
        else:
            session.turns.send_next()

    def remove_queued(self, item_id: int) -> bool:
        """Drop a queued prompt; False if it cannot be taken back (v2: the agent accepted it)."""
        session = self._session
        if session.v2 is not None and not session.v2.withdraw(item_id):
            return False
        session.prompts.remove(item_id)
        return True

    async def cancel(self) -> None:
        """Cancel the running turn. Updates keep arriving until the prompt returns."""
        session = self._session
        if session.v2 is not None:
            await session.v2.cancel()
        else:
            await session.turns.cancel()

    async def cancel_tool_call(self, tool_call_id: str) -> str | None:
        """v2: ask the agent to stop a tool call that offers it (`tool_call/cancel`); the
        reason it cannot be, or None."""
        if self._session.v2 is None:
            return "only an ACP v2 agent can stop one tool call"
        return await self._session.v2.cancel_tool_call(tool_call_id)

    async def cancel_subagent(self, session_id: str) -> bool:
        """Cancel a subagent session's work (`session/cancel` on the child), when the child
        offers it (`capabilities.cancel`) and runs; False when it cannot be. A child is never
        prompted, loaded, resumed or closed: this is the one thing sent to it."""
        child = self._session.thread.sessions.children.get(session_id)
        if child is None or not child.can_cancel or not child.running:
            return False
        try:
            await self._session.api.cancel(session_id)
        except ConnectionClosed:
            return False
        return True

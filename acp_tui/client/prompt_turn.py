"""The v1 prompt turn of an `AgentSession`: a prompt sent now or queued while a turn runs, the
`session/prompt` request the turn is, its end (stop reason, the change monitor's last look) and
cancelling it. (v2 sends prompts at once: `v2/session.py`, `V2Driver`.)"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any, Protocol

from acp_tui.client.change_tracking import ChangeTracking
from acp_tui.client.elicitation import ElicitationBroker
from acp_tui.client.events import Notice, QueuedPrompt, SessionState
from acp_tui.client.session.core import TurnDriving
from acp_tui.composer.prompt_content import PromptCapabilities, build_prompt
from acp_tui.host.filesystem import FileSystemHost
from acp_tui.protocol.connection import ConnectionClosed
from acp_tui.protocol.errors import RpcError
from acp_tui.protocol.models import AgentCapabilities


class TurnSession(TurnDriving, Protocol):
    """What a v1 turn needs of its session besides a driver's (`TurnDriving`): the directory
    and capabilities a prompt is built for, and the host services a cancel ends."""

    phase: str

    @property
    def closing(self) -> bool:
        """Whether the session is closing (a turn must not start then)."""

    @property
    def cwd(self) -> Path:
        """The session directory."""

    @property
    def agent_capabilities(self) -> AgentCapabilities:
        """What the agent said it can do in `initialize`."""

    @property
    def changes(self) -> ChangeTracking:
        """The session's change tracking (told before a turn's end is applied)."""

    @property
    def fs(self) -> FileSystemHost:
        """The session's file host."""

    @property
    def elicitations(self) -> ElicitationBroker:
        """The session's elicitation broker (its open questions end with the turn)."""


class PromptTurns:
    """Runs one v1 turn at a time under the session's supervisor; the next queued prompt follows
    when the session is ready again."""

    def __init__(self, session: TurnSession) -> None:
        self.session = session
        self.task: asyncio.Task[None] | None = None
        """The running turn, if any."""
        self.carried: list[dict[str, Any]] = []
        """Content the next prompt starts with (a conversation continued from a message)."""

    @property
    def running(self) -> bool:
        """Whether a turn's task is running."""
        return self.task is not None and not self.task.done()

    def submit(self, text: str) -> QueuedPrompt | None:
        """Start a turn with `text`, or queue it (returned) while one runs or the session is
        not ready."""
        session = self.session
        if self.running or session.state is not SessionState.READY:
            return session.prompts.add(text)
        self._start(text)
        return None

    def send_next(self) -> None:
        """The next queued prompt, if the session is ready and no turn runs."""
        if self.session.state is SessionState.READY and not self.running:
            item = self.session.prompts.pop()
            if item is not None:
                self._start(item.text)

    def _start(self, text: str) -> None:
        self.task = self.session.tasks.spawn("turn", self._run(text))

    async def _run(self, text: str) -> None:
        session = self.session
        connection = session.connection
        if connection is None or session.session_id is None:
            return
        blocks = await self._prompt_blocks(text)
        from acp_tui.protocol.models import parse_content_block

        thread = session.thread
        thread.add_user_prompt([parse_content_block(block) for block in blocks])
        thread.begin_turn()
        session.set_state(SessionState.RUNNING)
        session.phase = "prompt"
        stop_reason: str | None = None
        try:
            await session.changes.wait_ready()
            answer = await session.api.prompt(session.session_id, blocks)
            stop_reason = answer.stop_reason
        except RpcError as error:
            message = f"The agent failed the prompt: {error.describe()}"
            session.notices.emit(Notice(message, "error"))
            stop_reason = "error"
            session.phase = "idle"
        except ConnectionClosed:  # the crash watcher reports it "during prompt"
            stop_reason = "error"
        else:
            session.phase = "idle"
        finally:
            self.task = None
            if not session.closing:
                await session.changes.before_turn_end()
            thread.end_turn(stop_reason)
            if session.state is SessionState.RUNNING:
                session.set_state(SessionState.READY)
        self.send_next()

    async def _prompt_blocks(self, text: str) -> list[dict[str, Any]]:
        """The text as typed, plus a block per @-mention (see composer/prompt_content.py),
        after what `carried` left for it."""
        carried, self.carried = self.carried, []
        session = self.session
        built = await build_prompt(
            text,
            session.cwd,
            PromptCapabilities.from_agent(session.agent_capabilities),
            lambda requested, real, links: session.fs.policy.check_resolved(
                requested, real, "read", links=links
            ),
        )
        for problem in built.problems:
            session.notices.emit(Notice(problem, "warning"))
        return [*carried, *built.blocks]

    async def cancel(self) -> None:
        """`session/cancel`: unfinished tool calls and open questions end now; updates keep
        arriving until the prompt returns."""
        session = self.session
        connection = session.connection
        if not self.running or connection is None or session.session_id is None:
            return
        session.thread.cancel_unfinished_tool_calls()
        session.permissions.cancel_all()
        session.elicitations.cancel_all()
        with contextlib.suppress(ConnectionClosed):
            await session.api.cancel(session.session_id)

    def stop(self) -> None:
        """The session closes: cancel the running turn."""
        if self.task is not None:
            self.task.cancel()

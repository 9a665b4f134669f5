"""The UI's side of `ClientUi`/`Asker`: questions become modal screens resolved by the user."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from textual.app import App
from textual.screen import Screen

from acp_tui.client.handshake import AuthMethodInfo
from acp_tui.host.asker import Asker, Question
from acp_tui.session.diff import FileDiff
from acp_tui.session.hunks import ReviewedWrite

T = TypeVar("T")


class ScreenUi:
    """Implements `acp_tui.client.ui_port.ClientUi` for a Textual app."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self._asker = _ScreenAsker(self)

    @property
    def asker(self) -> Asker:
        """Where host code asks its questions (each becomes a `QuestionScreen`)."""
        return self._asker

    async def ask_screen(self, screen: Screen[T]) -> T | None:
        """Push a screen and wait for it to be dismissed, from any coroutine on the app's loop."""
        future: asyncio.Future[T | None] = asyncio.get_running_loop().create_future()

        def done(result: T | None) -> None:
            if not future.done():
                future.set_result(result)

        self.app.push_screen(screen, callback=done)
        self.app.bell()
        return await future

    async def choose_auth_method(
        self, agent: str, methods: Sequence[AuthMethodInfo], error: str | None
    ) -> AuthMethodInfo | None:
        """Let the user pick how to log in (`AuthMethodScreen`); None gives up."""
        from acp_tui.ui.screens.auth import AuthMethodScreen

        return await self.ask_screen(AuthMethodScreen(agent, methods, error))

    async def run_login_terminal(
        self, argv: Sequence[str], env: Mapping[str, str], cwd: Path
    ) -> int | None:
        """Run the agent's login command in `LoginTerminalScreen`; its exit code, or None when
        abandoned."""
        from acp_tui.ui.screens.auth import LoginTerminalScreen

        return await self.ask_screen(LoginTerminalScreen(argv, env, str(cwd)))

    async def review_write(self, path: Path, diff: FileDiff) -> ReviewedWrite | None:
        """Show a held write in `WriteReviewScreen`; what to write, or None to reject."""
        from acp_tui.ui.screens.review_screen import WriteReviewScreen

        return await self.ask_screen(
            WriteReviewScreen(path, diff.old_text, diff.new_text, diff=diff)
        )


class _ScreenAsker:
    def __init__(self, bridge: ScreenUi) -> None:
        self.bridge = bridge

    async def ask(self, question: Question) -> str:
        from acp_tui.ui.screens.question import QuestionScreen

        answer = await self.bridge.ask_screen(QuestionScreen(question))
        # Esc means the most cautious choice, which questions list last.
        return answer if answer is not None else question.choices[-1].id

"""The UI's side of `ClientUi`/`Asker`: questions become modal screens resolved by the user.

Each session (tab) has its own `ScreenUi`, bound to the tab's Textual mode: a question of a
session in the background is not pushed over the session shown (keys typed there must never
answer it); it waits, in order, until its tab is shown (`release`), and says so (`asked_hidden`).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from textual.app import App
from textual.screen import Screen

from acp_tui.client.handshake import AuthMethodInfo
from acp_tui.host.asker import Asker, Question
from acp_tui.signal import Signal
from acp_tui.thread.diff import FileDiff
from acp_tui.thread.hunks import ReviewedWrite

T = TypeVar("T")


class ScreenUi:
    """Implements `acp_tui.client.ui_port.ClientUi` for a Textual app."""

    def __init__(self, app: App[Any], *, mode: str | None = None) -> None:
        self.app = app
        self.mode = mode
        """The Textual mode of this session's tab (None: whatever is shown, a one-session app)."""
        self._asker = _ScreenAsker(self)
        self._held: deque[tuple[Screen[Any], Callable[[Any], None], bool]] = deque()
        """Screens waiting for the tab: each with its callback and whether it asks."""
        self.pending = 0
        """Questions of this session not answered yet, shown or waiting for the tab."""
        self.changed: Signal[int] = Signal("ScreenUi.changed")
        """`pending` changed (the tab's state follows)."""
        self.asked_hidden: Signal[Screen[Any]] = Signal("ScreenUi.asked_hidden")
        """A question waits for this tab to be shown (the app notifies the user)."""

    @property
    def shown(self) -> bool:
        """This session's tab is the one on screen."""
        return self.mode is None or self.app.current_mode == self.mode

    def show(
        self, screen: Screen[T], callback: Callable[[T | None], None], *, asks: bool = True
    ) -> None:
        """Push `screen` over this session's screens now if its tab is shown, else when it is
        (`release`); `callback` gets what it is dismissed with. `asks`: the session waits on
        the user's answer (counted in `pending`: the tab "needs you"); False for a screen the
        user opened (the session picker), which waits on nobody."""
        answered = not asks

        def done(result: T | None) -> None:
            nonlocal answered
            if not answered:
                answered = True
                self._count(-1)
            callback(result)

        if asks:
            self._count(+1)
        if self.shown:
            self.app.push_screen(screen, callback=done)
        else:
            self._held.append((screen, done, asks))
            self.asked_hidden.emit(screen)

    def release(self) -> None:
        """The tab is shown now: its waiting questions go on screen, oldest first (the newest on
        top, as when they came while it was shown)."""
        while self._held and self.shown:
            screen, done, _ = self._held.popleft()
            self.app.push_screen(screen, callback=done)

    def withdraw(self, screen: Screen[Any]) -> bool:
        """Drop a screen still waiting for the tab (its asker gave up); True if it was."""
        for item in self._held:
            if item[0] is screen:
                self._held.remove(item)
                if item[2]:
                    self._count(-1)
                return True
        return False

    def _count(self, delta: int) -> None:
        self.pending += delta
        self.changed.emit(self.pending)

    @property
    def asker(self) -> Asker:
        """Where host code asks its questions (each becomes a `QuestionScreen`)."""
        return self._asker

    async def ask_screen(self, screen: Screen[T], *, asks: bool = True) -> T | None:
        """Push a screen and wait for it to be dismissed, from any coroutine on the app's loop
        (`asks`: as `show` takes it)."""
        future: asyncio.Future[T | None] = asyncio.get_running_loop().create_future()

        def done(result: T | None) -> None:
            if not future.done():
                future.set_result(result)

        self.show(screen, done, asks=asks)
        if self.shown and asks:  # (a screen the user opened needs no bell)
            self.app.bell()
        try:
            return await future
        finally:
            self.withdraw(screen)  # cancelled while waiting for the tab: nothing left behind

    async def choose_auth_method(
        self,
        agent: str,
        methods: Sequence[AuthMethodInfo],
        error: str | None,
        *,
        by_user: bool = False,
    ) -> AuthMethodInfo | None:
        """Let the user pick how to log in (`AuthMethodScreen`, worded for who asked: a login
        the user asked for waits on nobody, its tab does not say "needs you"); None gives up."""
        from acp_tui.ui.screens.auth import AuthMethodScreen

        screen = AuthMethodScreen(agent, methods, error, by_user=by_user)
        return await self.ask_screen(screen, asks=not by_user)

    async def run_login_terminal(
        self, argv: Sequence[str], env: Mapping[str, str], cwd: Path, *, by_user: bool = False
    ) -> int | None:
        """Run the agent's login command in `LoginTerminalScreen`; its exit code, or None when
        abandoned (`by_user`: a login the user asked for, which waits on nobody: its tab does
        not say "needs you")."""
        from acp_tui.ui.screens.auth import LoginTerminalScreen

        screen = LoginTerminalScreen(argv, env, str(cwd))
        return await self.ask_screen(screen, asks=not by_user)

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

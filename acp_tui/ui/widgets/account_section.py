"""The sidebar's Account section: the agent's login state and accounts (unstable `auth/status`,
`auth/status_update`, claude-agent-acp's `_auth/status_update`), with "Log in…" and "Log out…".

Shown, and its rows built, once the agent told its state. Everything drawn is agent text made
safe where it was read (`client/auth_status.py`), drawn as `Text` (never markup).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from acp_tui.ui.plain import notify

if TYPE_CHECKING:
    from acp_tui.client.auth_status import AuthStatus
    from acp_tui.client.session.facade import SessionFacade


class AccountAction(Static, can_focus=True):
    """A row that does something on Enter or a click ("Log in…", "Log out…")."""

    DEFAULT_CSS = """
    AccountAction { height: auto; padding: 0 0 0 1; }
    AccountAction:focus { background: $boost; }
    AccountAction:hover { background: $boost; }
    """
    BINDINGS = [Binding("enter", "run", "do", show=False)]

    def __init__(self, label: str, run: Callable[[], None], *, id: str) -> None:
        super().__init__(Text(label, style="bold"), id=id)
        self.run = run

    def on_click(self) -> None:
        """A click does it."""
        self.action_run()

    def action_run(self) -> None:
        """Do what the row says."""
        self.run()


class AccountSection(Vertical):
    """The agent's account and login state, and the ways to change it."""

    DEFAULT_CSS = """
    AccountSection { height: auto; }
    AccountSection #account-title { text-style: bold; color: $text-accent; margin-top: 1; }
    AccountSection #account-lines { padding: 0 0 0 1; }
    """

    def __init__(self, session: SessionFacade, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session = session
        self._unsubscribe: Callable[[], None] | None = None

    def compose(self) -> ComposeResult:
        """Nothing until the agent tells a state (`show`): most never do, and the first frame
        was built, styled and laid out with four rows nobody saw."""
        yield from ()

    def _rows(self) -> ComposeResult:
        yield Static("Account", id="account-title")
        yield Static("", id="account-lines")
        yield AccountAction("Log in…", self._log_in, id="account-login")
        yield AccountAction("Log out…", self._log_out, id="account-logout")

    def on_mount(self) -> None:
        """Follow the session's login state."""
        self._unsubscribe = self.session.auth_status_changed.subscribe(lambda _: self.show())
        self.show()

    def on_unmount(self) -> None:
        """Stop following it."""
        if self._unsubscribe is not None:
            self._unsubscribe()

    def show(self) -> None:
        """Draw the state the agent last told (hidden until it told one)."""
        status: AuthStatus | None = self.session.auth_status
        self.display = status is not None
        if status is None:
            return
        if not self.children:  # (the first state told: the rows are built now)
            self.mount_all(self._rows())
        text = Text(status.state_text, style="bold" if status.logged_in else "yellow")
        for line in status.accounts:
            text.append(f"\n{line}")
        self.query_one("#account-lines", Static).update(text)
        can_log_in = not status.logged_in and bool(self.session.auth_methods)
        self.query_one("#account-login").display = can_log_in
        self.query_one("#account-logout").display = self.session.can_logout

    def _log_in(self) -> None:
        async def log_in() -> None:
            problem = await self.session.log_in()
            if problem is not None:
                notify(self, f"Could not log in: {problem}", severity="warning")

        self.app.run_worker(log_in(), group="login", exclusive=True)

    def _log_out(self) -> None:
        from acp_tui.ui.session_actions import SessionScreen, ask_logout

        ask_logout(cast(SessionScreen, self.screen))  # (a session's MainScreen)

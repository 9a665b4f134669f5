"""Authentication: pick one of the agent's methods; run a terminal login in a real PTY.

The method list comes unasked (at start, while the user may already be typing a prompt): it is
guarded like every question (`QuestionKeys`), so an enter meant for the prompt starts no login.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.client.handshake import AuthMethodInfo
from acp_tui.safe_text import safe_line
from acp_tui.ui.key_guard import CHOOSE_KEY, QuestionKeys
from acp_tui.ui.widgets.guard_hint import GuardHint


class AuthMethodScreen(ModalScreen[AuthMethodInfo | None]):
    """Pick one of the agent's auth methods (with the last attempt's error, if any); dismisses
    with the method or None. Worded for who asked: the agent demanded a login (it refused to
    go on without one: esc gives the session up), or the user asked for one (the sidebar's
    "Log in…": esc cancels, nothing else changes)."""

    DEFAULT_CSS = """
    AuthMethodScreen { align: center middle; }
    AuthMethodScreen > Vertical {
        width: 80; max-width: 95%; height: auto; max-height: 90%;
        border: thick $accent; background: $surface; padding: 1 2;
    }
    AuthMethodScreen #error { color: $error; margin-bottom: 1; }
    AuthMethodScreen OptionList { height: auto; max-height: 20; }
    """
    BINDINGS = [
        Binding("escape", "give_up", "cancel"),
        Binding(CHOOSE_KEY, "choose_question", "answer here", show=False),
    ]

    def __init__(
        self,
        agent_name: str,
        methods: Sequence[AuthMethodInfo],
        error: str | None,
        *,
        by_user: bool = False,
    ):
        super().__init__()
        self.agent_name = agent_name
        self.by_user = by_user
        self.methods = list(methods)
        self.error = error
        self.keys = QuestionKeys()

    def compose(self) -> ComposeResult:
        with Vertical():
            if self.by_user:
                title = f"Log in to {self.agent_name}: choose how"
            else:
                title = f"{self.agent_name} needs you to log in"
            yield Static(Text(title, style="bold"), id="title")
            if self.error:
                yield Static(Text(self.error), id="error")
            options = []
            for index, method in enumerate(self.methods):
                label = Text(method.name, style="bold")
                if method.type == "terminal":
                    label.append("  (opens a terminal)", style="dim")
                if method.description:
                    label.append("\n" + method.description, style="dim")
                options.append(Option(label, id=str(index)))
            yield OptionList(*options, id="methods")
            yield GuardHint(self.keys)
            leave = "esc cancel" if self.by_user else "esc give up"
            yield Static(Text(f"enter choose · {leave}", style="dim"), id="keys")

    def on_mount(self) -> None:
        """Arm the key guard and focus the list of the agent's authentication methods."""
        self.keys.arm(self.app)
        self.query_one(OptionList).focus()

    def on_key(self, event: events.Key) -> None:
        """While the guard holds, a key chooses nothing: it goes to the composer."""
        self.keys.hold(event, focus=False)

    def on_click(self) -> None:
        """A click on the list chooses it (a click on a method picks that method)."""
        self.keys.choose()

    def action_choose_question(self) -> None:
        """f4: the user goes to the list on purpose."""
        self.keys.choose()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Dismiss with the chosen authentication method."""
        event.stop()
        self.dismiss(self.methods[int(event.option.id or 0)])

    def action_give_up(self) -> None:
        """Dismiss without authenticating (the session stays unauthenticated)."""
        self.dismiss(None)


class LoginTerminalScreen(ModalScreen[int | None]):
    """Runs the agent's login command in a PTY, shows it live, dismisses with its exit code."""

    DEFAULT_CSS = """
    LoginTerminalScreen { align: center middle; }
    LoginTerminalScreen > Vertical {
        width: 95%; height: 85%; border: thick $accent; background: $surface;
    }
    LoginTerminalScreen #hint { height: 1; color: $text-muted; }
    """
    BINDINGS = [Binding("ctrl+g", "abandon", "abandon login", priority=True)]

    def __init__(self, argv: Sequence[str], env: Mapping[str, str], cwd: str) -> None:
        super().__init__()
        self.argv = list(argv)
        self.env = dict(env)
        self.cwd = cwd
        self._host: object | None = None
        self._abandoned = False
        """ctrl+g: the command is being killed, and its exit is no result (`action_abandon`)."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                Text(f"login: {safe_line(' '.join(self.argv))}   (ctrl+g abandons)", style="dim"),
                id="hint",
            )

    async def on_mount(self) -> None:
        """Run the agent's login command in a real PTY through a terminal host of this screen's own
        and show it.
        """
        from pathlib import Path

        from acp_tui.host.terminals import TerminalHost
        from acp_tui.protocol.models import CreateTerminalRequest, EnvVariable
        from acp_tui.ui.widgets.terminal_view import TerminalView

        host = TerminalHost(Path(self.cwd))
        self._host = host
        created = await host.create(
            CreateTerminalRequest(
                session_id="login",
                command=self.argv[0],
                args=list(self.argv[1:]),
                env=[EnvVariable(name=k, value=v) for k, v in self.env.items()],
                cwd=self.cwd,
            )
        )
        terminal = host.get(created["terminalId"])
        assert terminal is not None
        view = TerminalView(terminal)
        await self.query_one(Vertical).mount(view)
        view.focus()
        self.run_worker(self._wait(host, created["terminalId"]), exclusive=True)

    async def _wait(self, host: object, terminal_id: str) -> None:
        from acp_tui.host.terminals import TerminalHost
        from acp_tui.protocol.models import TerminalRequest

        assert isinstance(host, TerminalHost)
        request = TerminalRequest(session_id="login", terminal_id=terminal_id)
        result = await host.wait_for_exit(request)
        if self._abandoned:  # (killed by ctrl+g, which dismisses: a second dismissal popped
            return  # the main screen's stack bare, and the app failed)
        code = result.get("exitCode")
        self.dismiss(code if isinstance(code, int) else 1)

    async def action_abandon(self) -> None:
        """Kill the login command and its terminal, then dismiss without a result."""
        from acp_tui.host.terminals import TerminalHost

        if self._abandoned:
            return
        self._abandoned = True
        if isinstance(self._host, TerminalHost):
            await self._host.close_all()
        self.dismiss(None)

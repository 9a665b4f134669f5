"""Session-wide actions of the main screen: log out (palette, when the agent offers it) and
acp-tui's own `/sessions`, `/model` and `/clear` (a new session in this directory, asked
first when a turn is running)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from acp_tui.client.logout import can_logout, logout
from acp_tui.host.asker import Choice, Question
from acp_tui.session.config_options import MODEL
from acp_tui.ui.plain import notify
from acp_tui.ui.screens.question import QuestionScreen

if TYPE_CHECKING:
    from acp_tui.ui.app import AcpApp
    from acp_tui.ui.screens.main import MainScreen

Entry = tuple[str, str, Callable[[], object]]


def logout_entries(screen: MainScreen) -> list[Entry]:
    if not can_logout(screen.session):
        return []
    return [
        ("Log out of the agent", "Send `logout`: end the agent's login", lambda: ask_logout(screen))
    ]


def ask_logout(screen: MainScreen) -> None:
    name = screen.session.agent_name
    question = Question(
        "logout",
        f"Log out of {name}?",
        "The agent ends its login; it may ask you to log in again.",
        (Choice("stay", "Stay logged in", "n"), Choice("logout", "Log out", "y")),
    )

    def answered(answer: str | None) -> None:
        if answer == "logout":
            screen.run_worker(_logout(screen), group="logout", exclusive=True)

    screen.app.push_screen(QuestionScreen(question), answered)


async def _logout(screen: MainScreen) -> None:
    error = await logout(screen.session)
    if error is not None:
        notify(screen, f"Could not log out: {error}", severity="error")
    else:
        notify(screen, f"Logged out of {screen.session.agent_name}.")


def run_local_command(screen: MainScreen, name: str) -> bool:
    """`/sessions`, `/model`, `/clear`; False for a name that is not one of these."""
    app = cast("AcpApp", screen.app)
    if name == "sessions":
        app.show_sessions()
    elif name == "model":
        screen.pick_setting(MODEL)
    elif name == "clear":
        ask_clear(screen)
    else:
        return False
    return True


def ask_clear(screen: MainScreen) -> None:
    app = cast("AcpApp", screen.app)
    if not screen.session.turn_running:
        app.run_worker(app.new_session(), group="open-session", exclusive=True)
        return
    question = Question(
        "clear",
        "Start a new session?",
        "A turn is running: it is cancelled, and this conversation stays in the session list.",
        (Choice("keep", "Keep working", "n"), Choice("clear", "New session", "y")),
    )

    def answered(answer: str | None) -> None:
        if answer == "clear":
            app.run_worker(app.new_session(), group="open-session", exclusive=True)

    app.push_screen(QuestionScreen(question), answered)

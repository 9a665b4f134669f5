"""Session-wide actions of the main screen: log out (palette, when the agent offers it),
acp-tui's own `//sessions`, `//model` and `//clear` (a new session in this directory, asked
first when a turn is running), and continuing from a message in a new session (f7, palette;
see `client/message_fork.py`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from textual.widget import Widget

from acp_tui.client import message_fork, session_history
from acp_tui.host.asker import Choice, Question
from acp_tui.session.config_options import MODEL
from acp_tui.ui.plain import notify
from acp_tui.ui.screens.choice_picker import Choice as PickerChoice
from acp_tui.ui.screens.choice_picker import ChoicePicker
from acp_tui.ui.screens.question import QuestionScreen

if TYPE_CHECKING:
    from acp_tui.ui.app import AcpApp
    from acp_tui.ui.screens.main import MainScreen

Entry = tuple[str, str, Callable[[], object]]


def logout_entries(screen: MainScreen) -> list[Entry]:
    if not screen.session.can_logout:
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
    error = await screen.session.logout()
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


def fork_entries(screen: MainScreen) -> list[Entry]:
    """The palette entry for continuing from a message, when there is one."""
    session = screen.session
    if session.session_id is None or not message_fork.messages(session.thread.entries):
        return []
    return [
        (
            "Continue from a message…",
            "A new session that goes on from the message you choose (f7)",
            lambda: ask_fork_point(screen),
        )
    ]


def fork_here(screen: MainScreen) -> None:
    """From the focused message or tool call (see `client/message_fork.py`), else ask which."""
    from acp_tui.ui.widgets.live_entry import LiveEntry
    from acp_tui.ui.widgets.tool_call_card import ToolCallCard

    widget = screen.focused
    while widget is not None and widget is not screen:
        entry = widget.entry if isinstance(widget, LiveEntry | ToolCallCard) else None
        if entry is not None:
            continue_from(screen, entry.id)
            return
        parent = widget.parent
        widget = parent if isinstance(parent, Widget) else None
    ask_fork_point(screen)


def ask_fork_point(screen: MainScreen) -> None:
    """Pick the message to continue from (newest first), then continue from it."""
    session = screen.session
    found = message_fork.messages(session.thread.entries)
    if not found:
        notify(screen, "No message to continue from yet.")
        return
    can_fork = session_history.HistoryCapabilities.of(session.agent_capabilities).fork
    entries = list(session.thread.entries)

    def how(entry_id: int) -> str:
        point = message_fork.fork_point(entries, entry_id)
        if point is not None and point.latest and can_fork:
            return "fork the session (session/fork): the whole conversation goes on"
        return "a new session; your next prompt carries the conversation up to here"

    choices = [
        PickerChoice(str(e.id), message_fork.preview(e, session.agent_name), how(e.id))
        for e in found
    ]

    def answered(value: str | None) -> None:
        if value is not None:
            continue_from(screen, int(value))

    screen.app.push_screen(ChoicePicker("Continue from which message?", choices, None), answered)


def continue_from(screen: MainScreen, entry_id: int) -> None:
    app = cast("AcpApp", screen.app)
    app.run_worker(_continue(app, entry_id), group="open-session", exclusive=True)


async def _continue(app: AcpApp, entry_id: int) -> None:
    session = app.session
    outcome = await message_fork.continue_from(session, entry_id)
    await _forked(app, outcome)


async def fork_whole(app: AcpApp) -> None:
    """`Fork this session`: session/fork, the conversation stays on screen."""
    await _forked(app, await message_fork.fork_whole(app.session))


async def _forked(app: AcpApp, outcome: message_fork.Forked | str) -> None:
    session = app.session
    app.show_current_thread()
    if isinstance(outcome, str):
        notify(app, f"Could not continue there: {outcome}", severity="error")
        return
    session_history.remember(session)
    if outcome.problems:  # (the earlier session's settings win over the preset's: not applied)
        notify(app, "\n".join(outcome.problems), title="Settings not carried", severity="warning")
    if outcome.how == "fork":
        notify(app, "Forked: you are in a new session with this conversation.")
    else:
        notify(
            app,
            f"New session: your next prompt carries the conversation up to that message "
            f"({outcome.carried} entries) as context.",
        )

"""Session-wide actions of the main screen: log out (palette, when the agent offers it),
acp-tui's own `//sessions`, `//model` and `//clear` (a new session in this directory, asked
first when a turn is running), and continuing from a message in a new session (f7, palette;
see `client/message_fork.py`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from textual.app import App
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget

from acp_tui.client.session import history as session_history
from acp_tui.client.session.facade import SessionFacade
from acp_tui.host.asker import Choice, Question
from acp_tui.thread.config_options import MODEL
from acp_tui.ui.plain import notify
from acp_tui.ui.workspace.messages import ContinueFrom, NewSessionHere, ShowSessions

if TYPE_CHECKING:
    from acp_tui.client.message_fork import Forked
    from acp_tui.client.session.agent_session import AgentSession

Entry = tuple[str, str, Callable[[], object]]
T = TypeVar("T")
Toast = App[Any] | Widget


class SessionScreen(Protocol):
    """What these actions need of a session's screen (`MainScreen` is one): its session, and
    the way to ask the app for what the screen cannot do itself (messages)."""

    @property
    def session(self) -> SessionFacade: ...

    @property
    def app(self) -> App[object]: ...

    @property
    def focused(self) -> Widget | None: ...

    def pick_setting(self, category: str) -> None: ...

    def post_message(self, message: Message) -> bool: ...

    def show_question(self, screen: Screen[T], callback: Callable[[T | None], None]) -> None: ...


def logout_entries(screen: SessionScreen) -> list[Entry]:
    if not screen.session.can_logout:
        return []
    return [
        ("Log out of the agent", "Send `logout`: end the agent's login", lambda: ask_logout(screen))
    ]


def ask_logout(screen: SessionScreen) -> None:
    name = screen.session.agent_name
    question = Question(
        "logout",
        f"Log out of {name}?",
        "The agent ends its login; it may ask you to log in again.",
        (Choice("stay", "Stay logged in", "n"), Choice("logout", "Log out", "y")),
    )

    def answered(answer: str | None) -> None:
        if answer == "logout":
            screen.app.run_worker(_logout(screen), group="logout", exclusive=True)

    from acp_tui.ui.screens.question import QuestionScreen  # (asked: not on the first screen)

    screen.show_question(QuestionScreen(question), answered)


async def _logout(screen: SessionScreen) -> None:
    error = await screen.session.logout()
    if error is not None:
        notify(screen.app, f"Could not log out: {error}", severity="error")
    else:
        notify(screen.app, f"Logged out of {screen.session.agent_name}.")


def run_local_command(screen: SessionScreen, name: str) -> bool:
    """`/sessions`, `/model`, `/clear`; False for a name that is not one of these."""
    if name == "sessions":
        screen.post_message(ShowSessions(screen.session))
    elif name == "model":
        screen.pick_setting(MODEL)
    elif name == "clear":
        ask_clear(screen)
    else:
        return False
    return True


def ask_clear(screen: SessionScreen) -> None:
    if not screen.session.turn_running:
        screen.post_message(NewSessionHere(screen.session))
        return
    question = Question(
        "clear",
        "Start a new session?",
        "A turn is running: it is cancelled, and this conversation stays in the session list.",
        (Choice("keep", "Keep working", "n"), Choice("clear", "New session", "y")),
    )

    def answered(answer: str | None) -> None:
        if answer == "clear":
            screen.post_message(NewSessionHere(screen.session))

    from acp_tui.ui.screens.question import QuestionScreen  # (asked: not on the first screen)

    screen.show_question(QuestionScreen(question), answered)


def fork_entries(screen: SessionScreen) -> list[Entry]:
    """The palette entry for continuing from a message, when there is one."""
    from acp_tui.client import message_fork  # (at the palette, not on the way to the first frame)

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


def fork_here(screen: SessionScreen) -> None:
    """From the focused message or tool call (see `client/message_fork.py`), else ask which."""
    from acp_tui.ui.widgets.conversation_parts import focused_entry

    entry = focused_entry(screen.focused)
    if entry is not None:
        continue_from(screen, entry.id)
        return
    ask_fork_point(screen)


def ask_fork_point(screen: SessionScreen) -> None:
    """Pick the message to continue from (newest first), then continue from it."""
    from acp_tui.client import message_fork
    from acp_tui.ui.screens.choice_picker import Choice as PickerChoice
    from acp_tui.ui.screens.choice_picker import ChoicePicker

    session = screen.session
    found = message_fork.messages(session.thread.entries)
    if not found:
        notify(screen.app, "No message to continue from yet.")
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

    picker = ChoicePicker("Continue from which message?", choices, None)
    screen.show_question(picker, answered)


def continue_from(screen: SessionScreen, entry_id: int) -> None:
    """Ask the app to continue this screen's session from a message (`ContinueFrom`)."""
    screen.post_message(ContinueFrom(screen.session, entry_id))


async def continue_in(
    session: AgentSession, entry_id: int, shown: Callable[[], None], toast: Toast
) -> None:
    """Continue `session` from a message; `shown` shows its new thread, `toast` tells."""
    from acp_tui.client import message_fork

    outcome = await message_fork.continue_from(session, entry_id)
    await forked(session, outcome, shown, toast)


async def fork_whole(session: AgentSession, shown: Callable[[], None], toast: Toast) -> None:
    """`Fork this session`: session/fork, the conversation stays on screen."""
    from acp_tui.client import message_fork

    await forked(session, await message_fork.fork_whole(session), shown, toast)


async def forked(
    session: AgentSession,
    outcome: Forked | str,
    shown: Callable[[], None],
    toast: Toast,
) -> None:
    """After a fork or a continuation of `session`: its screen follows its thread (`shown`),
    the outcome told through `toast` (a DOM node of its tab)."""
    shown()
    if isinstance(outcome, str):
        notify(toast, f"Could not continue there: {outcome}", severity="error")
        return
    session_history.remember(session)
    if outcome.problems:  # (the earlier session's settings win over the preset's: not applied)
        notify(toast, "\n".join(outcome.problems), title="Settings not carried", severity="warning")
    if outcome.how == "fork":
        notify(toast, "Forked: you are in a new session with this conversation.")
    else:
        notify(
            toast,
            f"New session: your next prompt carries the conversation up to that message "
            f"({outcome.carried} entries) as context.",
        )

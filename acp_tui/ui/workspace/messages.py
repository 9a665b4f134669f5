"""What a session's screen asks of the app, as Textual messages (they bubble from the screen to
the app): the screen names its own session, so the app acts on that session's tab and never on
whichever tab happens to be shown. This module imports no screen and no app."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from acp_tui.client.session.facade import SessionFacade


class SessionRequest(Message):
    """A request about one session (the one of the screen that posted it)."""

    def __init__(self, session: SessionFacade) -> None:
        super().__init__()
        self.session = session


class ShowSessions(SessionRequest):
    """Open the session picker (earlier sessions of this agent) for this tab."""


class NewSessionHere(SessionRequest):
    """`//clear`: leave this tab's session for a new one with the same agent."""


class ForkWhole(SessionRequest):
    """`Fork this session` (`session/fork`): this tab goes on in the fork."""


class ContinueFrom(SessionRequest):
    """Continue this tab's session from one of its messages in a new session."""

    def __init__(self, session: SessionFacade, entry_id: int) -> None:
        super().__init__(session)
        self.entry_id = entry_id


class PromptAll(Message):
    """`//all PROMPT`: send the prompt to every open session (queued where a turn runs)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


@dataclass(frozen=True)
class RewindPoint:
    """A rewind done, waiting for the edited prompt: the session it was done in and the entry
    the new branch continues from (None: the prompt was the first, a new empty session)."""

    session_id: str
    before: int | None


class RewindHere(SessionRequest):
    """`e`: rewind to the focused prompt of the user's, else ask which (`rewind_actions`)."""


class RewindAsk(SessionRequest):
    """`//rewind`: ask which prompt to rewind to."""


class SendOnBranch(SessionRequest):
    """The prompt edited after a rewind: continue in a new branch from `point`, send it there."""

    def __init__(self, session: SessionFacade, point: RewindPoint, text: str) -> None:
        super().__init__(session)
        self.point = point
        self.text = text


class OpenBranch(SessionRequest):
    """Open `session_id`, an old branch a rewind left, with its files forward (a new tab)."""

    def __init__(self, session: SessionFacade, session_id: str) -> None:
        super().__init__(session)
        self.session_id = session_id

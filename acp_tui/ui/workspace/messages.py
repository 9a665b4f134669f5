"""What a session's screen asks of the app, as Textual messages (they bubble from the screen to
the app): the screen names its own session, so the app acts on that session's tab and never on
whichever tab happens to be shown. This module imports no screen and no app."""

from __future__ import annotations

from textual.message import Message

from acp_tui.client.session_facade import SessionFacade


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

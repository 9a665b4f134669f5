"""UI tests run the app as users run it: each finished turn freezes into the frozen history.

The app freezes a finished turn's entries at the turn end (see
`acp_tui.ui.widgets.conversation_turn_end`); the tests read what the user sees
(`tests/ui/conversation_text.py`: the conversation's text, frozen or live) or thaw an entry by
the key or click a user would use. A test about the live widgets of a finished turn themselves
asks for `live_finished_turns` and says why."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from acp_tui.ui.widgets.conversation_turn_end import ConversationTurnEnd


@pytest.fixture
def live_finished_turns(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Finished turns stay live widgets (not what the app does: only for a test comparing a
    live widget with something the freezing would replace)."""
    monkeypatch.setattr(ConversationTurnEnd, "freeze_finished_turns", False)
    yield

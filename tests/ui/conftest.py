"""UI tests: finished turns stay live widgets unless a test asks for the turn end's freezing.

The app freezes each finished turn's entries into the frozen history at the turn end (see
`acp_tui.ui.widgets.conversation_turn_end`), so that the turn end's collection frees their
widgets. Most UI tests were written around the live widgets of the recent entries (a card to
click, a message view to read) and test other things; they keep them live.
`tests/ui/test_turn_end_collection.py` turns the freezing back on and tests it, with the
thawing a click or Enter does on what froze."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from acp_tui.ui.widgets.conversation_turn_end import ConversationTurnEnd


@pytest.fixture(autouse=True)
def finished_turns_stay_live(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(ConversationTurnEnd, "freeze_finished_turns", False)
    yield

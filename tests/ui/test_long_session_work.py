"""The work of a turn does not grow with the session: what a turn end does to the frozen history
is counted (not timed) early and late in a session.

The app runs headless with no agent process; its session's thread is fed what an agent sends
(`bench.turns.feed_turn`: a prompt, a tool call, ~2 KB of Markdown written at once)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from textual.pilot import Pilot

from acp_tui.ui.app import AcpApp
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.entry_lines import EntryItem
from acp_tui.ui.widgets.frozen_history import FrozenHistory
from bench.turns import feed_turn
from tests.ui.headless_app import headless_app, until

SIZE = (140, 45)


async def fed_turn(app: AcpApp, pilot: Pilot[Any], turn: int) -> None:
    """One turn fed at once, then until its end has settled (its entries frozen)."""
    conversation = app.screen.query_one(ConversationView)
    feed_turn(app.session, turn, 400)
    await until(pilot, lambda: conversation.turn_end_settled, f"turn {turn} to settle")
    await pilot.pause()


@contextmanager
def items_drawn(monkeypatch: pytest.MonkeyPatch, items: list[EntryItem]) -> Iterator[set[int]]:
    """The ids of those of `items` whose lines were asked for meanwhile (laid out or painted)."""
    watched = {id(item) for item in items}
    touched: set[int] = set()
    lines = EntryItem.lines

    def counted(self: EntryItem, *args: Any) -> Any:
        if id(self) in watched:
            touched.add(id(self))
        return lines(self, *args)

    with monkeypatch.context() as patch:
        patch.setattr(EntryItem, "lines", counted)
        yield touched


def history_items(app: AcpApp) -> list[EntryItem]:
    return [item for history in app.screen.query(FrozenHistory) for item in history.items]


async def test_a_turn_end_lays_out_only_the_turns_entries_not_the_whole_history(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each turn end merged the turn's entries into the frozen history by building it again:
    every item it held walked, restyled and laid out (each turn end of 300 turns back to back
    walked 1,200 items). Now the entries join its end: the items it held are drawn only where
    they are on the screen, as many at turn 40 as at turn 10."""
    async with headless_app(SIZE) as (app, pilot):
        touched: dict[int, int] = {}
        for turn in range(1, 41):
            if turn in (10, 40):
                held = history_items(app)
                with items_drawn(monkeypatch, held) as drawn:
                    await fed_turn(app, pilot, turn)
                touched[turn] = len(drawn)
                assert len(held) >= 3 * (turn - 1)  # (every earlier turn: 3 items each)
            else:
                await fed_turn(app, pilot, turn)
        assert len(app.screen.query(FrozenHistory)) == 1
        assert touched[40] <= max(touched[10], 1) + 2, touched  # (the items on the screen)
        assert touched[40] < SIZE[1], touched


async def test_the_history_is_appended_to_and_draws_the_same() -> None:
    """The history extended in place shows what one built from all its items shows."""
    async with headless_app(SIZE) as (app, pilot):
        for turn in range(1, 13):
            await fed_turn(app, pilot, turn)
        (history,) = app.screen.query(FrozenHistory)
        width = history.size.width
        extended = [history.render_line(y).text for y in range(history.layout_for(width).total)]
        items = list(history.items)
        history.set_items(items)  # (laid out from scratch)
        rebuilt = [history.render_line(y).text for y in range(history.layout_for(width).total)]
        assert extended == rebuilt
        assert "Result 12" in "\n".join(extended)

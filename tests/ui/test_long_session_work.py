"""The work of a turn does not grow with the session: what a turn end does to the frozen history,
and what arranging the conversation costs, are counted (not timed) early and late in a session.

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


def test_the_tall_region_map_finds_what_textuals_finds() -> None:
    """Against Textual's own `SpatialMap`: the same values for every query, tall regions kept
    out of the grid (so filling it costs the same for a history of any height)."""
    from textual._spatial_map import SpatialMap
    from textual.geometry import Offset, Region

    from acp_tui.ui.textual_internals.tall_regions import TALL_ROWS, TallRegionMap

    regions = [
        (Region(0, 0, 140, 5 * TALL_ROWS), Offset(0, 0), False, False, "history"),
        (Region(0, 5 * TALL_ROWS, 140, 30), Offset(0, 0), False, False, "message"),
        (Region(0, 5 * TALL_ROWS + 30, 140, TALL_ROWS + 1), Offset(0, 0), False, False, "tall"),
        (Region(2, 5 * TALL_ROWS + 40, 10, 3), Offset(0, 0), False, True, "overlay"),
        (Region(0, 0, 140, 1), Offset(0, 0), True, False, "fixed"),
        (Region(0, 7 * TALL_ROWS, 140, 2), Offset(0, 4), False, False, "offset"),
    ]
    textual: SpatialMap[str] = SpatialMap()
    textual.insert(regions)
    ours: TallRegionMap[str] = TallRegionMap()
    ours.insert(regions)
    assert ours.total_region == textual.total_region
    assert sorted(value for _, value in ours.tall) == ["history", "tall"]
    placed = {value: (region + offset, fixed) for region, offset, fixed, _, value in regions}

    def shown(values: list[str], query: Region) -> set[str]:  # (as Textual culls them)
        return {v for v in values if placed[v][1] or placed[v][0].overlaps(query)}

    seen: set[str] = set()
    for y in range(0, 8 * TALL_ROWS, 7):
        query = Region(0, y, 140, 45)
        found = shown(ours.get_values_in_region(query), query)
        expected = shown(textual.get_values_in_region(query), query)
        assert found == expected, y
        seen |= found
    assert seen == set(placed)


async def test_the_conversation_keeps_its_history_out_of_the_grid() -> None:
    """After a few turns the frozen history is taller than the grid's squares: it is one entry
    of the conversation's spatial map, not one per 20 rows."""
    from acp_tui.ui.textual_internals.tall_regions import TallRegionMap

    async with headless_app(SIZE) as (app, pilot):
        for turn in range(1, 9):
            await fed_turn(app, pilot, turn)
        conversation = app.screen.query_one(ConversationView)
        (history,) = app.screen.query(FrozenHistory)
        assert history.size.height > 200
        spatial_map = conversation.arrange(conversation.size).spatial_map
        assert isinstance(spatial_map, TallRegionMap)
        assert [placement.widget for _, placement in spatial_map.tall] == [history]

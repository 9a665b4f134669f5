"""A turn's widgets are collected at its end, not frozen with what lives long.

The turn end's collection (`acp_tui.ui.collector`) freezes what survives it, and no later
collection walks the frozen objects: a widget still held at that moment (its removal under way,
Textual's caches, a timer) and dropped later would stay there as garbage for good, with every
line it drew. Nothing here calls `gc.collect`: what is freed is freed by the app's own
turn-end collection."""

from __future__ import annotations

import weakref
from pathlib import Path

import pytest
from textual.widget import Widget

from acp_tui.ui import runtime
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.frozen_history import FrozenHistory
from acp_tui.ui.widgets.message_view import AgentMessageView
from acp_tui.ui.widgets.tool_call_card import ToolCallCard
from tests.agents.scenarios import write_scenario
from tests.ui.app_harness import fixed_cwd, gate, one_turn, run_app, text, upd


@pytest.fixture(autouse=True)
def own_collector_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests' own collector policy. The policy is the process's, and watches every
    session's thread: a thread an earlier test in this process left alive with its turn still
    running would postpone the turn end's collection (`MAX_POSTPONED`), and the turn's widgets
    would be frozen alive (seen once in CI, in a worker where such a test had run first)."""
    monkeypatch.setattr(runtime, "collection", runtime.CollectorPolicy())


STEPS = [
    upd("tool_call", toolCallId="c1", title="Read a.py", kind="read", status="in_progress"),
    upd("agent_message_chunk", content=text("Reading **a.py** first.")),
    gate(),  # (the test takes hold of the live widgets here)
    upd("tool_call_update", toolCallId="c1", status="completed",
        content=[{"type": "content", "content": {"type": "text", "text": "42 lines"}}]),
    upd("agent_message_chunk", content=text(" Done: it has `42` lines.")),
]  # fmt: skip


async def test_the_widgets_of_a_finished_turn_are_freed_by_its_collection(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, one_turn(STEPS))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("go")
        await h.until(lambda: h.all(AgentMessageView) and h.all(ToolCallCard), "the live turn")
        await h.caught_up()
        streamed: list[Widget] = [*h.all(AgentMessageView), *h.all(ToolCallCard)]
        dead = [weakref.ref(widget) for widget in streamed]
        del streamed
        collections = runtime.collection.turns
        await h.through_gates(1)
        await h.settle()
        await h.until(lambda: runtime.collection.turns > collections, "the turn end's collection")
        alive = [ref() for ref in dead if ref() is not None]
        assert not alive, f"frozen with the turn's survivors: {alive}"
        conversation = h.one(ConversationView)
        assert conversation.frozen_entry_ids == {e.id for e in h.session.thread.entries}
        assert "Done: it has 42 lines." in h.screen_text()  # (drawn from data, as it was)


async def test_a_click_on_the_finished_turns_card_thaws_it(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, one_turn([s for s in STEPS if s.get("expect") is None]))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        collections = runtime.collection.turns
        await h.prompt("go")
        await h.until(lambda: runtime.collection.turns > collections, "the turn end's collection")
        conversation = h.one(ConversationView)
        assert not h.all(ToolCallCard) and h.all(FrozenHistory)
        card = next(e for e in h.session.thread.entries if e.id in conversation.frozen_entry_ids
                    and type(e).__name__ == "ToolCallEntry")  # fmt: skip
        history = h.one(FrozenHistory)
        history.focus()
        await h.pilot.pause()
        while history.cursor is not None and history.items[history.cursor].entry is not card:
            await h.pilot.press("up")
        await h.pilot.press("enter")
        await h.until(lambda: h.all(ToolCallCard), "the card thawed")
        assert card.id not in conversation.frozen_entry_ids


async def test_one_click_on_a_finished_turns_card_does_what_it_does_on_a_live_card(
    tmp_path: Path,
) -> None:
    """The click that thaws a frozen card is the card's click too: a finished turn's card opens
    (or folds) at the first click, as it did while the turn ran, not at a second one."""
    steps = [
        upd("tool_call", toolCallId="c1", title="Read a.py", kind="read", status="in_progress"),
        upd("tool_call_update", toolCallId="c1", status="completed",
            content=[{"type": "content", "content": {"type": "text", "text": "the card's body"}}]),
        upd("agent_message_chunk", content=text("Done.")),
    ]  # fmt: skip
    agent = write_scenario(tmp_path, one_turn(steps))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        collections = runtime.collection.turns
        await h.prompt("go")
        await h.until(lambda: runtime.collection.turns > collections, "the turn end's collection")
        assert not h.all(ToolCallCard) and "the card's body" not in h.screen_text(), "folded"
        rows = h.screen_text().splitlines()
        row = next(y for y, line in enumerate(rows) if "Read a.py" in line)
        assert await h.pilot.click(offset=(rows[row].index("Read a.py") + 1, row))
        await h.until(lambda: h.all(ToolCallCard), "the card thawed")
        await h.until(lambda: "the card's body" in h.screen_text(), "opened by the same click")
        assert not h.one(ToolCallCard).has_class("-folded")

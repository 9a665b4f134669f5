"""The conversation is a widget built from parts it owns, and a part works without the app
(issue 38): `CatchUp`, what a hidden tab remembers, is driven here by a thread alone."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.widget import Widget

from acp_tui.client.events import Notice
from acp_tui.thread import thread_changes
from acp_tui.thread.thread import Thread
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.conversation_catch_up import CatchUp
from acp_tui.ui.widgets.conversation_shown import ShownEntries
from bench.turns import update


def text(value: str) -> dict[str, str]:
    return {"type": "text", "text": value}


def test_the_view_has_one_base_and_no_mixin() -> None:
    assert ConversationView.__bases__ == (VerticalScroll,)


def test_a_hidden_tab_draws_what_came_once_and_in_order_when_shown() -> None:
    thread = Thread()
    shown = ShownEntries()
    calls: list[tuple[str, object]] = []
    part = CatchUp(
        thread,
        shown,
        draw_change=lambda change: calls.append(("change", change)),
        place_notice=lambda notice: calls.append(("notice", notice.text)),
        end_turn=lambda reason, last, error: calls.append(("end", (reason, last, error))),
        update_entry=lambda entry: calls.append(("update", entry.id)),
        arriving=lambda entry_id: False,
        shown_again=lambda: calls.append(("shown again", None)),
    )
    thread.subscribe(part.observe)
    thread.apply_notification(update("user_message_chunk", content=text("hello")))
    prompt = thread.entries[-1]
    assert calls == [("change", thread_changes.EntryAdded(prompt))], "shown: drawn at once"
    shown.place(prompt, Widget())
    calls.clear()

    part.hide()
    thread.begin_turn()
    thread.apply_notification(update("agent_message_chunk", content=text("one")))
    thread.apply_notification(update("agent_message_chunk", content=text(", two")))
    answer = thread.entries[-1]
    part.observe_notice(Notice("context compacted"))
    thread.entry_changed(prompt)
    thread.entry_changed(prompt)
    thread.end_turn("refusal")
    assert calls == [], "hidden: nothing is drawn"
    assert part.missed_anything

    assert part.catch_up()
    assert calls == [
        ("update", prompt.id),  # a shown entry that changed: once, first
        ("change", thread_changes.EntryAdded(answer)),  # a new one: placed once, as it is now
        ("notice", "context compacted"),
        ("end", ("refusal", answer.id, None)),
        ("shown again", None),
    ]
    calls.clear()
    assert not part.catch_up() and calls == [] and not part.missed_anything

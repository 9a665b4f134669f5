"""Hostile Markdown through the whole app: nesting thousands deep, and a renderer that fails.

The message's text must be on the screen, the app must keep running, and ctrl+q must quit.
"""

from __future__ import annotations

import io
from typing import Any

import pytest

from acp_tui.ui.app import AcpApp
from acp_tui.ui.markdown.paragraph import ParagraphView
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.message_view import AgentMessageView
from bench.turns import update
from tests.ui.headless_app import headless_app, until

SIZE = (100, 40)


def screen_text(app: AcpApp) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def chunk(text: str) -> dict[str, Any]:
    return update("agent_message_chunk", content={"type": "text", "text": text})


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


DEEP_QUOTE = "> " * 2000 + "hidden by nesting"


def deep_list(depth: int) -> str:
    return "".join(f"{'  ' * i}- item {i}\n" for i in range(depth)) + "hidden by nesting"


CASES = {
    "quote 400 first": ("> " * 400 + "hidden by nesting", 64),
    "quote 2000 first": (DEEP_QUOTE, 4000),  # the whole quote as the first chunk
    "quote 2000 after text": ("Some text first.\n\n" + DEEP_QUOTE, 500),
    "list 300": (deep_list(300), 1 << 16),  # (93,000 characters: one page)
    "list 1500": (deep_list(1500), 1 << 16),  # 2.3 MB: its first page, 311 levels deep
}  # fmt: skip
SHOWN_END = {
    "list 1500": ("longer than 100,000 characters", "more characters not shown"),
}
"""What shows at the end of a case longer than a page (`message_lines.TEXT_PAGE`): while it
streams, and drawn from its data; the others show their deepest text."""


def drawn_from_data(app: AcpApp) -> bool:
    """The streamed message is drawn from its data once finished (frozen at the turn end)."""
    conversation = app.screen.query_one(ConversationView)
    return conversation.turn_end_settled and not app.screen.query(AgentMessageView)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", list(CASES))
async def test_deep_nesting_is_shown_and_the_app_still_quits(name: str) -> None:
    source, size = CASES[name]
    streaming, finished = SHOWN_END.get(name, ("hidden by nesting", "hidden by nesting"))
    async with headless_app(SIZE) as (app, pilot):
        thread = app.session.thread
        thread.begin_turn()
        for piece in pieces(source, size):
            thread.apply_notification(chunk(piece))
        await until(pilot, lambda: streaming in screen_text(app), "the deep text")
        thread.end_turn("end_turn")
        await until(pilot, lambda: drawn_from_data(app), "the finished message")
        await until(pilot, lambda: finished in screen_text(app), "the deep text")
        assert app.is_running
        await pilot.press("ctrl+q")
        await until(pilot, lambda: not app.is_running, "the app to quit")


async def test_a_message_the_markdown_cannot_render_is_shown_plainly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(self: ParagraphView, *args: object) -> list[object]:
        raise RuntimeError("renderer bug")

    monkeypatch.setattr(ParagraphView, "render", broken)  # (whole or growing)
    async with headless_app(SIZE) as (app, pilot):
        thread = app.session.thread
        thread.begin_turn()
        thread.apply_notification(chunk("a paragraph the renderer chokes on"))
        await until(pilot, lambda: "renderer chokes on" in screen_text(app), "the plain text")
        assert "could not be shown as Markdown" in screen_text(app), screen_text(app)
        thread.end_turn("end_turn")
        await until(pilot, lambda: drawn_from_data(app), "the finished message")
        await until(pilot, lambda: "renderer chokes on" in screen_text(app), "the plain text")
        assert "could not be shown as Markdown" in screen_text(app), screen_text(app)
        assert app.is_running


def test_a_markdown_plan_nested_deep_loses_no_text() -> None:
    from rich.console import Console

    from acp_tui.thread.entries import PlanState
    from acp_tui.ui.widgets.plan_view import render_plan_state

    items = "".join(f"{'  ' * i}- step {i}\n" for i in range(30))
    source = f"{items}\n> {'> ' * 40}quoted deep\n\nthe end"
    plan = PlanState("p1", kind="markdown", markdown=source)
    console = Console(width=100, record=True, color_system=None, file=io.StringIO())
    console.print(render_plan_state(plan, "Plan"))
    shown = console.export_text()
    assert all(f"step {i}" in shown for i in range(30))
    assert "quoted deep" in shown and "the end" in shown

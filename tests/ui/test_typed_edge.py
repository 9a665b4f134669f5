"""The UI reads the real entry and model types: blocks are told apart by their class, not by a
`type` string an unknown block may also carry."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from acp_tui.protocol.models import Cost, ImageContent, parse_content_block
from acp_tui.thread.thread import UsageState
from acp_tui.ui.screens.status_text import describe_usage
from acp_tui.ui.widgets.content_block_view import describe_block
from acp_tui.ui.widgets.tool_call_card import ToolCallCard
from bench.turns import update
from tests.ui.headless_app import headless_app, until
from tests.ui.test_tool_output import SIZE, screen_text


def test_usage_text() -> None:
    assert describe_usage(None) == ""
    assert describe_usage(UsageState(1500, 200_000)) == "1.5k/200.0k tokens (0%)"
    assert describe_usage(UsageState(50_000, 100_000, Cost(amount=0.5, currency="USD"))) == (
        "50.0k/100.0k tokens (50%)  $0.50"
    )
    assert describe_usage(UsageState(7, 0, Cost(amount=2, currency="EUR"))) == "7 tokens  EUR 2.00"


def test_an_image_that_does_not_validate_is_shown_raw() -> None:
    good = describe_block(ImageContent(data="aGVsbG8=", mime_type="image/png"))
    assert isinstance(good, Text) and good.plain == "🖼 [image: image/png, 5 B]"
    broken = parse_content_block({"type": "image", "data": 3})
    shown = describe_block(broken)
    assert isinstance(shown, Text)
    assert shown.plain.startswith("[image content]\n") and '"data": 3' in shown.plain


def _call_with_broken_text(call_id: str) -> dict[str, Any]:
    # a text block without its text: kept as an unknown block whose `type` is still "text"
    content = [{"type": "content", "content": {"type": "text", "txt": "typo'd field"}}]
    return update(
        "tool_call", toolCallId=call_id, title="read it", kind="read", status="failed",
        content=content,
    )  # fmt: skip


async def test_a_tool_call_with_a_text_block_that_does_not_validate_shows_it_raw() -> None:
    async with headless_app(SIZE) as (app, pilot):
        app.session.thread.apply_notification(_call_with_broken_text("t1"))
        await until(pilot, lambda: "[text content]" in screen_text(app), "the raw block")
        assert "typo'd field" in screen_text(app)
        assert len(app.screen.query(ToolCallCard)) == 1

"""A burst shows its text before a new language's colours (`StreamingMarkdown`): a code fence
whose lexer is not built yet is drawn plain while text keeps coming, and coloured at the first
update after a pause (`PAUSE_SECONDS`), or after `PLAIN_SECONDS` of a steady stream."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.strip import Strip

from acp_tui.protocol.models import TextContent
from acp_tui.thread.entries import MessageEntry
from acp_tui.ui.markdown import StreamingMarkdown, highlight, stream_view, warm_up
from acp_tui.ui.markdown.blocks import BlockSplitter
from acp_tui.ui.markdown.document import DocumentView
from acp_tui.ui.widgets.message_view import AgentMessageView
from tests.agents.scenarios import stream_text, write_scenario
from tests.ui.app_harness import fixed_cwd, one_turn, run_app
from tests.ui.test_markdown_stream import StreamApp, wait_until

CODE = "".join(f"def handler_{i}(request):\n    return request + {i}  # done\n" for i in range(60))
SOURCE = f"Before the code.\n\n```python\n{CODE}```\n\nthe end\n"


@pytest.fixture(autouse=True)
def nothing_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """No lexer built in this process (as before the warm-up and the first fence)."""
    monkeypatch.setattr(highlight, "_lexers", {})


def def_line_styles(md: StreamingMarkdown) -> int:
    """How many styles the text of the fence's first line has (1: drawn plain)."""
    line = next(strip for strip in drawn(md) if "def" in strip.text)
    return len({segment.style for segment in line if segment.text.strip()})


def styles_on_screen(app: App[Any], text: str) -> int:
    """How many styles the screen's line showing ``text`` draws its text in."""
    strips = app.screen._compositor.render_strips()
    line = next(strip for strip in strips if text in strip.text)
    return len({segment.style for segment in line if segment.text.strip()})


def coloured_reference(md: StreamingMarkdown, source: str) -> list[Strip]:
    document = DocumentView(BlockSplitter(), lambda: source)
    document.feed(source)
    document.update(md._render_ctx or pytest.fail("not rendered"), md.document.width)
    return [document.line(y) for y in range(document.line_count)]


def drawn(md: StreamingMarkdown) -> list[Strip]:
    return [md.document.line(y) for y in range(md.document.line_count)]


async def test_a_burst_shows_its_text_before_the_fence_colours(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stream_view, "PAUSE_SECONDS", 3600.0)  # (held: no pause yet)
    monkeypatch.setattr(stream_view, "PLAIN_SECONDS", 3600.0)
    app = StreamApp()
    async with app.run_test(size=(80, 30)) as pilot:
        md = app.md
        md.append(SOURCE)
        drawn_called: list[bool] = []
        md.when_drawn(lambda: drawn_called.append(True))
        await wait_until(pilot, lambda: "the end" in md.rendered_text)
        await wait_until(pilot, lambda: drawn_called == [True])  # (not held while plain)
        assert md.plain_code
        assert def_line_styles(md) == 1
        assert styles_on_screen(app, "def handler_59") == 1
        assert not highlight.lexer_ready("python")  # (the burst did not build it)
        assert "return request + 59" in md.rendered_text


async def test_the_fence_is_coloured_once_the_stream_pauses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stream_view, "PLAIN_SECONDS", 3600.0)
    app = StreamApp()
    async with app.run_test(size=(80, 30)) as pilot:
        md = app.md
        coloured_lines: list[int] = []  # asked for by the screen once coloured
        render_lines = md.render_lines

        def spy(crop: Region) -> list[Strip]:
            if not md.plain_code:
                coloured_lines.extend(crop.line_range)
            return render_lines(crop)

        md.render_lines = spy  # type: ignore[method-assign]
        md.append(SOURCE)
        await wait_until(pilot, lambda: md.plain_code)
        await wait_until(pilot, lambda: not md.plain_code)  # (nothing more came)
        assert highlight.lexer_ready("python")
        assert def_line_styles(md) > 1
        assert drawn(md) == coloured_reference(md, md.source)
        last = next(y for y, strip in enumerate(drawn(md)) if "def handler_59" in strip.text)
        await wait_until(pilot, lambda: last in coloured_lines)  # repainted
        assert styles_on_screen(app, "def handler_59") > 1


async def test_a_steady_stream_is_coloured_after_plain_seconds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stream_view, "PAUSE_SECONDS", 3600.0)  # (never paused)
    monkeypatch.setattr(stream_view, "PLAIN_SECONDS", 0.2)
    app = StreamApp()
    async with app.run_test(size=(80, 30)) as pilot:
        md = app.md
        loop = asyncio.get_running_loop()
        lines = iter(CODE.splitlines(keepends=True))
        md.append("```python\n" + next(lines))
        await wait_until(pilot, lambda: md.plain_code)
        started = loop.time()
        while md.plain_code:
            md.append(next(lines))  # (fails with StopIteration if never coloured)
            await pilot.pause(0.02)
        assert loop.time() - started >= 0.15  # (PLAIN_SECONDS from the first plain render)
        assert not md.finished
        assert def_line_styles(md) > 1


async def test_a_fence_whose_lexer_is_built_is_coloured_in_the_burst() -> None:
    highlight.lexer_for("python")
    app = StreamApp()
    async with app.run_test(size=(80, 30)) as pilot:
        md = app.md
        md.append(SOURCE)
        await wait_until(pilot, lambda: "the end" in md.rendered_text)
        assert not md.plain_code
        assert drawn(md) == coloured_reference(md, md.source)


class OneMessage(App[None]):
    def compose(self) -> ComposeResult:
        yield AgentMessageView(MessageEntry("agent", [TextContent(type="text", text="")]))


async def test_a_message_hands_over_its_document_only_once_coloured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The message drawn from data when the turn ends takes over the streamed document unless
    a fence in it is plain: it then renders the text again, building the lexer."""
    monkeypatch.setattr(stream_view, "PAUSE_SECONDS", 3600.0)
    monkeypatch.setattr(stream_view, "PLAIN_SECONDS", 3600.0)
    async with OneMessage().run_test(size=(80, 30)) as pilot:
        view = pilot.app.query_one(AgentMessageView)
        md = view.query_one(StreamingMarkdown)
        view.append_chunk(0, SOURCE)
        view.finish()
        await wait_until(pilot, lambda: "the end" in md.rendered_text)
        assert md.plain_code
        assert view.streamed().documents == {}

        monkeypatch.setattr(stream_view, "PAUSE_SECONDS", 0.0)
        md._colour_due()  # (as when the pause is over)
        await wait_until(pilot, lambda: not md.plain_code)
        assert view.streamed().documents == {0: (SOURCE, md.document)}


async def test_a_reply_that_ends_while_its_fence_is_plain_is_drawn_coloured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The turn ends before the pause that would colour the fence: the reply is drawn
    coloured from its data."""
    monkeypatch.setattr(stream_view, "PAUSE_SECONDS", 3600.0)
    monkeypatch.setattr(stream_view, "PLAIN_SECONDS", 3600.0)
    monkeypatch.setattr(warm_up, "start_if_quiet", lambda streaming: None)  # (builds Python's)
    agent = write_scenario(tmp_path, one_turn([stream_text("$session_id", SOURCE, chunk=4096)]))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.ready()
        await h.prompt("burst")
        await h.until(lambda: not h.all(AgentMessageView), "the message drawn from its data")
        await h.until(lambda: "the end" in h.screen_text(), "the end on screen")
        assert styles_on_screen(h.app, "def handler_59") > 1
        assert h.logged_errors == []

"""The output of commands the agent ran itself is in view: Markdown, last lines, expandable."""

from __future__ import annotations

import re
from typing import Any

from acp_tui.ui.app import AcpApp
from acp_tui.ui.widgets.tool_call_card import ToolCallCard
from acp_tui.ui.widgets.tool_output import OUTPUT_TAIL_LINES, tool_text_markdown
from bench.turns import update
from tests.ui.headless_app import headless_app, until

SIZE = (100, 60)


def screen_text(app: AcpApp) -> str:
    return "\n".join(strip.text.rstrip() for strip in app.screen._compositor.render_strips())


def has_line(shown: str, number: int) -> bool:
    return re.search(rf"\bline {number}\b", shown) is not None


def tool_call(call_id: str, kind: str, text: str, status: str = "completed") -> dict[str, Any]:
    content = [{"type": "content", "content": {"type": "text", "text": text}}]
    return update(
        "tool_call", toolCallId=call_id, title=f"{kind} call", kind=kind, status=status,
        content=content,
    )  # fmt: skip


def test_which_text_is_markdown() -> None:
    fenced = "```console\nshell-ok\nhello.txt\n```"
    assert tool_text_markdown(fenced) == fenced
    assert tool_text_markdown("Read **2** lines.") == "Read **2** lines."
    assert tool_text_markdown("# Title\n\n- one\n- two\n") == "# Title\n\n- one\n- two\n"
    # program output and file contents keep their lines: a literal block
    assert tool_text_markdown("Output: ok\nhello.txt  notes.txt\n") == (
        "```text\nOutput: ok\nhello.txt  notes.txt\n```\n"
    )
    # a longer fence than any backtick run inside
    assert tool_text_markdown("a ````x```` b\nc").startswith("`````text\n")


async def command_card(app: AcpApp, pilot: Any, lines: int = 30) -> ToolCallCard:
    output = "```console\n" + "\n".join(f"line {i}" for i in range(1, lines + 1)) + "\n```"
    app.session.thread.apply_notification(tool_call("t1", "execute", output))
    await until(pilot, lambda: "earlier lines" in screen_text(app), "the clipped output")
    return app.screen.query_one(ToolCallCard)


async def test_command_output_shows_its_last_lines_and_expands_with_a_key() -> None:
    async with headless_app(SIZE) as (app, pilot):
        card = await command_card(app, pilot)
        assert not card.has_class("-folded"), "a finished command with output stays open"
        shown = screen_text(app)
        # the last lines (the code block's bottom padding line counts as one)
        assert has_line(shown, 30) and has_line(shown, 32 - OUTPUT_TAIL_LINES)
        assert not has_line(shown, 31 - OUTPUT_TAIL_LINES)
        # 30 lines and the code block's top and bottom padding lines, less the tail
        assert f"⋯ {32 - OUTPUT_TAIL_LINES} earlier lines (click or e shows all)" in shown
        assert "```" not in shown, "the fence is Markdown, not text"
        for _ in range(6):  # Tab goes round the screen to the card
            if app.screen.focused is card.head:
                break
            await pilot.press("tab")
        assert app.screen.focused is card.head
        await pilot.press("e")
        await until(pilot, lambda: has_line(screen_text(app), 1), "all lines")
        assert "earlier lines" not in screen_text(app)
        assert card.output_expanded


async def test_a_click_on_the_earlier_lines_note_shows_them_all() -> None:
    async with headless_app(SIZE) as (app, pilot):
        card = await command_card(app, pilot)
        rows = screen_text(app).splitlines()
        row = next(y for y, line in enumerate(rows) if "earlier lines" in line)
        assert await pilot.click(offset=(rows[row].index("⋯") + 2, row))
        await until(pilot, lambda: has_line(screen_text(app), 1), "all lines")
        assert card.output_expanded and not card.has_class("-folded")


async def test_tool_text_is_never_rich_markup() -> None:
    async with headless_app(SIZE) as (app, pilot):
        thread = app.session.thread
        thread.apply_notification(tool_call("t1", "execute", "[bold red]x[/]\n[link=y]z[/link]"))
        thread.apply_notification(tool_call("t2", "read", "[b]not bold[/b]", "failed"))
        await until(pilot, lambda: "[link=y]z[/link]" in screen_text(app), "the output")
        assert "[bold red]x[/]" in screen_text(app)
        assert "[b]not bold[/b]" in screen_text(app)


async def test_other_finished_calls_still_fold() -> None:
    async with headless_app(SIZE) as (app, pilot):
        app.session.thread.apply_notification(tool_call("t1", "read", "first\nold line\nlast\n"))
        await until(pilot, lambda: app.screen.query(ToolCallCard), "the card")
        card = app.screen.query_one(ToolCallCard)
        await until(pilot, lambda: card.has_class("-folded"), "the fold")
        card.toggle()
        await until(pilot, lambda: "old line" in screen_text(app), "the unfolded text")
        shown = screen_text(app)
        assert re.search(r"\bfirst\s+│", shown), "lines kept, not joined into a paragraph"
        assert "first old line" not in shown


async def test_output_only_in_raw_output_is_shown_too() -> None:
    call = update(
        "tool_call", toolCallId="t1", title="List /w", kind="search", status="completed",
        rawInput={"command": ["/bin/bash", "-lc", "echo shell-ok && ls"]},
        rawOutput={"stdout": "x", "aggregated_output": "shell-ok\nhello.txt\n", "exit_code": 0},
    )  # fmt: skip
    async with headless_app(SIZE) as (app, pilot):
        app.session.thread.apply_notification(call)
        await until(pilot, lambda: "shell-ok" in screen_text(app), "the output")
        card = app.screen.query_one(ToolCallCard)
        assert not card.has_class("-folded")
        assert re.search(r"\bhello\.txt\s+│", screen_text(app))

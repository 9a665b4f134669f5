"""A tool call's card is drawn by one function live and frozen (`card_lines.tool_call_parts`):
whatever the user did to a live card (folded it, opened a section, expanded the output), the
frozen history shows it cell for cell.

Each case puts one card on the screen during a turn, acts on it as a user would (keys and
clicks on the screen), then ends the turn, which freezes it as it does for users, and compares
the conversation's cells before and after.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.strip import Strip

from acp_tui.protocol.models import RequestPermissionRequest, text_block
from acp_tui.ui.app import AcpApp
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.frozen_history import FrozenHistory
from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
from acp_tui.ui.widgets.terminal_view import TerminalView
from acp_tui.ui.widgets.tool_call_card import ToolCallCard
from bench.turns import update
from tests.agents.scenarios import (
    end_turn,
    expect_prompt,
    initialize_ok,
    new_session_ok,
    write_file,
    write_scenario,
)
from tests.ui.app_harness import PNG_8_BYTES, demo_argv, demo_env, fixed_cwd, gate, run_app
from tests.ui.headless_app import until
from tests.ui.test_app_monitor import completed, tool_call
from tests.ui.test_conversation_window import (
    assert_same_cells,
    conversation_area,
    headless_app,
    screen,
    screen_text,
    settled,
)

Action = Callable[[AcpApp, Pilot[Any], ToolCallCard], Awaitable[None]]


def card_rows(area: list[Strip], title: str) -> list[Strip]:
    """The rows of the card titled `title`, from its top border to its bottom one."""
    texts = [strip.text for strip in area]
    top = next(y for y, text in enumerate(texts) if title in text) - 1
    assert texts[top].lstrip().startswith("╭"), texts[top]
    bottom = next(y for y in range(top + 1, len(texts)) if texts[y].lstrip().startswith("╰"))
    return area[top : bottom + 1]


async def turn_end(pilot: Pilot[Any], conversation: ConversationView) -> None:
    """The turn ends: everything on the screen freezes into one history, as for users."""
    conversation.thread.end_turn("end_turn")
    await until(pilot, lambda: conversation.turn_end_settled, "the turn end's freezing")
    await settled(pilot, conversation)
    assert [type(c) for c in conversation.children] == [FrozenHistory]


COMMAND_OUTPUT = "```console\n" + "\n".join(f"line {i}" for i in range(1, 31)) + "\n```"


def text_content(text: str) -> list[dict[str, Any]]:
    return [{"type": "content", "content": {"type": "text", "text": text}}]


CALLS: dict[str, dict[str, Any]] = {
    "failed": {
        "kind": "fetch", "status": "failed", "rawInput": {"url": "x"},
        "rawOutput": {"error": "boom", "code": 2},
    },
    "edit": {
        "kind": "edit", "status": "completed", "rawInput": {"path": "a.py"},
        "content": [{"type": "diff", "path": "/src/a.py", "oldText": "a\n", "newText": "b\n"}],
    },
    "read": {
        "kind": "read", "status": "completed", "rawInput": {"path": "r.py"},
        "content": text_content("read 3 lines"),
    },
    "command": {"kind": "execute", "status": "completed", "content": text_content(COMMAND_OUTPUT)},
    "resource": {
        "kind": "read", "status": "failed",
        "content": [{"type": "content", "content": {
            "type": "resource",
            "resource": {"uri": "file:///r.txt", "text": "first\nsecond\n"},
        }}],
    },
}  # fmt: skip


async def click_text(app: AcpApp, pilot: Pilot[Any], text: str) -> None:
    rows = screen(app)
    row = next(y for y, strip in enumerate(rows) if text in strip.text)
    assert await pilot.click(offset=(rows[row].text.index(text) + 1, row))


async def focus_card(app: AcpApp, pilot: Pilot[Any], card: ToolCallCard) -> None:
    for _ in range(8):  # Tab goes round the screen to the card
        if app.screen.focused is card.head:
            return
        await pilot.press("tab")
    raise AssertionError(f"Tab never reached the card (at {app.screen.focused})")


async def nothing(app: AcpApp, pilot: Pilot[Any], card: ToolCallCard) -> None:
    pass


async def enter_folds(app: AcpApp, pilot: Pilot[Any], card: ToolCallCard) -> None:
    await focus_card(app, pilot, card)
    await pilot.press("enter")
    await until(pilot, lambda: "/src/a.py" not in screen_text(app), "the fold")
    app.screen.set_focus(None)  # (the frozen history is not focused either)


async def click_header_unfolds(app: AcpApp, pilot: Pilot[Any], card: ToolCallCard) -> None:
    assert "read 3 lines" not in screen_text(app)
    await click_text(app, pilot, "⇲ read call")
    await until(pilot, lambda: "read 3 lines" in screen_text(app), "the unfolded card")
    app.screen.set_focus(None)


async def click_raw_input(app: AcpApp, pilot: Pilot[Any], card: ToolCallCard) -> None:
    await click_text(app, pilot, "▶ raw input")
    await until(pilot, lambda: '"path": "a.py"' in screen_text(app), "the raw input")


async def click_raw_output_closed(app: AcpApp, pilot: Pilot[Any], card: ToolCallCard) -> None:
    await click_text(app, pilot, "▼ raw output")
    await until(pilot, lambda: '"error": "boom"' not in screen_text(app), "the closed section")


async def click_earlier_lines(app: AcpApp, pilot: Pilot[Any], card: ToolCallCard) -> None:
    await click_text(app, pilot, "earlier lines")
    await until(pilot, lambda: re.search(r"\bline 1\b", screen_text(app)) is not None, "all")


async def open_resource(app: AcpApp, pilot: Pilot[Any], card: ToolCallCard) -> None:
    await click_text(app, pilot, "📎 file:///r.txt")
    await until(pilot, lambda: "second" in screen_text(app), "the resource text")


CASES: list[tuple[str, Action, str]] = [
    # (call, what the user does, what must show in the frozen card)
    ("failed", nothing, "│    boom"),
    ("failed", click_raw_output_closed, "▶ raw output"),
    ("edit", enter_folds, "✎ edit call"),
    ("read", click_header_unfolds, "read 3 lines"),
    ("edit", click_raw_input, '"path": "a.py"'),
    ("command", nothing, "earlier lines"),
    ("command", click_earlier_lines, "line 1"),
    ("resource", open_resource, "second"),
]


@pytest.mark.parametrize(
    ("call", "action", "shown"), CASES, ids=lambda v: getattr(v, "__name__", v)
)
async def test_a_card_freezes_exactly_as_the_user_left_it(
    call: str, action: Action, shown: str
) -> None:
    async with headless_app() as (app, pilot):
        conversation = app.screen.query_one(ConversationView)
        thread = app.session.thread
        thread.add_user_prompt([text_block("go")])
        thread.begin_turn()
        thread.apply_notification(
            update("tool_call", toolCallId="t", title=f"{call} call", **CALLS[call])
        )
        await settled(pilot, conversation)
        card = app.screen.query_one(ToolCallCard)
        await action(app, pilot, card)
        app.screen.set_focus(None)  # a click focuses the card (drawn as the cursor); not frozen
        await settled(pilot, conversation)
        live = conversation_area(app)

        await turn_end(pilot, conversation)
        assert shown in screen_text(app)
        assert_same_cells(live, conversation_area(app))


async def test_an_answered_question_freezes_as_shown_with_its_raw_input_folded() -> None:
    async with headless_app() as (app, pilot):
        conversation = app.screen.query_one(ConversationView)
        session = app.session
        thread = session.thread
        thread.add_user_prompt([text_block("write the file")])
        thread.begin_turn()
        thread.apply_notification(
            update(
                "tool_call", toolCallId="w", title="Write it", kind="edit", status="pending",
                rawInput={"path": "w.py"},
                content=[{"type": "diff", "path": "/w.py", "oldText": "a\n", "newText": "b\n"}],
            )
        )  # fmt: skip
        request = {
            "sessionId": "bench",
            "toolCall": {"toolCallId": "w", "title": "Write it"},
            "options": [
                {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
                {"optionId": "no", "name": "Reject", "kind": "reject_once"},
            ],
        }
        asking = asyncio.create_task(
            session.permissions.request(RequestPermissionRequest.model_validate(request))
        )
        await until(pilot, lambda: app.screen.query(PermissionPrompt), "the permission prompt")
        # the card shows what is asked (its diff): the raw input stays folded (issue 39, 15g)
        await until(pilot, lambda: "▶ raw input" in screen_text(app), "the folded raw input")
        assert '"path": "w.py"' not in screen_text(app)
        await until(pilot, lambda: app.screen.query_one(PermissionPrompt).has_focus_within, "focus")
        await pilot.press("a")
        assert await asyncio.wait_for(asking, 5)
        thread.apply_notification(update("tool_call_update", toolCallId="w", status="completed"))
        await until(pilot, lambda: not app.screen.query(PermissionPrompt), "the prompt closed")
        await settled(pilot, conversation)
        assert "✓ answered: Allow" in screen_text(app)
        live = conversation_area(app)

        await turn_end(pilot, conversation)
        assert "▶ raw input" in screen_text(app)
        assert_same_cells(live, conversation_area(app))


async def test_a_question_whose_card_shows_nothing_else_opens_the_raw_input() -> None:
    async with headless_app() as (app, pilot):
        thread = app.session.thread
        thread.add_user_prompt([text_block("do it")])
        thread.begin_turn()
        thread.apply_notification(
            update("tool_call", toolCallId="x", title="Do it", kind="other", status="pending",
                   rawInput={"what": "the-secret-plan"})
        )  # fmt: skip
        request = {
            "sessionId": "bench",
            "toolCall": {"toolCallId": "x"},
            "options": [{"optionId": "yes", "name": "Allow", "kind": "allow_once"}],
        }
        asking = asyncio.create_task(
            app.session.permissions.request(RequestPermissionRequest.model_validate(request))
        )
        await until(pilot, lambda: "the-secret-plan" in screen_text(app), "the raw input")
        await until(pilot, lambda: app.screen.query_one(PermissionPrompt).has_focus_within, "focus")
        await pilot.press("a")
        assert await asyncio.wait_for(asking, 5)


async def test_a_disk_note_freezes_as_shown(tmp_path: Path) -> None:
    project = fixed_cwd(tmp_path).resolve()
    (project / "tidy.txt").write_text("tidy\n")
    steps = [
        initialize_ok(), new_session_ok(), expect_prompt(),
        tool_call("t1", "Tidy tidy.txt", project / "tidy.txt", "tidy\n", "tidied\n"),
        write_file("tidy.txt", "something else\n"), completed("t1"),
        gate(), end_turn(),
    ]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, project) as h:
        await h.type_prompt("tidy it")
        await h.until(lambda: "differs from this diff" in h.screen_text(), "the card's note")
        conversation = h.one(ConversationView)
        await settled(h.pilot, conversation)
        live = conversation_area(h.app)

        await h.through_gates(1)  # the turn ends: the card freezes
        await h.settle()
        await settled(h.pilot, conversation)
        assert FrozenHistory in [type(c) for c in conversation.children]
        assert not h.all(ToolCallCard)
        assert "⚠ tidy.txt on disk differs from this diff (F2)" in h.screen_text()
        # (the turn's summary came under it meanwhile: the card's own rows are compared)
        card = card_rows(live, "Tidy tidy.txt")
        assert any("differs from this diff" in strip.text for strip in card)
        assert_same_cells(card, card_rows(conversation_area(h.app), "Tidy tidy.txt"))


async def test_a_terminal_stays_one_live_widget_in_its_card_through_folding(
    tmp_path: Path,
) -> None:
    async with run_app(demo_argv(), fixed_cwd(tmp_path), env=demo_env()) as h:
        await h.prompt("/terminal")
        await h.until(lambda: h.all(TerminalView), "the terminal")
        (view,) = h.all(TerminalView)
        card = next(c for c in h.all(ToolCallCard) if view in c.query(TerminalView))
        await h.until(lambda: "total " in "\n".join(view.text_lines()), "the output")
        await h.settle()
        shown = h.screen_text()
        # framed by the card's border: its lines above and below, the terminal in between
        assert shown.index("▶ ls -la") < shown.index("total ") < shown.index("▶ raw input")
        card.head.focus()
        await h.pilot.press("enter")
        await h.until(lambda: "total " not in h.screen_text(), "the fold")
        assert view.is_mounted and card.has_class("-folded")
        await h.pilot.press("enter")
        await h.until(lambda: "total " in h.screen_text(), "the unfolded terminal")
        assert h.all(TerminalView) == [view], "the same terminal view, not a new one"


async def test_a_click_on_an_image_in_a_card_opens_it(monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[Path] = []

    def record(path: Path) -> str | None:
        opened.append(path)
        return None  # started

    monkeypatch.setattr("acp_tui.ui.widgets.media_block_view.open_with_system", record)
    image = {"type": "image", "mimeType": "image/png", "data": PNG_8_BYTES}
    async with headless_app() as (app, pilot):
        conversation = app.screen.query_one(ConversationView)
        app.session.thread.apply_notification(
            update("tool_call", toolCallId="t", title="Shot", kind="other", status="failed",
                   content=[{"type": "content", "content": image}])
        )  # fmt: skip
        await settled(pilot, conversation)
        await click_text(app, pilot, "[image: image/png")
        await until(pilot, lambda: bool(opened), "the image opened")
        assert opened[0].suffix == ".png" and opened[0].read_bytes()
        opened[0].unlink()

"""A background tab costs only its thread: while another tab is shown, its agent streams a turn
(a thought, a message in chunks, a tool call finishing, a file written, a plan) and nothing is
mounted for it; shown again it catches up once, and looks as a tab that was never hidden does:
the turn's change summary under the turn, the card the user folded still folded."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from acp_tui.thread.entries import MessageEntry
from acp_tui.ui.screens.main import MainScreen
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.message_view import AgentMessageView
from acp_tui.ui.widgets.tool_call_card import CardLines, ToolCallCard
from acp_tui.ui.widgets.turn_summary import TurnSummaryView
from acp_tui.ui.workspace.tab import SessionTab
from tests.agents.scenarios import (
    end_turn,
    expect_prompt,
    initialize_ok,
    new_session_ok,
    update,
    write_file,
)
from tests.ui.app_harness import (
    GATE_MODE,
    AppHarness,
    agent_runs,
    fixed_cwd,
    gate,
    run_app,
    session_with_modes,
)
from tests.ui.workspace_support import open_tab, spawner


def say(kind: str, value: str) -> dict[str, Any]:
    return update("sess-1", {"sessionUpdate": kind, "content": {"type": "text", "text": value}})


def tool(variant: str, /, **fields: Any) -> dict[str, Any]:
    return update("sess-1", {"sessionUpdate": variant, **fields})


def output(value: str) -> list[dict[str, Any]]:
    return [{"type": "content", "content": {"type": "text", "text": value}}]


FIRST_TURN = [
    tool("tool_call", toolCallId="t1", title="Run the tests", kind="execute",
         status="in_progress", content=output("running")),
    say("agent_message_chunk", "Started the tests."),
    end_turn(),
]  # fmt: skip
BACKGROUND_TURN = [
    say("agent_thought_chunk", "Look at the "),
    say("agent_thought_chunk", "file first."),
    say("agent_message_chunk", "Editing "),
    say("agent_message_chunk", "hello.txt now."),
    tool("tool_call_update", toolCallId="t1", status="completed", content=output("3 passed")),
    tool("tool_call", toolCallId="t2", title="Write hello.txt", kind="edit", status="completed"),
    write_file("hello.txt", "Hello\n"),
    tool("plan", entries=[{"content": "Write hello", "priority": "high", "status": "completed"}]),
    say("agent_message_chunk", "Done."),
    end_turn(),
]


def run_dir(tmp_path: Path, name: str) -> Path:
    """Each app of the test in its own directory (its agent's runs, its project)."""
    path = tmp_path / name
    path.mkdir()
    return path


@contextlib.asynccontextmanager
async def two_tabs(
    tmp_path: Path, first_turn: list[dict[str, Any]] = FIRST_TURN
) -> AsyncIterator[tuple[AppHarness, SessionTab, list[int]]]:
    """Tab 1 ran a turn (its card t1 folded by the user with Enter), tab 2 shown; and the
    turns of tab 1's change summaries as they come."""
    first = [initialize_ok(), new_session_ok(), expect_prompt(), *first_turn,
             expect_prompt(), *BACKGROUND_TURN]  # fmt: skip
    other = [initialize_ok(), new_session_ok("sess-2"), expect_prompt(), end_turn()]
    argv = agent_runs(tmp_path, first, other)
    project = fixed_cwd(tmp_path).resolve()
    app_kwargs = {"spawn": spawner(), "presets": ()}
    async with run_app(argv, project, app_kwargs=app_kwargs) as h:
        try:
            tab = h.app.current_tab
            summaries: list[int] = []
            tab.session.turn_changes.summary_changed.subscribe(
                lambda summary: summaries.append(summary.turn) if summary.files else None
            )
            await h.prompt("first")
            await h.caught_up()
            h.one(ToolCallCard).query_one(CardLines).focus()
            await h.pilot.press("enter")
            await h.until(lambda: h.one(ToolCallCard).state.folded is True, "t1 folded")
            await open_tab(h)
            yield h, tab, summaries
        finally:
            for each in list(h.app.tabs):
                await each.session.close()


async def send_to_all(h: AppHarness, tab: SessionTab, summaries: list[int]) -> None:
    """`//all go` typed in the tab shown; until tab 1's turn ended with its change summary."""
    await h.type_prompt("//all go")
    await h.until(
        lambda: not tab.session.thread.turn_running and len(tab.session.thread.entries) >= 8,
        "tab 1's second turn",
    )
    await h.until(lambda: summaries, "tab 1's change summary")
    await h.settle()


def nodes(screen: MainScreen) -> int:
    return len(list(screen.walk_children()))


async def shown_conversation(h: AppHarness) -> list[tuple[str, str]]:
    """Tab 1's conversation once drawn: each child's kind and what it shows (how long a tool
    call took as "Ns", and the card's padding after it as one space: the two runs differ there,
    "0.1s" or "12.4s" on a loaded machine)."""
    await h.until(lambda: h.all(TurnSummaryView), "the turn summary")
    await h.until(h.turn_end_settled, "the turn end's freezing")
    await h.caught_up()
    await h.pilot.pause()
    conversation = h.one(ConversationView)
    lines = h.screen_text().splitlines()
    shown = []
    for child in conversation.children:
        region = child.region
        rows = lines[region.y : region.bottom]
        text = "\n".join(row[region.x : region.right].rstrip() for row in rows)
        text = re.sub(r"\d+(\.\d+)?s\b", "Ns", text)
        shown.append((type(child).__name__, re.sub(r"Ns +│", "Ns │", text)))
    return shown


async def test_a_hidden_tab_mounts_nothing_and_catches_up_as_if_shown(tmp_path: Path) -> None:
    async with two_tabs(run_dir(tmp_path, "hidden")) as (h, tab, summaries):
        screen = tab.screen
        assert screen is not None and h.app.screen is not screen
        conversation = screen.query_one(ConversationView)
        before, views = nodes(screen), dict(conversation.views)
        await send_to_all(h, tab, summaries)
        assert nodes(screen) == before, "widgets were mounted for a hidden tab"
        assert conversation.views == views
        assert not screen.query(TurnSummaryView)

        await h.pilot.press("alt+1")
        await h.until(lambda: h.app.screen is screen, "alt+1")
        hidden = await shown_conversation(h)
        card = tab.session.thread.tool_calls["t1"]
        folded = conversation.view_state(card.id).folded  # (live or frozen, the card draws it)
        assert folded is True, "the card the user folded was unfolded"

    async with two_tabs(run_dir(tmp_path, "shown")) as (h, tab, summaries):
        await h.pilot.press("alt+1")
        await h.until(lambda: h.app.current_tab is tab, "alt+1")
        await send_to_all(h, tab, summaries)
        never_hidden = await shown_conversation(h)

    assert [kind for kind, _ in hidden] == [kind for kind, _ in never_hidden]
    assert hidden == never_hidden
    kinds = [kind for kind, _ in hidden]
    at = next(i for i, (_, text) in enumerate(hidden) if "Run the tests" in text)
    assert kinds.index("TurnSummaryView") > at, "the summary comes after the turn's card"
    assert any("hello.txt" in text for kind, text in hidden if kind == "TurnSummaryView")


async def test_a_message_streaming_when_its_tab_was_hidden_takes_what_it_missed(
    tmp_path: Path,
) -> None:
    """Hidden in the middle of a message: shown again while the turn still runs, the message
    goes on streaming from where the agent is, not from where it was hidden; then it ends whole."""
    first = [initialize_ok(), session_with_modes(), expect_prompt(),
             say("agent_message_chunk", "Part one. "), gate(),
             say("agent_message_chunk", "Part two. "), gate(),
             say("agent_message_chunk", "Part three."), end_turn()]  # fmt: skip
    other = [initialize_ok(), new_session_ok("sess-2")]
    argv = agent_runs(tmp_path, first, other)
    app_kwargs = {"spawn": spawner(), "presets": ()}
    async with run_app(argv, fixed_cwd(tmp_path), app_kwargs=app_kwargs) as h:
        try:
            tab = h.app.current_tab
            await h.type_prompt("go")
            await h.until(lambda: "Part one." in h.screen_text(), "the first part")
            screen = h.app.screen
            assert isinstance(screen, MainScreen)
            streaming = screen.query_one(AgentMessageView)
            await open_tab(h)
            assert await tab.session.set_mode(GATE_MODE) is None  # "Part two." while hidden
            entry = tab.session.thread.entries[-1]
            assert isinstance(entry, MessageEntry)
            await h.until(lambda: "Part two" in str(entry.blocks), "the second part, hidden")
            await h.pilot.press("alt+1")
            await h.until(lambda: h.app.screen is screen, "alt+1")
            await h.until(lambda: "Part one. Part two." in h.screen_text(), "what it missed")
            assert screen.query_one(AgentMessageView) is streaming, "still the streaming view"
            assert await tab.session.set_mode(GATE_MODE) is None
            await h.settle()
            await h.until(
                lambda: "Part one. Part two. Part three." in h.screen_text(), "the whole message"
            )
        finally:
            for each in list(h.app.tabs):
                await each.session.close()


async def test_a_hidden_tab_keeps_its_scroll_position(tmp_path: Path) -> None:
    """Scrolled up to read, switched away: what came meanwhile is placed below, the lines read
    stay where they were."""
    long_answer = "".join(f"Line {n} of a long answer.\n\n" for n in range(60))
    first_turn = [*FIRST_TURN[:-1], say("agent_message_chunk", long_answer), end_turn()]
    async with two_tabs(tmp_path, first_turn) as (h, tab, summaries):
        await h.pilot.press("alt+1")
        screen = tab.screen
        assert screen is not None
        await h.until(lambda: h.app.screen is screen, "alt+1")
        conversation = screen.query_one(ConversationView)
        conversation.focus()
        await h.pilot.press("pageup", "pageup")
        await h.until(lambda: conversation.scroll_y < conversation.max_scroll_y, "scrolled up")
        await h.pilot.pause()
        read, bottom = conversation.scroll_y, conversation.max_scroll_y
        await h.pilot.press("alt+2")
        await h.until(lambda: h.app.current_tab is not tab, "alt+2")
        await send_to_all(h, tab, summaries)
        await h.pilot.press("alt+1")
        await h.until(lambda: h.app.screen is screen, "alt+1 again")
        await shown_conversation(h)
        assert conversation.max_scroll_y > bottom, "the background turn is placed below"
        assert conversation.scroll_y == read, "the view moved"

"""A prompt turn rendered by the whole app: messages, thoughts, content blocks, tool calls, plans,
the status bar, and the conversation following the bottom."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp_tui.protocol.models import TextContent
from acp_tui.thread.entries import (
    Entry,
    MessageEntry,
    PlanSnapshotEntry,
    ToolCallEntry,
    UnknownEntry,
)
from acp_tui.ui.markdown import StreamingMarkdown
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.entry_state import THOUGHT
from acp_tui.ui.widgets.live_entry import LiveEntry
from acp_tui.ui.widgets.message_view import AgentMessageView, MessageLines
from acp_tui.ui.widgets.plan_view import PlanView
from acp_tui.ui.widgets.sidebar import Sidebar
from acp_tui.ui.widgets.status_bar import StatusBar
from acp_tui.ui.widgets.tool_call_card import ToolCallCard
from tests.agents.scenarios import Step, stream_text, write_scenario
from tests.ui.app_harness import (
    ANSWER_MD,
    THOUGHT_TEXT,
    AppHarness,
    fixed_cwd,
    gate,
    one_turn,
    paced,
    plain,
    plan_entries,
    rich_turn_updates,
    run_app,
    text,
    upd,
)
from tests.ui.conversation_text import shown, thaw_all


def cards_by_title(h: AppHarness) -> dict[str, ToolCallCard]:
    return {str(card.entry.title): card for card in h.all(ToolCallCard)}


async def thawed(h: AppHarness) -> None:
    """The finished turn's entries thawed into live widgets by Enter, as a user opens them."""
    await thaw_all(h.pilot, h.one(ConversationView))


def agent_sources(h: AppHarness) -> list[str]:
    """The text of every agent message shown: streaming ones as their views have it, those
    drawn from data once finished (frozen or live) as their data has it (once each)."""
    conversation = h.one(ConversationView)
    streaming = [md.source for v in h.all(AgentMessageView) for md in v.query(StreamingMarkdown)]
    return streaming + [
        "".join(block.text for block in entry.blocks if isinstance(block, TextContent))
        for entry, _ in shown(conversation)
        if isinstance(entry, MessageEntry)
        and entry.role == "agent"
        and not isinstance(conversation.views.get(entry.id), AgentMessageView)
    ]


def messages(h: AppHarness, role: str) -> list[MessageLines]:
    return [view for view in h.all(MessageLines) if view.message.role == role]


def unknown_entries(h: AppHarness) -> list[LiveEntry]:
    return [view for view in h.all(LiveEntry) if isinstance(view.entry, UnknownEntry)]


def shown_of(h: AppHarness, kind: type[Entry]) -> list[tuple[Entry, str]]:
    """The entries of `kind` the conversation shows (frozen or live, each once), with their text."""
    return [
        (entry, text) for entry, text in shown(h.one(ConversationView)) if isinstance(entry, kind)
    ]


async def run_rich_turn_paced(h: AppHarness) -> None:
    await h.type_prompt("fix total")
    await h.through_gates(len(rich_turn_updates()))
    await h.settle()


async def test_every_kind_of_content_is_rendered(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, one_turn(paced(rich_turn_updates())))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await run_rich_turn_paced(h)
        assert h.logged_errors == []
        await thawed(h)

        (user,) = messages(h, "user")
        assert "fix total" in user.text

        (thought,) = messages(h, "thought")
        assert thought.text.strip() == "▶ 💭 thought", "a thought folds once the turn moved on"
        thought.action_toggle_section(THOUGHT)  # (what a click on its title does)
        await h.pilot.pause()
        assert thought.text.splitlines()[0].strip() == "▼ 💭 thought"
        assert " ".join(THOUGHT_TEXT.split()[:3]) in thought.text
        assert thought.look.style("thought").italic

        (answer,) = messages(h, "agent")
        shown = answer.text.splitlines()
        assert "🖼 [image: image/png, 8 B]" in [line.strip() for line in shown]
        link = next(line for line in shown if line.strip().startswith("🔗"))
        assert "notes.md" in link and "file:///project/notes.md" in link and "2.0 KB" in link
        assert "▶ 📎 file:///project/a.py (2 lines)" in answer.text, "a resource folds"

        assert agent_sources(h) == [ANSWER_MD]
        rendered = answer.text
        assert "Summary" in rendered and "• one" in rendered and "print('hi')" in rendered
        assert "**" not in rendered and "```" not in rendered

        (unknown,) = unknown_entries(h)
        assert "future_update_kind" in unknown.text and '"answer": 42' in unknown.text


async def test_tool_call_cards(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, one_turn(paced(rich_turn_updates())))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await run_rich_turn_paced(h)
        await thawed(h)
        cards = cards_by_title(h)
        assert set(cards) == {"Read src/app.py", "Edit src/app.py", "Fetch https://example.invalid"}

        read = cards["Read src/app.py"]
        header = read.header
        assert header.startswith("⇲ Read src/app.py") and "✓ completed" in header
        assert read.has_class("-folded"), "a completed call without a diff folds to one line"
        assert "Read 2 lines." not in read.text and "raw input" not in read.text
        read.toggle()  # unfolded: content, locations, the raw sections closed
        await h.settle()
        assert "Read 2 lines." in read.text
        assert "📍 /project/src/app.py:1" in read.text
        assert "▶ raw input" in read.text and "▶ raw output" in read.text

        edit = cards["Edit src/app.py"]
        header = edit.header
        assert header.startswith("✎ Edit src/app.py") and "○ pending" in header
        assert not edit.has_class("-folded")
        preview = edit.text
        assert "+    return a + b + c" in preview.replace("+     ", "+    ")
        assert "/project/src/app.py" in preview

        fetch = cards["Fetch https://example.invalid"]
        header = fetch.header
        assert header.startswith("⇣ Fetch") and "✗ failed" in header
        assert fetch.has_class("-failed") and not fetch.has_class("-folded")
        assert "▶ raw input" in fetch.text
        assert "▼ raw output" in fetch.text, "a failed call shows its output"


async def test_tool_call_status_walks_through_every_state(tmp_path: Path) -> None:
    def status(value: str, call: str = "t1") -> dict[str, Any]:
        return upd("tool_call_update", toolCallId=call, status=value)

    updates = [
        upd("tool_call", toolCallId="t1", title="Run tests", kind="execute", status="pending"),
        status("in_progress"),
        status("completed"),
        upd("tool_call", toolCallId="t2", title="Lint", kind="execute", status="in_progress"),
        status("failed", "t2"),
    ]
    agent = write_scenario(tmp_path, one_turn(paced(updates)))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("go")
        seen: list[tuple[str, bool]] = []
        for _ in updates:
            await h.caught_up()
            card = cards_by_title(h)["Run tests"]
            seen.append((card.header, card.has_class("-running")))
            await h.through_gates(1)
        await h.settle()
        await thawed(h)
        assert "○ pending" in seen[0][0] and seen[0][0].startswith("▶ Run tests")
        assert "◐ running" in seen[1][0] and seen[1][1]
        assert "✓ completed" in seen[2][0] and not seen[2][1]
        lint = cards_by_title(h)["Lint"]
        assert "✗ failed" in lint.header
        assert h.logged_errors == []


async def test_elapsed_time_is_shown_for_finished_calls(tmp_path: Path) -> None:
    updates = [
        upd("tool_call", toolCallId="t1", title="Build", kind="execute", status="in_progress"),
        upd("tool_call_update", toolCallId="t1", status="completed"),
    ]
    agent = write_scenario(tmp_path, one_turn(paced(updates)))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("go")
        await h.through_gates(2)
        await h.settle()
        await thawed(h)
        card = cards_by_title(h)["Build"]
        elapsed = card.elapsed
        assert elapsed is not None and elapsed >= 0
        assert card.header.rstrip().endswith("s")


async def test_plans_inline_and_in_the_sidebar(tmp_path: Path) -> None:
    r, w = "Read", "Write"
    updates = [
        upd("plan", entries=plan_entries((r, "high", "in_progress"), (w, "low", "pending"))),
        upd("plan", entries=plan_entries((r, "high", "completed"), (w, "low", "in_progress"))),
        upd("plan_update", plan={"type": "items", "planId": "p2",
                                 "entries": plan_entries(("Extra", "low", "pending"))}),
        upd("plan_removed", planId="p2"),
    ]  # fmt: skip
    agent = write_scenario(tmp_path, one_turn(paced(updates)))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("plan it")
        await h.through_gates(2)
        sidebar_plans = [plain(v) for v in h.one(Sidebar).query(PlanView)]
        assert len(sidebar_plans) == 2
        assert sidebar_plans[0].startswith("Plan 1/2")
        assert "☑ Read  [high]" in sidebar_plans[0] and "◐ Write  [low]" in sidebar_plans[0]
        assert sidebar_plans[1].startswith("Plan p2 0/1") and "☐ Extra" in sidebar_plans[1]
        await h.through_gates(2)
        await h.settle()
        sidebar_plans = [plain(v) for v in h.one(Sidebar).query(PlanView)]
        assert len(sidebar_plans) == 1 and sidebar_plans[0].startswith("Plan 1/2")
        inline = [text.lstrip("█ ") for _, text in shown_of(h, PlanSnapshotEntry)]
        # consecutive snapshots of one plan update in place; p2 stays, marked removed
        assert len(inline) == 2
        assert inline[0].startswith("Plan 1/2")
        assert inline[1].startswith("Plan p2 (removed)")


async def test_one_live_plan_a_turn_updated_in_place_and_exported_once(tmp_path: Path) -> None:
    """A plan sent again at every step of a turn, between messages and tool calls, is one block
    updated in place (it was a new "Plan n/3" block each time); the export has its last state."""
    a, b, c = "Read", "Edit", "Test"

    def plan(*statuses: str) -> Step:
        items = [(name, "medium", status) for name, status in zip((a, b, c), statuses, strict=True)]
        return upd("plan", entries=plan_entries(*items))

    updates = [
        plan("in_progress", "pending", "pending"),
        upd("agent_message_chunk", content=text("Reading.")),
        upd("tool_call", toolCallId="t1", title="Read app.py", kind="read", status="completed"),
        plan("completed", "in_progress", "pending"),
        upd("agent_thought_chunk", content=text("Now the edit.")),
        plan("completed", "completed", "in_progress"),
        upd("agent_message_chunk", content=text("Testing.")),
        plan("completed", "completed", "completed"),
    ]
    agent = write_scenario(tmp_path, one_turn(updates))
    cwd = fixed_cwd(tmp_path)
    async with run_app(agent.argv, cwd) as h:
        await h.prompt("do it")
        await h.settle()
        inline = [text.lstrip("█ ") for _, text in shown_of(h, PlanSnapshotEntry)]
        assert len(inline) == 1, inline
        assert inline[0].startswith("Plan 3/3"), inline[0]
        await h.type_prompt("/export")
        exports = cwd / ".acp-tui"
        await h.until(lambda: exports.exists() and list(exports.iterdir()), "the export")
        [path] = list(exports.iterdir())
        markdown = path.read_text()
    assert markdown.count("### Plan") == 1, markdown
    assert "- [x] Test _(medium)_" in markdown


async def test_status_bar_shows_agent_title_mode_usage_and_running(tmp_path: Path) -> None:
    updates = [
        upd("session_info_update", title="Fix total()"),
        upd("usage_update", used=12_345, size=200_000, cost={"amount": 0.05, "currency": "USD"}),
    ]
    steps = one_turn(paced(updates))
    steps[0]["respond"]["agentInfo"] = {"name": "scripted", "title": "Scripted Agent",
                                        "version": "1"}  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        bar = h.one(StatusBar)
        await h.until(lambda: "Scripted Agent" in plain_bar(bar), "the agent's name")
        assert "mode: Ask" in plain_bar(bar) and "● ready" in plain_bar(bar)
        await h.type_prompt("go")
        await h.through_gates(1)
        await h.until(lambda: "$0.05" in plain_bar(bar), "the usage")
        line = plain_bar(bar)
        assert "Fix total()" in line
        assert "working" in line and "esc to cancel" in line
        assert "12.3k/200.0k tokens (6%)" in line and "$0.05" in line
        await h.through_gates(1)
        await h.settle()
        await h.until(lambda: "● ready" in plain_bar(bar), "the running indicator to stop")
        assert "working" not in plain_bar(bar)


def plain_bar(bar: StatusBar) -> str:
    return bar.render().plain


async def test_conversation_follows_the_bottom_until_the_user_scrolls_up(tmp_path: Path) -> None:
    lines = "".join(f"line {n} of a long answer\n\n" for n in range(80))
    steps = one_turn(
        [stream_text("$session_id", lines[: len(lines) // 2], chunk=40), gate(),
         stream_text("$session_id", lines[len(lines) // 2 :], chunk=40), gate()]
    )  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path), size=(100, 30)) as h:
        conversation = h.one(ConversationView)
        await h.type_prompt("long please")
        await h.through_gates(1)
        await h.until(lambda: conversation.max_scroll_y > 20, "the answer to overflow")
        await h.until(
            lambda: conversation.scroll_y == conversation.max_scroll_y, "following the bottom"
        )
        conversation.focus()
        await h.pilot.press("pageup", "pageup")
        await h.pilot.pause()
        scrolled_to = conversation.scroll_y
        assert scrolled_to < conversation.max_scroll_y
        await h.through_gates(1)
        await h.settle()
        assert conversation.scroll_y == scrolled_to, "new text must not pull the reader down"
        assert conversation.max_scroll_y > scrolled_to
        # back at the bottom, it follows again
        await h.pilot.press("end")
        await h.until(lambda: conversation.scroll_y == conversation.max_scroll_y, "the bottom")


# ------------------------------------------------------------------ bursts (no pacing)


async def test_a_burst_of_updates_renders_every_entry_once(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, one_turn(rich_turn_updates()))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.prompt("fix total")
        await h.caught_up()
        assert len(shown_of(h, ToolCallEntry)) == 3
        assert len(shown_of(h, UnknownEntry)) == 1
        assert agent_sources(h) == [ANSWER_MD]
        assert h.logged_errors == []


async def test_text_streamed_flat_out_is_shown_once_and_whole(tmp_path: Path) -> None:
    answer = ANSWER_MD * 20
    agent = write_scenario(tmp_path, one_turn([stream_text("$session_id", answer, chunk=8)]))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.prompt("stream")
        assert agent_sources(h) == [answer]
        assert h.logged_errors == []


async def test_text_streamed_after_the_message_mounted_arrives_whole(tmp_path: Path) -> None:
    answer = ANSWER_MD * 20
    steps = one_turn(
        [upd("agent_message_chunk", content=text("Start.\n\n")), gate(),
         stream_text("$session_id", answer, chunk=8)]
    )  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("stream")
        await h.through_gates(1)
        await h.settle()
        assert agent_sources(h) == ["Start.\n\n" + answer]
        assert h.logged_errors == []

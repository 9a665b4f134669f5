"""A message of megabytes is drawn a page at a time: the first `TEXT_PAGE` characters, then a
line saying how much is left, which a click extends by a page; the thread keeps the whole text
(the export has it)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from acp_tui.output.export import conversation_markdown
from acp_tui.thread.entries import MessageEntry
from acp_tui.ui.markdown import StreamingMarkdown
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.message_lines import TEXT_PAGE
from acp_tui.ui.widgets.message_view import AgentMessageView, MessageLines
from tests.agents.hostile import huge_chunk_steps
from tests.agents.scenarios import write_scenario
from tests.ui.app_harness import fixed_cwd, one_turn, paced, plain, run_app, text, upd
from tests.ui.conversation_text import entry_text, live_view


async def test_one_huge_unbroken_chunk_is_drawn_a_page_at_a_time(tmp_path: Path) -> None:
    size, after = 1_000_000, 2_000
    agent = write_scenario(tmp_path, one_turn(huge_chunk_steps(size, after)))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("go")
        await h.settle()
        [message] = [
            e for e in h.session.thread.entries if isinstance(e, MessageEntry) and e.role == "agent"
        ]
        whole = len(message.text)
        assert whole == size + sum(len(f"y{n}") for n in range(after))  # all of it kept
        conversation = h.one(ConversationView)
        shown = entry_text(conversation, message.id)
        assert f"▸ {whole - TEXT_PAGE:,} more characters not shown" in shown
        assert shown.count("x") < TEXT_PAGE + 200  # (the note's own letters)
        view = await live_view(h.pilot, conversation, message.id)
        assert isinstance(view, MessageLines)
        conversation.scroll_end(animate=False, immediate=True)
        await h.pilot.pause()
        rows = list(h.app.screen._compositor.render_strips())
        row = next(y for y, strip in enumerate(rows) if "more characters not shown" in strip.text)
        assert await h.pilot.click(offset=(rows[row].text.index("▸") + 4, row))
        await h.until(lambda: view.state.text_pages.get(0) == 2, "the next page")
        await h.pilot.pause()
        shown = view.text
        assert f"▸ {whole - 2 * TEXT_PAGE:,} more characters not shown" in shown
        assert TEXT_PAGE * 2 <= shown.count("x") < TEXT_PAGE * 2 + 200
        assert "y1999" in conversation_markdown(h.session.thread.entries)


async def test_a_long_block_after_another_block_is_cut_while_it_streams(tmp_path: Path) -> None:
    """The streaming message already on screen gains a text block longer than a page after an
    image: it grows to a page and says the rest comes when the message is complete."""
    image = {"type": "image", "mimeType": "image/png", "data": "AAAA"}
    updates = [
        upd("agent_message_chunk", content=image),
        upd("agent_message_chunk", content=text("z" * (TEXT_PAGE + 5_000))),
        upd("agent_message_chunk", content=text("tail")),
    ]
    agent = write_scenario(tmp_path, one_turn(paced(updates)))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("go")
        await h.through_gates(2)
        [view] = h.all(AgentMessageView)
        await h.until(
            lambda: any("the rest is shown a page" in plain(s) for s in view.query(Static)),
            "the note under the cut block",
        )
        assert sum(m.length for m in view.query(StreamingMarkdown)) == TEXT_PAGE
        await h.through_gates(1)
        await h.settle()
        assert not h.logged_errors

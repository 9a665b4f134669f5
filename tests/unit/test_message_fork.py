"""Where a conversation can be continued from, and how the carried context looks."""

from __future__ import annotations

from acp_tui.client.message_fork import (
    CONTEXT_INTRO,
    ForkPoint,
    context_blocks,
    fork_point,
    messages,
    preview,
)
from acp_tui.composer.prompt_content import PromptCapabilities
from acp_tui.protocol.models import TextContent
from acp_tui.thread.entries import Entry, MessageEntry, PlanSnapshotEntry, PlanState, ToolCallEntry


def msg(role: str, text: str, id: int) -> MessageEntry:
    return MessageEntry(role, [TextContent(text=text)], id=id)  # type: ignore[arg-type]


def conversation() -> list[Entry]:
    return [
        msg("user", "fix the bug", 1),
        msg("thought", "hmm", 2),
        ToolCallEntry("t1", title="Read a.py", id=3),
        msg("agent", "fixed it", 4),
        msg("thought", "done?", 5),
        PlanSnapshotEntry(PlanState(None), id=6),
    ]


def test_latest_means_no_message_or_tool_call_after_it() -> None:
    entries = conversation()
    assert fork_point(entries, 4) == ForkPoint(3, latest=True)  # a thought and a plan after it
    assert fork_point(entries, 3) == ForkPoint(2, latest=False)
    assert fork_point(entries, 1) == ForkPoint(0, latest=False)
    assert fork_point(entries, 99) is None


def test_messages_to_pick_are_the_users_and_the_agents_newest_first() -> None:
    found = messages([*conversation(), msg("agent", "   ", 7)])
    assert [m.id for m in found] == [4, 1]
    long = msg("user", "word " * 40, 8)
    assert preview(long, "Gemini").startswith("You: word word") and preview(long, "x").endswith("…")
    assert preview(found[0], "Gemini") == "Gemini: fixed it"


def test_the_context_is_a_resource_or_text_by_the_agents_prompt_capabilities() -> None:
    entries = conversation()[:3]
    embedded = context_blocks(
        entries, session_id="s1", entry_id=3, caps=PromptCapabilities(embedded_context=True)
    )
    assert embedded[0] == {"type": "text", "text": CONTEXT_INTRO}
    resource = embedded[1]["resource"]
    assert resource["uri"] == "acp-tui://conversation/s1?until=3"
    assert "fix the bug" in resource["text"] and "Read a.py" in resource["text"]
    (plain,) = context_blocks(entries, session_id="s1", entry_id=3, caps=PromptCapabilities())
    assert plain["text"].startswith(CONTEXT_INTRO) and "fix the bug" in plain["text"]

"""Unstable `notice` and compaction updates sent by a scripted agent, as the app shows them:
a notice as a toast and in the sidebar (not in the conversation, not exported); a compaction
as one conversation entry, "Compacting context…", then its summary folded under "Context
compacted" (a click opens it), or failed with the agent's error."""

from __future__ import annotations

import re
from pathlib import Path

from acp_tui.thread.entries import CompactionEntry
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.live_entry import LiveEntry
from acp_tui.ui.widgets.notices_section import NoticesSection
from tests.agents.scenarios import write_scenario
from tests.ui.app_harness import (
    AppHarness,
    fixed_cwd,
    one_turn,
    paced,
    plain,
    run_app,
    text,
    upd,
)
from tests.ui.conversation_text import conversation_text, shown


def compaction_views(h: AppHarness) -> list[LiveEntry]:
    return [
        view
        for view in h.one(ConversationView).query(LiveEntry)
        if isinstance(view.entry, CompactionEntry)
    ]


async def test_a_notice_is_a_toast_and_listed_but_not_a_conversation_entry(
    tmp_path: Path,
) -> None:
    updates = [
        upd("agent_message_chunk", content=text("working")),
        upd("notice", severity="warning", title="Rate [bold]limited[/]",
            description="Retrying in 30s\x1b[2J"),
        upd("notice", severity="_vendor_custom", title="Model switched"),
    ]  # fmt: skip
    agent = write_scenario(tmp_path, one_turn(paced(updates)))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        section = h.one(NoticesSection)
        assert not section.display  # no notice yet: no section
        await h.type_prompt("go")
        await h.through_gates(3)
        await h.settle()
        assert "Retrying in 30s␛[2J" in h.notified
        assert "Model switched" in h.notified
        assert section.display
        listed = plain(section)
        assert "Rate [bold]limited[/]" in listed and "Retrying in 30s" in listed
        assert "\x1b" not in listed
        assert listed.index("Rate") < listed.index("Model switched")
        # not part of the conversation
        assert [type(e).__name__ for e in h.session.thread.entries] == [
            "MessageEntry",
            "MessageEntry",
        ]
        shown_text = conversation_text(h.one(ConversationView))
        assert "working" in shown_text and "Rate" not in shown_text


async def test_a_compaction_runs_then_shows_its_summary_folded(tmp_path: Path) -> None:
    updates = [
        upd("compaction_update", compactionId="c1", status="in_progress"),
        upd("compaction_summary_chunk", compactionId="c1", content=text("Fixed **total()** ")),
        upd("compaction_summary_chunk", compactionId="c1", content=text("in calc.py.")),
        upd("agent_message_chunk", content=text("Carrying on.")),
        upd("compaction_update", compactionId="c1", status="completed"),
        upd("compaction_update", compactionId="c2", status="in_progress"),
        upd("compaction_update", compactionId="c2", status="failed", error="context [red]x"),
    ]
    agent = write_scenario(tmp_path, one_turn(paced(updates)))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("go")
        await h.through_gates(1)
        [view] = compaction_views(h)
        assert view.text.strip() == "⟳ Compacting context…"
        await h.through_gates(4)  # (c2 starts right after the last)
        view = compaction_views(h)[0]
        assert view.text.strip() == "▶ Context compacted"
        kinds = [type(e).__name__ for e in h.session.thread.entries]
        assert kinds[:3] == ["MessageEntry", "CompactionEntry", "MessageEntry"]
        await h.pilot.click(view, offset=(3, 0))
        await h.until(lambda: "▼ Context compacted" in view.text, "the summary to open")
        assert "Fixed total() in calc.py." in view.text
        await h.through_gates(2)
        await h.settle()
        conversation = h.one(ConversationView)
        compactions = [t for e, t in shown(conversation) if isinstance(e, CompactionEntry)]
        assert len(compactions) == 2, "each compaction shown once (frozen at the turn end)"
        assert "▼ Context compacted" in compactions[0], "left open as the user opened it"
        failed = compactions[1]
        assert failed.split("\n")[:2] == ["✗ Context compaction failed", "context [red]x"]


async def test_a_flood_of_notices_is_a_few_toasts_and_a_count(tmp_path: Path) -> None:
    """Thousands of notices at once (each was a toast: the app froze for minutes): a few toasts,
    the rest told as counts (the pacer's clock stopped: one window, however long the flood
    takes), the sidebar listing the latest under "+K earlier notices", the thread keeping a
    bounded number."""
    from acp_tui.thread.thread import NOTICES_KEPT
    from acp_tui.ui.screens.main import MainScreen
    from acp_tui.ui.toast_pacer import TOASTS_PER_WINDOW, ToastPacer
    from tests.agents.hostile import notice_flood

    count = 3000
    flood = [*notice_flood(count), upd("agent_message_chunk", content=text("after the flood"))]
    agent = write_scenario(tmp_path, one_turn(flood))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        screen = h.app.screen
        assert isinstance(screen, MainScreen)
        screen.notice_toasts = ToastPacer(clock=lambda: 0.0)
        await h.type_prompt("go")
        await h.settle()

        def told() -> int:
            counts = (re.match(r"(\d+) more notices? from the agent", n) for n in h.notified)
            return sum(int(found[1]) for found in counts if found)

        await h.until(lambda: told() == count - TOASTS_PER_WINDOW, "every notice counted")
        assert len([n for n in h.notified if n.startswith("<notice>")]) == TOASTS_PER_WINDOW
        thread = h.session.thread
        assert thread.notice_count == count and len(thread.notices) < 2 * NOTICES_KEPT
        section = h.one(NoticesSection)
        await h.until(lambda: f"{count - 1}" in plain(section), "the last notice listed")
        assert plain(section).startswith(f"+{count - 20} earlier notices")

"""The whole app (Pilot) against claude-agent-acp 0.101 handing its work to a subagent
(`fake_llm.py --task`), driven by keys: the child's questions are answered with `a` in the
parent's tab, then its lane, opened with Enter, shows the child's own conversation as the
parent's is drawn: its cards (the new file's diff, the edit, the command's output) and what
became of each question."""

from __future__ import annotations

from pathlib import Path

from acp_tui.config import HoldWrites, Settings
from acp_tui.thread.subagent_sessions import SubagentLaneEntry
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.frozen_history import FrozenHistory
from acp_tui.ui.widgets.subagent_lane import SubagentLaneView
from tests.interop.conftest import NOTES, agent_for, start_fake_llm
from tests.interop.test_app import (
    START_SECONDS,
    answer_permissions_until_the_turn_ends,
    choose_mode_by_keys,
)
from tests.ui.app_harness import run_app


async def test_a_subagents_lane_by_keys(kit: Path, workdir: Path, tmp_path: Path) -> None:
    agent = agent_for("claude-agent-acp-new")
    settings = Settings(hold_writes=HoldWrites.NEVER)
    async with (
        start_fake_llm(kit, workdir, tmp_path / "llm.jsonl", "--task") as llm,
        run_app(
            [str(kit / "agent.sh"), agent.name],
            workdir,
            env={**llm.env, **agent.env()},
            wait_ready=False,
            session_kwargs={"settings": settings, "sandbox": agent.sandbox()},
            allow_unknown_methods=True,
        ) as h,
    ):
        await h.until(lambda: h.session.state.value == "ready", "ready", seconds=START_SECONDS)
        await choose_mode_by_keys(h, agent)  # Manual: it asks
        await h.type_prompt("Please do the task.")
        answered = await answer_permissions_until_the_turn_ends(h)
        await h.settle()
        assert answered > 0 and h.session.thread.last_stop_reason == "end_turn"
        assert (workdir / "notes.txt").read_text() == NOTES.replace("old line", "new line")

        conversation = h.one(ConversationView)
        (lane,) = [e for e in h.session.thread.entries if isinstance(e, SubagentLaneEntry)]
        await h.until(lambda: lane.id in conversation.frozen_entry_ids, "the lane frozen")
        history = conversation.query_children(FrozenHistory).first()
        history.focus()
        await h.settle()
        for _ in range(len(h.session.thread.entries)):
            if history.cursor_entry is lane:
                break
            await h.pilot.press("up")
        assert history.cursor_entry is lane
        await h.pilot.press("enter")  # the live lane, focused
        await h.until(lambda: h.all(SubagentLaneView), "the lane thawed")
        (view,) = h.all(SubagentLaneView)
        await h.until(lambda: view.has_focus, "the lane focused")
        await h.pilot.press("enter")  # opened
        await h.settle()
        text = view.text
        assert "Write hello.txt · Write" in text and "╭" in text  # the child's own cards
        assert "+ Hello from the fake LLM!" in text  # the new file's diff, in its card
        assert "- old line" in text and "+ new line" in text  # the edit's
        assert "shell-ok" in text  # the command's output
        assert text.count("✓ answered") == answered  # each question, as answered here

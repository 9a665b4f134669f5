"""A subagent's tool calls (claude-agent-acp's `_meta.claudeCode.parentToolUseId`) drawn under
their parent's card, folded to a count; a click on the count shows their cards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.tool_call_card import ToolCallCard
from tests.agents.scenarios import write_scenario
from tests.ui.app_harness import fixed_cwd, one_turn, paced, run_app, upd

PARENT = {"claudeCode": {"parentToolUseId": "task"}}


def child(tool_call_id: str, title: str, **fields: Any) -> Any:
    return upd("tool_call", toolCallId=tool_call_id, title=title, _meta=PARENT, **fields)


async def test_subagent_calls_fold_under_their_parent_card(tmp_path: Path) -> None:
    updates = [
        child("c0", "Glob **/*.py", status="completed"),  # before its parent: waits for it
        upd("tool_call", toolCallId="task", title="Task: find the bug", kind="think",
            status="in_progress"),
        child("c1", "Read calc.py", kind="read", status="in_progress"),
        upd("tool_call_update", toolCallId="c1", status="completed", _meta=PARENT),
        child("c2", "Grep total", kind="search", status="completed"),
    ]  # fmt: skip
    agent = write_scenario(tmp_path, one_turn(paced(updates)))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("go")
        await h.through_gates(len(updates))
        await h.settle()
        [card] = h.all(ToolCallCard)  # the children have no card of their own
        lines = card.text.splitlines()
        count = next(i for i, line in enumerate(lines) if "by the subagent" in line)
        assert "▶ 3 tool calls by the subagent" in lines[count]
        assert "Read calc.py" not in card.text
        await h.pilot.click(card, offset=(4, count))
        await h.until(lambda: "▼ 3 tool calls by the subagent" in card.text, "the children")
        text = card.text
        assert text.index("Glob **/*.py") < text.index("Read calc.py") < text.index("Grep total")


async def test_parent_links_in_rings_are_cut_and_marked(tmp_path: Path) -> None:
    """Rings of parent links (two calls, three, one naming itself) looped the app for good:
    each ring is cut at the call that would close it, drawn on its own and marked."""
    from tests.agents.hostile import parent_cycle_steps
    from tests.ui.conversation_text import conversation_text

    agent = write_scenario(tmp_path, one_turn(parent_cycle_steps()))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("go")
        await h.settle()
        shown = conversation_text(h.one(ConversationView))
        assert "after the cycles" in shown
        for top, parent in (("b", "a"), ("z", "y"), ("s", "s")):
            assert f"Task {top}" in shown
            assert f"⚠ not nested under {parent}: the agent's parent links form a cycle" in shown
        for nested in ("a", "x", "y"):  # inside the cards above, folded
            assert f"Task {nested}" not in shown

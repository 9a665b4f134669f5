"""An agent that writes files itself (no fs/*), through the whole app: the change monitor lists
its edits in the Changes view attributed to their tool calls, a hunk is reverted there, a file
unlike its card's diff is flagged on the card, and the turn summary lists the files, opens a diff
and reverts the turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import OptionList

from acp_tui.thread.entries import ToolCallEntry
from acp_tui.ui.screens.changes_screen import ChangesScreen
from acp_tui.ui.screens.diff_screen import DiffScreen
from acp_tui.ui.screens.question import QuestionScreen
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.diff_view import DiffView
from acp_tui.ui.widgets.turn_summary import TurnSummaryView
from tests.agents.scenarios import (
    end_turn,
    expect_prompt,
    initialize_ok,
    new_session_ok,
    update,
    write_file,
    write_scenario,
)
from tests.ui.app_harness import AppHarness, fixed_cwd, run_app
from tests.ui.conversation_text import live_card

OLD_NOTES = "".join(f"line {i}\n" for i in range(1, 21))
NEW_NOTES = OLD_NOTES.replace("line 2\n", "line 2 (agent)\n").replace(
    "line 18\n", "line 18 (agent)\n"
)


def tool_call(call_id: str, title: str, path: Path, old: str | None, new: str) -> dict[str, Any]:
    return update("sess-1", {
        "sessionUpdate": "tool_call", "toolCallId": call_id, "title": title, "kind": "edit",
        "status": "in_progress", "locations": [{"path": str(path)}],
        "content": [{"type": "diff", "path": str(path), "oldText": old, "newText": new}],
    })  # fmt: skip


def completed(call_id: str) -> dict[str, Any]:
    return update("sess-1", {
        "sessionUpdate": "tool_call_update", "toolCallId": call_id, "status": "completed",
    })  # fmt: skip


def labels(screen: ChangesScreen) -> list[str]:
    files = screen.query_one(OptionList)
    return [str(files.get_option_at_index(i).prompt) for i in range(files.option_count)]


def call(h: AppHarness, call_id: str) -> ToolCallEntry:
    return h.session.thread.tool_calls[call_id]


async def test_agent_owned_writes_are_reviewed_like_client_writes(tmp_path: Path) -> None:
    project = fixed_cwd(tmp_path).resolve()
    (project / "notes.txt").write_text(OLD_NOTES)
    (project / "tidy.txt").write_text("tidy\n")
    steps = [
        initialize_ok(), new_session_ok(), expect_prompt(),
        tool_call("w1", "Write hello.txt", project / "hello.txt", None, "Hello\n"),
        write_file("hello.txt", "Hello\n"), completed("w1"),
        tool_call("e1", "Edit notes.txt", project / "notes.txt", OLD_NOTES, NEW_NOTES),
        write_file("notes.txt", NEW_NOTES), completed("e1"),
        tool_call("t1", "Tidy tidy.txt", project / "tidy.txt", "tidy\n", "tidied\n"),
        write_file("tidy.txt", "something else\n"), completed("t1"),
        end_turn(),
    ]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, project) as h:
        await h.prompt("edit the files")
        await h.until(lambda: h.all(TurnSummaryView), "the turn summary")
        summary = h.one(TurnSummaryView)
        await h.until(lambda: len(summary.summary.files) == 3, "three files in the summary")
        line = str(summary.render())
        assert "+1 \N{MINUS SIGN}0 hello.txt" in line
        assert "+2 \N{MINUS SIGN}2 notes.txt" in line
        assert "+1 \N{MINUS SIGN}1 tidy.txt" in line
        # each change counted once, by the monitor, with its tool call
        records = h.session.fs.changes.records
        assert [(r.path.name, r.observed and r.observed.tool_call_id) for r in records] == [
            ("hello.txt", "w1"), ("notes.txt", "e1"), ("tidy.txt", "t1"),
        ]  # fmt: skip
        # the card whose diff is not what landed says so; the others do not
        await h.until(lambda: "differs from this diff" in h.screen_text(), "the card's flag")
        assert call(h, "t1").disk_notes == ["tidy.txt on disk differs from this diff (F2)"]
        assert call(h, "e1").disk_notes == [] and call(h, "w1").disk_notes == []

        # the summary opens a file's diff
        summary.focus()
        await h.pilot.press("right")
        await h.pilot.press("enter")
        await h.until(lambda: isinstance(h.app.screen, DiffScreen), "the diff")
        view = h.app.screen.query_one(DiffView)
        shown = view.diff
        assert (shown.old_text, shown.new_text) == (OLD_NOTES, NEW_NOTES)
        assert view.header_text(100).plain.startswith(" notes.txt  +"), "relative to the project"
        await h.pilot.press("escape")
        # so does a card's (d)
        card = await live_card(h.pilot, h.one(ConversationView), call(h, "e1").id)
        card.action_show_diff()
        await h.until(
            lambda: isinstance(h.app.screen, DiffScreen) and h.app.screen.query(DiffView),
            "the card's diff",
        )
        assert h.app.screen.query_one(DiffView).header_text(100).plain.startswith(" notes.txt  +")
        await h.pilot.press("escape")

        # the Changes view: attributed, and a hunk reverted
        await h.pilot.press("f2")
        await h.until(lambda: isinstance(h.app.screen, ChangesScreen), "the Changes view")
        screen = h.app.screen
        assert isinstance(screen, ChangesScreen)
        await h.until(lambda: screen.loads >= 1, "the Changes view loaded")
        assert [label.split("\n")[1].strip() for label in labels(screen)] == [
            "by Edit notes.txt",
            "by Tidy tidy.txt",
            "by Write hello.txt",
        ]  # fmt: skip (edits of existing files first, the new file last)
        await h.until(lambda: screen.selected == project / "notes.txt", "notes.txt selected")
        await h.until(lambda: len(screen.query_one(DiffView).diff.hunks) == 2, "its diff")
        await h.pilot.press("r")
        expected = NEW_NOTES.replace("line 2 (agent)\n", "line 2\n")
        await h.until(lambda: (project / "notes.txt").read_text() == expected, "hunk reverted")
        await h.pilot.press("escape")

        # revert the turn: asked first; notes.txt changed since the turn and is left alone
        summary.focus()
        await h.pilot.press("R")
        await h.until(lambda: isinstance(h.app.screen, QuestionScreen), "the confirmation")
        asking = h.app.screen
        assert isinstance(asking, QuestionScreen)
        question = asking.question
        assert "DELETES hello.txt (created by the turn)" in question.detail
        assert "restores notes.txt, tidy.txt" in question.detail
        await h.pilot.press("y")
        await h.until(lambda: not (project / "hello.txt").exists(), "hello.txt removed")
        await h.until(lambda: (project / "tidy.txt").read_text() == "tidy\n", "tidy.txt back")
        assert (project / "notes.txt").read_text() == expected
        await h.until(lambda: any("left alone" in n for n in h.notified), "the notice")
        assert any("notes.txt: it changed since the turn" in n for n in h.notified)

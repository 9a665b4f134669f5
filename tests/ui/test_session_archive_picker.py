"""F5 with an agent that archives sessions, tells their status and renames them: archived
sessions hidden unless asked for (ctrl+s), ctrl+a archives or unarchives the highlighted one,
ctrl+n renames it, and a session the agent still has open says so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import OptionList

from acp_tui.ui.screens.rename_screen import RenameScreen
from acp_tui.ui.screens.session_picker import SessionPicker
from tests.agents.scenarios import initialize_ok, new_session_ok, write_scenario
from tests.ui.app_harness import fixed_cwd, run_app
from tests.ui.test_session_history import highlight, listed, picker_rows

CAPS: dict[str, Any] = {"list": {}, "resume": {}, "archive": {}, "status": {}, "title": {}}


async def test_archived_hidden_unless_asked_and_archiving_from_f5(tmp_path: Path) -> None:
    old = {**listed("old-1", "Old work"), "archived": True}
    agent = write_scenario(tmp_path, [
        initialize_ok(sessionCapabilities=CAPS),
        new_session_ok("sess-1"),
        {"expect": "session/list", "respond": {"sessions": [listed("a-1", "Fix the parser")]}},
        {"expect": "session/status", "match": {"sessionId": "a-1"},
         "respond": {"status": "open"}},
        {"expect": "session/list", "match": {"archived": "include"},
         "respond": {"sessions": [listed("a-1", "Fix the parser"), old]}},
        {"expect": "session/status", "match": {"sessionId": "a-1"},
         "respond": {"status": "open"}},
        {"expect": "session/status", "match": {"sessionId": "old-1"},
         "respond": {"status": "saved"}},
        {"expect": "session/unarchive", "match": {"sessionId": "old-1"}, "respond": {}},
        {"expect": "session/list", "match": {"archived": "include"},
         "respond": {"sessions": [listed("a-1", "Fix the parser"), listed("old-1", "Old work")]}},
        {"expect": "session/status", "match": {"sessionId": "a-1"},
         "respond": {"status": "open"}},
        {"expect": "session/status", "match": {"sessionId": "old-1"},
         "respond": {"status": "saved"}},
        {"expect": "session/set_title", "match": {"sessionId": "a-1", "title": "Parser, fixed"},
         "respond": {}},
    ])  # fmt: skip
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.pilot.press("f5")
        await h.until(lambda: isinstance(h.app.screen, SessionPicker), "the picker")
        await h.until(lambda: any("Fix the parser" in r for r in picker_rows(h)), "the list")
        await h.until(lambda: "open" in picker_rows(h)[0], "its status")
        assert not any("Old work" in r for r in picker_rows(h))  # archived: hidden
        assert "ctrl+a archive" in h.screen_text()
        await h.pilot.press("ctrl+s")
        await h.until(lambda: any("Old work" in r for r in picker_rows(h)), "the archived one")
        row = next(r for r in picker_rows(h) if "Old work" in r)
        assert "archived" in row and "open" not in row
        await highlight(h, "Old work")
        h.app.screen.query_one(OptionList).focus()
        await h.pilot.press("ctrl+a")
        await h.until(lambda: h.sent_methods("session/unarchive"), "the unarchive")
        await h.until(lambda: len(h.sent_methods("session/list")) == 3, "the list again")
        await h.until(
            lambda: all("archived" not in r for r in picker_rows(h)), "unarchived, listed again"
        )
        (sent,) = h.sent_methods("session/unarchive")
        assert sent["params"] == {"sessionId": "old-1"}
        assert not h.sent_methods("session/archive")
        # ctrl+n renames the highlighted earlier session (session/set_title with its id)
        await highlight(h, "Fix the parser")
        await h.pilot.press("ctrl+n")
        await h.until(lambda: isinstance(h.app.screen, RenameScreen), "the rename screen")
        for _ in range(30):
            await h.pilot.press("backspace")
        await h.pilot.press(*"Parser, fixed", "enter")
        await h.until(lambda: h.sent_methods("session/set_title"), "the rename")
        assert h.session.thread.title != "Parser, fixed"  # (another session's title)

"""Renaming a session (the palette's "Rename session…"): the new title shows in the tab bar and
the overview; an agent that offers `session/set_title` is told, one that does not is not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from acp_tui.client.session.overview import SessionWatch
from acp_tui.ui.screens.main import MainScreen
from acp_tui.ui.screens.rename_screen import RenameScreen
from acp_tui.ui.workspace.tab_bar import TabBar
from tests.agents.scenarios import initialize_ok, new_session_ok, write_scenario
from tests.ui.app_harness import fixed_cwd, run_app


@pytest.mark.parametrize("offered", [True, False])
async def test_rename_from_the_palette(tmp_path: Path, offered: bool) -> None:
    caps: dict[str, Any] = {"sessionCapabilities": {"title": {}}} if offered else {}
    steps = [initialize_ok(**caps), new_session_ok()]
    if offered:
        steps.append({"expect": "session/set_title", "respond": {}})
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        screen = h.app.screen
        assert isinstance(screen, MainScreen)
        names = [name for name, _, _ in screen.extra_commands()]
        assert "Rename session…" in names
        screen.action_rename_session()
        await h.until(lambda: isinstance(h.app.screen, RenameScreen), "the rename screen")
        for _ in range(40):
            await h.pilot.press("backspace")
        await h.pilot.press(*"Fix  the parser ")
        await h.pilot.press("enter")
        await h.until(lambda: h.session.thread.title == "Fix the parser", "the new title")
        sent = h.sent_methods("session/set_title")
        if offered:
            assert [f["params"] for f in sent] == [
                {"sessionId": "sess-1", "title": "Fix the parser"}
            ]
        else:
            assert sent == []
        assert SessionWatch(h.session).row().title == "Fix the parser"
        await h.until(lambda: [label.title for label in h.one(TabBar).labels] == ["Fix the parser"],
                      "the tab bar's title")  # fmt: skip

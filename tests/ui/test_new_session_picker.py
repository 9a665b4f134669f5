"""The new-session picker (ctrl+t): what it lists."""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.widgets import OptionList

from acp_tui.presets import Preset
from acp_tui.ui.workspace.new_session import NewSessionScreen
from acp_tui.ui.workspace.spec import SessionSpec


async def test_the_current_preset_is_listed_once_as_enters_choice(tmp_path: Path) -> None:
    claude = Preset("claude", ("claude-agent-acp",))
    gemini = Preset("gemini", ("gemini", "--acp"))
    current = SessionSpec(claude.command, tmp_path, claude)
    picked: list[SessionSpec | None] = []
    app: App[None] = App()
    async with app.run_test() as pilot:
        app.push_screen(NewSessionScreen(current, (claude, gemini)), picked.append)
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        labels = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        here = [label for label in labels if "another directory" not in label]
        here = [label for label in here if "git worktree" not in label]
        assert [label.split(" in ")[0] for label in here] == ["claude", "gemini"], labels
        options.highlighted = 1
        await pilot.press("enter")
        await pilot.pause()
    assert len(picked) == 1 and picked[0] is not None
    assert picked[0].preset is gemini and picked[0].argv == ("gemini", "--acp")


async def test_the_current_agent_is_named_as_it_names_itself_not_by_its_module(
    tmp_path: Path,
) -> None:
    """The demo runs as `python -m acp_tui.demo.agent`: ctrl+t said "acp_tui.demo.agent in …"
    where the status bar says the agent's own name."""
    from tests.ui.workspace_support import workspace_app

    async with workspace_app(tmp_path) as h:
        await h.pilot.press("ctrl+t")
        await h.until(lambda: isinstance(h.app.screen, NewSessionScreen), "the picker")
        options = h.app.screen.query_one(OptionList)
        first = str(options.get_option_at_index(0).prompt)
        assert first.startswith(f"{h.session.agent_name} in "), first
        assert "acp_tui.demo.agent" not in first
        await h.pilot.press("escape")

"""The help screen: f1 (or `?` in an empty prompt) lists acp-tui's keys by context, read from the
bindings with the user's keymap applied, its //commands and where the settings live; Esc closes
it. The palette's "Keys" opens it instead of Textual's key panel."""

from __future__ import annotations

from pathlib import Path

from acp_tui.config import Settings
from acp_tui.ui.screens.help_screen import HelpScreen
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.agents.scenarios import initialize_ok, new_session_ok, write_scenario
from tests.ui.app_harness import AppHarness, fixed_cwd, run_app


def help_text(h: AppHarness) -> str:
    screen = h.app.screen
    assert isinstance(screen, HelpScreen)
    console = h.app.console
    options = console.options.update_width(90)
    return "\n".join(
        "".join(segment.text for segment in line)
        for part in screen.parts
        for line in console.render_lines(part, options, pad=False)
    )


def row(text: str, keys: str, what: str) -> bool:
    """Whether the help has a row of `keys` saying `what`."""
    return any(
        line.split()[:1] == [keys] and what in line for line in text.splitlines() if line.strip()
    )


async def test_f1_opens_the_help_by_context_and_esc_closes_it(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.pilot.press("f1")
        await h.until(lambda: isinstance(h.app.screen, HelpScreen), "the help screen")
        text = help_text(h)
        for section in ("Conversation and prompt", "On a permission request",
                        "Reviewing a held write", "Changes of the session (f2)",
                        "Sessions in tabs", "acp-tui's commands", "Settings"):  # fmt: skip
            assert section in text, section
        assert row(text, "f2", "files changed") and "ctrl+t" in text and "//rewind" in text
        assert "1 … 9" in text, "the numbered options in one row"
        assert "config.toml" in text or "ACP_TUI_CONFIG" in text
        await h.pilot.press("escape")
        await h.until(lambda: not isinstance(h.app.screen, HelpScreen), "closed by esc")


async def test_question_mark_opens_the_help_only_in_an_empty_prompt(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.pilot.press("question_mark")
        await h.until(lambda: isinstance(h.app.screen, HelpScreen), "the help screen")
        await h.pilot.press("escape")
        await h.until(lambda: not isinstance(h.app.screen, HelpScreen), "closed")
        assert h.one(PromptInput).text == "", "the ? was not typed"
        await h.pilot.press("w", "h", "y", "question_mark")
        await h.pilot.pause()
        assert h.one(PromptInput).text == "why?" and not isinstance(h.app.screen, HelpScreen)


async def test_a_remapped_key_shows_remapped(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    settings = Settings(keymap={"main.changes": "f9", "app.help": "f10"})
    async with run_app(agent.argv, fixed_cwd(tmp_path), session_kwargs={"settings": settings}) as h:
        await h.pilot.press("f10")
        await h.until(lambda: isinstance(h.app.screen, HelpScreen), "the help on its new key")
        text = help_text(h)
        assert row(text, "f9", "files changed") and not row(text, "f2", "files changed")
        assert "f10" in text


async def test_the_palettes_keys_entry_opens_the_help(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        commands = {c.title: c for c in h.app.get_system_commands(h.app.screen)}
        commands["Keys"].callback()
        await h.until(lambda: isinstance(h.app.screen, HelpScreen), "the help screen")

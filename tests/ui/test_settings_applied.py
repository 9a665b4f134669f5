"""Settings the UI applies: theme files (shipped, user, bad ones reported) and the keymap."""

from __future__ import annotations

from pathlib import Path

from acp_tui.config import Settings
from acp_tui.ui.themes import load_themes, theme_dirs
from tests.agents.scenarios import initialize_ok, new_session_ok, write_scenario
from tests.ui.app_harness import fixed_cwd, run_app

REPO_THEMES = Path(__file__).resolve().parents[2] / "themes"


def test_the_shipped_themes_load_cleanly() -> None:
    assert REPO_THEMES in theme_dirs()
    themes, problems = load_themes([REPO_THEMES])
    assert problems == []
    assert {"acp-night", "acp-paper"} <= {theme.name for theme in themes}
    paper = next(theme for theme in themes if theme.name == "acp-paper")
    assert paper.dark is False and paper.primary == "#005fd7"


def test_bad_theme_files_are_reported_one_line_each(tmp_path: Path) -> None:
    (tmp_path / "ok.toml").write_text('name = "mine"\nprimary = "red"\n')
    (tmp_path / "broken.toml").write_text("name = \n")
    (tmp_path / "colour.toml").write_text('name = "c"\nprimary = "not-a-colour"\n')
    (tmp_path / "typo.toml").write_text('name = "t"\nprimery = "red"\nprimary = "red"\n')
    (tmp_path / "nameless.toml").write_text('primary = "red"\n')
    themes, problems = load_themes([tmp_path])
    assert [theme.name for theme in themes] == ["mine"]
    assert len(problems) == 4
    joined = "\n".join(problems)
    assert "broken.toml: not valid TOML" in joined
    assert "colour.toml: primary = 'not-a-colour' is not a colour" in joined
    assert "typo.toml: unknown keys: primery" in joined
    assert "nameless.toml: needs a `name`" in joined


async def test_the_theme_setting_is_applied_and_an_unknown_one_reported(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    settings = Settings(theme="acp-paper")
    async with run_app(agent.argv, fixed_cwd(tmp_path), session_kwargs={"settings": settings}) as h:
        assert h.app.theme == "acp-paper"
    other = write_scenario(tmp_path, [initialize_ok(), new_session_ok()], name="other")
    settings = Settings(theme="no-such-theme")
    async with run_app(other.argv, fixed_cwd(tmp_path), session_kwargs={"settings": settings}) as h:
        assert h.app.theme == "textual-dark"
        # shown with the other settings problems when the app started
        assert any("unknown theme 'no-such-theme'" in m for m in h.app.startup_messages)
        assert any(n.severity == "warning" for n in h.app._notifications)


async def test_the_keymap_setting_rebinds_keys(tmp_path: Path) -> None:
    from acp_tui.ui.screens.changes_screen import ChangesScreen

    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    settings = Settings(keymap={"main.changes": "f5"})
    async with run_app(agent.argv, fixed_cwd(tmp_path), session_kwargs={"settings": settings}) as h:
        await h.pilot.press("f2")
        await h.pilot.pause()
        assert not isinstance(h.app.screen, ChangesScreen), "f2 was rebound away"
        await h.pilot.press("f5")
        await h.until(lambda: isinstance(h.app.screen, ChangesScreen), "f5 opens the changes")


async def test_bad_keymap_entries_are_reported_by_name_and_good_ones_apply(
    tmp_path: Path,
) -> None:
    from acp_tui.ui.screens.changes_screen import ChangesScreen

    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    keymap = {
        "main.changes": "f5",  # good
        "main.chnages": "f6",  # no such binding
        "main.rules": "ctrl+fnord",  # no such key
        "main.copy": "f9,",  # an empty key
        "main.sessions": "hyper+meta+shift+f7",  # odd, but keys Textual can match
    }
    settings = Settings(keymap=keymap)
    async with run_app(agent.argv, fixed_cwd(tmp_path), session_kwargs={"settings": settings}) as h:
        problems = [m for m in h.app.startup_messages if m.startswith("keymap")]
        assert len(problems) == 3, problems
        joined = "\n".join(problems)
        assert "'main.chnages': no such binding" in joined
        assert "'main.rules' = 'ctrl+fnord': 'fnord' is not a key" in joined
        assert "'main.copy' = 'f9,': an empty key" in joined
        assert any(n.severity == "warning" for n in h.app._notifications)
        await h.pilot.press("f5")
        await h.until(lambda: isinstance(h.app.screen, ChangesScreen), "f5 opens the changes")

"""The palette's "Screenshot" saves under acp-tui's state directory through the file host and
says where: Textual's own saved into ~/Downloads, which often does not exist ("Failed to save
screenshot"), and said nothing of where or why."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agents.scenarios import write_scenario
from tests.ui.app_harness import AppHarness, fixed_cwd, one_turn, run_app


async def take_screenshot(h: AppHarness) -> str:
    """Run the palette's Screenshot command; the toast it ends with."""
    commands = {c.title: c for c in h.app.get_system_commands(h.app.screen)}
    commands["Screenshot"].callback()
    said = ("Saved to ", "Not saved: ", "Failed to save screenshot")
    await h.until(lambda: any(n.startswith(said) for n in h.notified), "the screenshot's toast")
    return next(n for n in h.notified if n.startswith(said))


async def test_the_screenshot_is_saved_under_the_state_directory_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"  # no ~/Downloads, as on a server
    home.mkdir()
    state = tmp_path / "state"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    agent = write_scenario(tmp_path, one_turn([]))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        toast = await take_screenshot(h)
    saved = list((state / "acp-tui" / "screenshots").iterdir())
    assert len(saved) == 1 and saved[0].suffix == ".svg"
    assert saved[0].read_text().startswith("<svg")
    assert f"Saved to {saved[0]}" in toast
    assert "Failed" not in toast


async def test_a_state_directory_inside_the_project_holds_an_own_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cwd = fixed_cwd(tmp_path)
    monkeypatch.setenv("XDG_STATE_HOME", str(cwd / "state"))
    agent = write_scenario(tmp_path, one_turn([]))
    async with run_app(agent.argv, cwd) as h:
        await take_screenshot(h)
        (saved,) = (cwd / "state" / "acp-tui" / "screenshots").iterdir()
        assert saved in h.session.fs.own_files  # never a change of the session


async def test_a_screenshot_that_cannot_be_written_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "state"
    blocked.write_text("a file where the directory should be\n")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocked))
    agent = write_scenario(tmp_path, one_turn([]))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        toast = await take_screenshot(h)
    assert "Not saved: cannot write " in toast and str(blocked) in toast

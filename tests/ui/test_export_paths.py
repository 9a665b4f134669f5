"""/export through the file host: a symlinked `.acp-tui` or a planted symlink at the export's
name leads outside, so the user is asked (the same question as an agent's write) and nothing
is written there when they deny; inside, the export is written and is one of acp-tui's own
files (never a change of the session)."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from acp_tui.ui.screens.question import QuestionScreen
from tests.agents.scenarios import write_scenario
from tests.ui.app_harness import AppHarness, fixed_cwd, one_turn, run_app


async def asked_and_denied(h: AppHarness) -> QuestionScreen:
    await h.until(lambda: isinstance(h.app.screen, QuestionScreen), "the question")
    screen = h.app.screen
    assert isinstance(screen, QuestionScreen)
    await h.pilot.press("d")  # deny
    await h.until(lambda: any("Export failed" in n for n in h.notified), "the failure notice")
    return screen


async def test_a_symlinked_acp_tui_directory_is_asked_about(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, one_turn([]))
    cwd = fixed_cwd(tmp_path).resolve()
    outside = tmp_path / "outside"
    outside.mkdir()
    (cwd / ".acp-tui").symlink_to(outside)
    async with run_app(agent.argv, cwd) as h:
        await h.type_prompt("/export")
        screen = await asked_and_denied(h)
        assert screen.question.kind == "outside_cwd"
        assert (
            screen.question.title
            == "The export wants to write a path outside the session directory"
        )
        assert str(outside) in screen.question.detail
        assert list(outside.iterdir()) == []
        assert any("not written" in n and str(outside) in n for n in h.notified)


async def test_a_planted_symlink_at_the_export_name_is_asked_about(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, one_turn([]))
    cwd = fixed_cwd(tmp_path).resolve()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    exports = cwd / ".acp-tui"
    exports.mkdir()
    now = datetime.now()
    for second in range(120):  # every name the default export may take in the next two minutes
        stamp = (now + timedelta(seconds=second)).strftime("%Y%m%d-%H%M%S")
        (exports / f"conversation-{stamp}.md").symlink_to(victim)
    async with run_app(agent.argv, cwd) as h:
        await h.type_prompt("/export")
        screen = await asked_and_denied(h)
        assert screen.question.data["resolved"] == str(victim)
        assert victim.read_text() == "precious\n"


async def test_an_export_inside_is_written_and_is_an_own_file(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, one_turn([]))
    cwd = fixed_cwd(tmp_path).resolve()
    async with run_app(agent.argv, cwd) as h:
        await h.type_prompt("/export mine.md")
        await h.until(lambda: (cwd / "mine.md").exists(), "the export")
        assert (cwd / "mine.md").read_text().startswith("# Conversation\n")
        assert cwd / "mine.md" in h.session.fs.own_files
        assert not isinstance(h.app.screen, QuestionScreen)

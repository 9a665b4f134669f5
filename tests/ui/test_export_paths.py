"""/export through the file host: a symlinked `.acp-tui` or a planted symlink at the export's
name leads outside, so the user is asked (the same question as an agent's write) and nothing
is written there when they deny; inside, the export is written and is one of acp-tui's own
files (never a change of the session)."""

from __future__ import annotations

import os
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


async def test_an_outside_path_the_user_typed_is_written_without_a_question(
    tmp_path: Path,
) -> None:
    """`//export ~/notes/x.md`: the user chose the place (issue 39, 13); written through the
    host's atomic write all the same, and an own file of acp-tui's."""
    agent = write_scenario(tmp_path, one_turn([]))
    cwd = fixed_cwd(tmp_path).resolve()
    notes = (tmp_path / "notes").resolve()
    notes.mkdir()
    async with run_app(agent.argv, cwd) as h:
        await h.type_prompt(f"/export {notes / 'x.md'}")
        await h.until(lambda: (notes / "x.md").exists(), "the export")
        assert (notes / "x.md").read_text().startswith("# Conversation\n")
        assert not isinstance(h.app.screen, QuestionScreen)
        assert any("exported to" in n and str(notes / "x.md") in n for n in h.notified)
        assert notes / "x.md" in h.session.fs.own_files


async def test_a_typed_special_file_or_a_typed_inside_name_leading_outside_is_not_taken(
    tmp_path: Path,
) -> None:
    """What the user typed is theirs only as typed: a name inside the project that a symlink
    leads outside is still asked about, and a FIFO outside is refused without a question."""
    agent = write_scenario(tmp_path, one_turn([]))
    cwd = fixed_cwd(tmp_path).resolve()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (cwd / "planted.md").symlink_to(victim)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    async with run_app(agent.argv, cwd) as h:
        await h.type_prompt("/export planted.md")
        screen = await asked_and_denied(h)
        assert screen.question.data["resolved"] == str(victim)
        assert victim.read_text() == "precious\n"
        failures = len([n for n in h.notified if "Export failed" in n])
        await h.type_prompt(f"/export {fifo}")
        await h.until(
            lambda: len([n for n in h.notified if "Export failed" in n]) > failures, "refused"
        )
        assert not isinstance(h.app.screen, QuestionScreen)

"""acp-tui's own files are never changes of the session: `--log FILE` inside the session
directory is not listed by a turn's summary or by F2 (so no revert can touch it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import OptionList

from acp_tui.host import gc_pauses
from acp_tui.ui.screens.changes_screen import ChangesScreen
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
from tests.ui.app_harness import fixed_cwd, run_app


def _frames(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_the_traffic_log_inside_the_project_is_not_a_change(tmp_path: Path) -> None:
    project = fixed_cwd(tmp_path).resolve()
    log = project / "traffic.jsonl"
    steps = [
        initialize_ok(), new_session_ok(), expect_prompt(),
        update("sess-1", {"sessionUpdate": "agent_message_chunk",
                          "content": {"type": "text", "text": "writing"}}),
        write_file("hello.txt", "Hello\n"),
        end_turn(),
        expect_prompt(), end_turn(),
    ]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, project, session_kwargs={"log_path": log}) as h:
        await h.prompt("write hello")
        await h.until(lambda: h.all(TurnSummaryView), "the turn summary")
        summary = h.one(TurnSummaryView)
        await h.until(lambda: summary.summary.files, "a file in the summary")
        await h.prompt("again")  # more frames logged, and time for the monitor to see them
        await h.until(lambda: log.exists() and log.stat().st_size > 0, "the log written")
        await h.session.changes.before_turn_end()
        monitor = h.session.changes.monitor
        assert monitor is not None
        await monitor.settle([log])
        line = str(summary.render())
        assert "hello.txt" in line
        assert "traffic.jsonl" not in line
        assert [f.path.name for f in summary.summary.files] == ["hello.txt"]

        await h.pilot.press("f2")
        await h.until(lambda: isinstance(h.app.screen, ChangesScreen), "the Changes view")
        screen = h.app.screen
        assert isinstance(screen, ChangesScreen)
        await h.until(lambda: screen.loads >= 1, "the Changes view loaded")
        files = screen.query_one(OptionList)
        names = [str(files.get_option_at_index(i).prompt) for i in range(files.option_count)]
        assert len(names) == 1 and "hello.txt" in names[0], names
        assert all(r.path != log for r in h.session.change_log.records)
        await h.pilot.press("escape")
    frames = _frames(log)
    assert any(f["frame"].get("method") == "session/prompt" for f in frames)


async def test_a_benchmarks_collection_log_inside_the_project_is_not_a_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The collection log a benchmark asks for (`ACP_TUI_GC_LOG`) grows at every collection:
    recorded as a change, each record kept the whole file twice (memory grew per turn)."""
    project = fixed_cwd(tmp_path).resolve()
    gc_log = project / "gc.log"
    monkeypatch.setenv(gc_pauses.ENV, str(gc_log))
    steps = [
        initialize_ok(), new_session_ok(), expect_prompt(),
        write_file("hello.txt", "Hello\n"),
        end_turn(),
    ]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, project) as h:
        gc_log.write_text("0 0.001 0.001\n")
        await h.prompt("write hello")
        await h.until(lambda: h.all(TurnSummaryView), "the turn summary")
        gc_log.write_text("0 0.001 0.001\n2 0.200 0.190\n")
        monitor = h.session.changes.monitor
        assert monitor is not None
        await monitor.settle([gc_log, project / "hello.txt"])
        paths = [record.path.name for record in h.session.change_log.records]
        assert "hello.txt" in paths  # the monitor records, just not that file
        assert "gc.log" not in paths

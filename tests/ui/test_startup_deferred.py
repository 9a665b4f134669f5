"""What the first frame does not need starts once the session is open: the composer's file
index (a walk of the tree in a thread, then watchfiles) and the change monitor (its baseline
walks the directory too). Both slowed the main thread while the app started. An @-mention typed
before the session opened still gets its completions."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.client.events import SessionState
from acp_tui.composer.file_index import FileIndex
from acp_tui.host.change_monitor import ChangeMonitor
from acp_tui.ui.widgets.completion_list import CompletionList
from acp_tui.ui.widgets.composer import Composer
from tests.agents.scenarios import initialize_ok, new_session_ok, write_scenario
from tests.ui.app_harness import AppHarness, fixed_cwd, run_app


def completions(h: AppHarness) -> list[str]:
    completion = h.one(CompletionList)
    return [item.value for item in completion.items] if completion.is_open else []


async def test_the_file_index_and_the_change_monitor_start_once_the_session_is_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    states: dict[str, list[SessionState]] = {"index": [], "monitor": []}
    holder: list[AppHarness] = []

    def state() -> SessionState:
        return holder[0].session.state if holder else SessionState.STARTING

    build, start = FileIndex.build, ChangeMonitor.start

    def recording_build(index: FileIndex) -> None:
        states["index"].append(state())
        build(index)

    async def recording_start(monitor: ChangeMonitor) -> None:
        states["monitor"].append(state())
        await start(monitor)

    monkeypatch.setattr(FileIndex, "build", recording_build)
    monkeypatch.setattr(ChangeMonitor, "start", recording_start)
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    async with run_app(agent.argv, fixed_cwd(tmp_path), wait_ready=False) as h:
        holder.append(h)
        await h.ready()
        await h.until(lambda: states["index"] and states["monitor"], "the index and the monitor")
        assert states == {"index": [SessionState.READY], "monitor": [SessionState.READY]}


async def test_a_mention_typed_before_the_session_opens_is_completed(tmp_path: Path) -> None:
    cwd = fixed_cwd(tmp_path)
    (cwd / "notes.txt").write_text("kept\n")
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    async with run_app(agent.argv, cwd, start=False) as h:  # the session never opens
        assert h.session.state is SessionState.STARTING
        await h.type_prompt("read @not", send=False)
        await h.until(lambda: completions(h) == ["notes.txt"], "the file offered")


async def test_the_file_index_starts_after_the_frame_that_says_ready(tmp_path: Path) -> None:
    """Its thread (git, a stat a file) holds the interpreter by turns with the loop: the frame
    that says "ready" is drawn before it starts."""
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    started_at_ready: list[bool] = []
    async with run_app(agent.argv, fixed_cwd(tmp_path), wait_ready=False) as h:
        assert h.session.state is SessionState.STARTING  # (else the check below sees nothing)

        def on_state(state: SessionState) -> None:  # (after the screen's own listener)
            if state is SessionState.READY:
                started_at_ready.append(any(w.group == "file-index" for w in h.app.workers))

        h.session.state_changed.subscribe(on_state)
        await h.ready()
        assert started_at_ready == [False]
        await h.until(lambda: h.one(Composer).index.built, "the file index built")


async def test_the_change_monitor_starts_after_the_frame_that_says_ready(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its start (git, then the baseline's thread) comes once the screen that shows the session
    open has been refreshed, not between the session's answer and that frame."""
    order: list[str] = []
    start = ChangeMonitor.start

    async def recording_start(monitor: ChangeMonitor) -> None:
        order.append("monitor")
        await start(monitor)

    monkeypatch.setattr(ChangeMonitor, "start", recording_start)
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    async with run_app(agent.argv, fixed_cwd(tmp_path), wait_ready=False) as h:
        assert h.session.state is SessionState.STARTING  # (else the check below sees nothing)

        def on_state(state: SessionState) -> None:
            if state is SessionState.READY:
                h.app.call_after_refresh(order.append, "frame")

        h.session.state_changed.subscribe(on_state)
        await h.ready()
        await h.until(lambda: "monitor" in order, "the change monitor's start")
        await h.session.changes.wait_ready()
        assert order == ["frame", "monitor"]

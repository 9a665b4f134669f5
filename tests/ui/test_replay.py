"""Replay of a `--log` recording: fed to the UI without an agent, stepped, scrubbed back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acp_tui.client.events import SessionState
from acp_tui.client.replay import ReplaySession, load_log
from acp_tui.thread.entries import MessageEntry, ToolCallEntry
from acp_tui.ui.inspector.screen import InspectorScreen
from acp_tui.ui.replay_app import ReplayApp
from acp_tui.ui.screens.main import MainScreen
from acp_tui.ui.widgets.status_bar import StatusBar

SIZE = (120, 36)


def chunk(text: str) -> dict[str, Any]:
    update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s1", "update": update},
    }


def recording(tmp_path: Path) -> Path:
    frames: list[tuple[str, Any]] = [
        ("out", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}),
        (
            "in",
            {
                "jsonrpc": "2.0",
                "id": 0,
                "result": {
                    "protocolVersion": 1,
                    "agentInfo": {"name": "recorded-agent", "version": "1"},
                },
            },
        ),
        ("out", {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/w"}}),
        ("in", {"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "s1"}}),
        (
            "out",
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "session/prompt",
                "params": {"sessionId": "s1", "prompt": [{"type": "text", "text": "hi"}]},
            },
        ),
        ("in", chunk("Hello ")),
        ("in", chunk("from the log")),
        (
            "in",
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {
                    "sessionId": "s1",
                    "update": {
                        "sessionUpdate": "tool_call",
                        "toolCallId": "t1",
                        "title": "Write",
                        "kind": "edit",
                    },
                },
            },
        ),
        (
            "in",
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "fs/write_text_file",
                "params": {"sessionId": "s1", "path": "/w/never-written.txt", "content": "x"},
            },
        ),
        ("out", {"jsonrpc": "2.0", "id": 0, "result": {}}),
        ("in", {"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "end_turn"}}),
    ]
    path = tmp_path / "session.jsonl"
    lines = [
        json.dumps({"dir": d, "t": 1000.0 + i * 0.01, "frame": f})
        for i, (d, f) in enumerate(frames)
    ]
    path.write_text("\n".join(["not a log line", *lines]) + "\n")
    return path


def app_for(path: Path, tmp_path: Path, **kwargs: Any) -> ReplayApp:
    frames = load_log(path)
    return ReplayApp(lambda bridge: ReplaySession(frames, tmp_path, bridge, **kwargs))


def agent_text(session: ReplaySession) -> str:
    return "".join(
        block.text  # type: ignore[union-attr]
        for entry in session.thread.entries
        if isinstance(entry, MessageEntry) and entry.role == "agent"
        for block in entry.blocks
    )


async def until(pilot: Any, condition: Any) -> None:
    for _ in range(500):
        if condition():
            return
        await pilot.pause(0.01)
    raise AssertionError("condition not met")


async def test_replay_plays_the_whole_session_without_an_agent(tmp_path: Path) -> None:
    app = app_for(recording(tmp_path), tmp_path, speed=0)
    async with app.run_test(size=SIZE) as pilot:
        session = app.replay
        await until(pilot, lambda: session.position == len(session.frames))
        assert len(session.frames) == 11  # the line that is not a log entry is skipped
        assert agent_text(session) == "Hello from the log"
        assert session.agent_name == "replay: recorded-agent"
        assert session.state is SessionState.READY and session.thread.last_stop_reason == "end_turn"
        assert isinstance(session.thread.entries[-1], ToolCallEntry)
        # the recorded write is only shown: nothing reaches the disk
        assert not (tmp_path / "never-written.txt").exists()
        assert len(session.traffic_store) == 11
        assert session.traffic_store.marked() == []
        assert "11/11" in app.sub_title


async def test_replay_steps_while_paused_and_scrubs_back(tmp_path: Path) -> None:
    app = app_for(recording(tmp_path), tmp_path, paused=True)
    async with app.run_test(size=SIZE) as pilot:
        session = app.replay
        await pilot.pause()
        assert session.position == 0
        await pilot.press(*["f8"] * 6)
        assert session.position == 6
        assert agent_text(session) == "Hello "
        await pilot.press("f8")
        assert agent_text(session) == "Hello from the log"
        old_thread = session.thread
        await pilot.press("f7")  # back one frame: the thread is rebuilt from the start
        assert session.position == 6
        assert session.thread is not old_thread
        assert agent_text(session) == "Hello "
        await until(pilot, lambda: isinstance(app.screen, MainScreen))
        assert app.screen.session.thread is session.thread  # type: ignore[attr-defined]
        assert len(session.traffic_store) == 6
        await pilot.press("f10")  # +10% (one frame of 11)
        assert session.position == 7
        await pilot.press("f6")  # play to the end
        await until(pilot, lambda: session.position == len(session.frames))


async def test_inspector_follows_the_replay(tmp_path: Path) -> None:
    app = app_for(recording(tmp_path), tmp_path, paused=True)
    async with app.run_test(size=SIZE) as pilot:
        session = app.replay
        await pilot.press("f8", "f8", "f8", "f12")
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        assert screen.store is session.traffic_store and len(screen.store) == 3
        frames = screen.frame_list
        assert frames.selected_frame is not None and frames.selected_frame.index == 2


async def test_a_hostile_recording_plays_with_its_bad_lines_skipped_and_noted(
    tmp_path: Path,
) -> None:
    """A line of 100,000 nested `[` (RecursionError in the parser) and a line over the frame cap
    are skipped with a note; a frame nested as deep as the parser still takes plays; the app
    still quits on ctrl+q."""
    path = recording(tmp_path)
    deep = chunk("deep")
    deep["params"]["update"]["_meta"] = json.loads("[" * 900 + "]" * 900)
    with path.open("a") as file:
        file.write("[" * 100_000 + "\n")
        file.write(json.dumps({"dir": "in", "t": 1001.0, "frame": chunk("x" * 200_000)}) + "\n")
        file.write(json.dumps({"dir": "in", "t": 1001.1, "frame": deep}) + "\n")
    notes: list[str] = []
    frames = load_log(path, max_frame_bytes=120_000, problems=notes)
    app = ReplayApp(lambda bridge: ReplaySession(frames, tmp_path, bridge, speed=0, notes=notes))
    shown: list[str] = []
    original = app.notify

    def notify(message: str, *args: Any, **kwargs: Any) -> None:
        shown.append(message)
        original(message, *args, **kwargs)

    app.notify = notify  # type: ignore[method-assign]
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        session = app.replay
        await until(pilot, lambda: session.position == len(session.frames))
        assert len(session.frames) == 12
        assert agent_text(session).endswith("deep")
        await until(pilot, lambda: len(shown) >= 2)
        assert any("frame limit" in text and "line 14" in text for text in shown), shown
        assert any("not a log entry" in text and "2 lines (1, 13)" in text for text in shown)
        await pilot.press("ctrl+q")
        await until(pilot, lambda: not app.is_running)


async def test_the_footer_reads_the_replays_keys_and_the_status_bar_its_place(
    tmp_path: Path,
) -> None:
    """f6-f8 are the replay's (its priority bindings, asked first): the footer read the main
    screen's f6 "model" and left f7 and f8 out; the place in the recording was only in the
    app's sub-title, which nothing draws."""
    app = app_for(recording(tmp_path), tmp_path, paused=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f8", "f8")
        await pilot.pause()
        shown = app.screen.active_bindings
        assert [shown[key].binding.action for key in ("f6", "f7", "f8")] == [
            "replay_pause",
            "replay_step(-1)",
            "replay_step(1)",
        ]
        assert all(shown[key].node is app for key in ("f6", "f7", "f8"))
        status = app.screen.query_one(StatusBar).render().plain
        assert "frame 2/11 x1 paused" in status, status

"""How the conversation app looks, end to end, against scripted agents.

Deterministic by construction: fixed terminal size, a scripted agent with a fixed name, fake
fixed paths in the content, tool calls only in clock-free states (finished calls show 0.0s),
no turn running when the picture is taken (the spinner and its clock are not in view).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from acp_tui.client.events import SessionState
from acp_tui.client.session.agent_session import AgentSession
from acp_tui.config import Settings
from acp_tui.protocol.traffic import TrafficEvent
from acp_tui.sandbox.modes import SandboxMode
from acp_tui.ui.app import AcpApp
from acp_tui.ui.key_guard import KeyGuard
from acp_tui.ui.screen_ui import ScreenUi
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.agents.scenarios import SCRIPTED_AGENT, end_turn, expect_prompt
from tests.schema_check import FrameValidator
from tests.ui.app_harness import (
    GATE_MODE,
    MODES,
    SID,
    paced,
    rich_turn_updates,
    upd,
)

SIZE = (140, 45)
TIMEOUT = 15.0
AGENT_INFO = {"name": "scripted", "title": "Scripted Agent", "version": "1.0"}


def initialize() -> dict[str, Any]:
    return {
        "expect": "initialize",
        "respond": {"protocolVersion": 1, "agentInfo": AGENT_INFO, "authMethods": [],
                    "agentCapabilities": {}},
    }  # fmt: skip


class SnapshotApp(AcpApp):
    def on_ready(self) -> None:
        # a blinking cursor is a clock: keep it steadily on
        for prompt in self.screen.query(PromptInput):
            prompt.cursor_blink = False

    async def on_unmount(self) -> None:
        # snap_compare exits the app itself: stop the agent on the app's own loop
        await self.session.close()


class Snapshot:
    """An app around a scripted agent named `agent` (so its name is fixed); frames validated."""

    def __init__(self, tmp_path: Path, steps: list[dict[str, Any]]) -> None:
        scenario = tmp_path / "scenario.json"
        scenario.write_text(json.dumps(steps))
        wrapper = tmp_path / "agent"
        wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} {SCRIPTED_AGENT} {scenario}\n")
        wrapper.chmod(0o755)
        self.cwd = tmp_path / "project"
        self.cwd.mkdir()
        self.argv = [str(wrapper)]
        self.failures: list[str] = []
        self.validator = FrameValidator()
        self.pids: list[int] = []
        self.app = SnapshotApp(self._factory, key_guard=KeyGuard.unguarded())  # no time window

    def _factory(self, bridge: ScreenUi) -> AgentSession:
        # no sandbox: the sidebar's Sandbox section would name this run's temporary directory
        # (tests/ui/test_sandbox_section.py tests what it says)
        settings = Settings(sandbox=SandboxMode.OFF)
        session = AgentSession(self.argv, self.cwd, bridge, settings=settings)
        session.traffic.subscribe(self._tap)
        return session

    def _tap(self, event: TrafficEvent) -> None:
        frame = json.loads(event.raw)
        try:
            if event.direction == "in":
                self.validator.incoming(frame)
            else:
                self.validator.outgoing(frame)
        except AssertionError as exc:
            self.failures.append(str(exc))
        process = self.app.session._process
        if process is not None and process.pid not in self.pids:
            self.pids.append(process.pid)

    def cleanup(self) -> None:
        for pid in self.pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
        assert not self.failures, self.failures


@pytest.fixture
def make_snapshot(tmp_path: Path):
    made: list[Snapshot] = []

    def make(steps: list[dict[str, Any]]) -> Snapshot:
        snapshot = Snapshot(tmp_path, steps)
        made.append(snapshot)
        return snapshot

    yield make
    for snapshot in made:
        snapshot.cleanup()


async def until(pilot, condition: Callable[[], object]) -> None:
    async with asyncio.timeout(TIMEOUT):
        while not condition():
            await pilot.pause(0.02)


async def type_and_send(pilot, text: str) -> None:
    """`text` put in the prompt at once, then Enter: these tests take pictures, they do not test
    typing (a key pressed through the Pilot waits twice for the app to idle: ~0.1 s a key)."""
    prompt = pilot.app.screen.query_one(PromptInput)
    prompt.focus()
    prompt.insert(text)
    await pilot.press("enter")


async def caught_up(pilot) -> None:
    conversation = pilot.app.screen.query_one(ConversationView)
    await until(pilot, lambda: all(v.is_mounted for v in conversation.views.values()))
    await pilot.pause()


def test_a_finished_turn_with_every_kind_of_content(snap_compare, make_snapshot) -> None:
    updates = rich_turn_updates()
    steps = [initialize(), {"expect": "session/new", "respond": {"sessionId": SID, "modes": MODES}},
             expect_prompt(), *paced(updates), end_turn()]  # fmt: skip
    snapshot = make_snapshot(steps)

    async def run(pilot) -> None:
        session = snapshot.app.session
        await until(pilot, lambda: session.state is SessionState.READY)
        await type_and_send(pilot, "fix total")
        for _ in updates:
            await caught_up(pilot)
            assert await session.set_mode(GATE_MODE) is None
        await until(pilot, lambda: not session.turn_running)
        await caught_up(pilot)
        pilot.app.screen.query_one(ConversationView).scroll_end(animate=False)
        await pilot.pause()

    assert snap_compare(snapshot.app, terminal_size=SIZE, run_before=run)


def test_crash_banner_with_exit_code_and_stderr(snap_compare, make_snapshot) -> None:
    steps = [
        {"stderr": "agent: loading model weights\nagent: error: config.toml: bad key 'x'\n"},
        {"exit": 3},
    ]
    snapshot = make_snapshot(steps)

    async def run(pilot) -> None:
        await until(pilot, lambda: snapshot.app.session.state is SessionState.CRASHED)
        await pilot.pause()

    assert snap_compare(snapshot.app, terminal_size=(100, 24), run_before=run)


def test_permission_prompt_inside_its_tool_call(snap_compare, make_snapshot) -> None:
    permission = {
        "sessionId": SID,
        "toolCall": {"toolCallId": "t1", "title": "Run rm -rf build/", "kind": "execute"},
        "options": [
            {"optionId": "once", "name": "Allow", "kind": "allow_once"},
            {"optionId": "always", "name": "Always allow rm", "kind": "allow_always"},
            {"optionId": "no", "name": "Reject", "kind": "reject_once"},
        ],
    }
    steps = [
        initialize(),
        {"expect": "session/new", "respond": {"sessionId": SID, "modes": MODES}},
        expect_prompt(),
        upd("tool_call", toolCallId="t1", title="Run rm -rf build/", kind="execute",
            status="pending", rawInput={"command": "rm", "args": ["-rf", "build/"]}),
        {"request": "session/request_permission", "params": permission, "save_as": "answer"},
    ]  # fmt: skip
    snapshot = make_snapshot(steps)

    async def run(pilot) -> None:
        session = snapshot.app.session
        await until(pilot, lambda: session.state is SessionState.READY)
        await type_and_send(pilot, "clean")
        await until(pilot, lambda: pilot.app.screen.query(PermissionPrompt))
        await caught_up(pilot)
        await until(pilot, lambda: pilot.app.screen.query_one(PermissionPrompt).has_focus_within)
        # the running turn's clock is the only moving part: stop it for the picture
        pilot.app.screen.query_one("StatusBar").running_since = None
        await pilot.pause()

    assert snap_compare(snapshot.app, terminal_size=(110, 30), run_before=run)

"""Run the whole conversation app headless against a real agent subprocess.

`run_app(argv, cwd)` builds `AcpApp` around an `AgentSession`, runs it under a Pilot and yields
an `AppHarness`. Every frame the app sends is validated against the ACP schema (the session's
traffic tap feeds a `FrameValidator`); violations fail the test when the context exits. The
agent is shut down on exit whatever happened.

Waiting is always on conditions (`until`), never on fixed sleeps.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from textual.pilot import Pilot
from textual.widget import Widget

from acp_tui.client.agent_session import AgentSession
from acp_tui.client.events import SessionState
from acp_tui.protocol.traffic import TrafficEvent
from acp_tui.ui.app import AcpApp
from acp_tui.ui.bridge import UiBridge
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.schema_check import FrameValidator

TIMEOUT = 15.0
SIZE = (140, 45)
W = TypeVar("W", bound=Widget)


def demo_argv() -> list[str]:
    return [sys.executable, "-m", "acp_tui.demo.agent"]


def demo_env(**extra: str) -> dict[str, str]:
    return {"ACP_TUI_DEMO_SPEED": "0", **extra}


@dataclass
class AppHarness:
    app: AcpApp
    pilot: Pilot[int]
    validator: FrameValidator
    failures: list[str]
    sent: list[dict[str, Any]] = field(default_factory=list)

    @property
    def session(self) -> AgentSession:
        return self.app.session

    async def until(
        self, condition: Callable[[], object], what: str = "condition", seconds: float = TIMEOUT
    ) -> None:
        """Let the app run until `condition()` is truthy; fail with `what` after `seconds`."""
        try:
            async with asyncio.timeout(seconds):
                while not condition():
                    await self.pilot.pause(0.02)
        except TimeoutError:
            raise AssertionError(
                f"timed out waiting for {what}; state={self.session.state}\n"
                f"--- screen ---\n{self.screen_text()}"
            ) from None

    async def ready(self) -> None:
        await self.until(lambda: self.session.state is SessionState.READY, "the session is ready")

    async def settle(self) -> None:
        """Idle after the turn ended: ready, no turn, queue empty, and the UI caught up."""
        await self.until(
            lambda: (
                self.session.state is SessionState.READY
                and not self.session.turn_running
                and not self.session.queue
            ),
            "the turn to end",
        )
        await self.pilot.pause()
        await self.pilot.pause()

    async def type_prompt(self, text: str, *, send: bool = True) -> None:
        """Type into the prompt like a user (newlines with ctrl+j), then Enter if `send`."""
        prompt = self.app.screen.query_one(PromptInput)
        prompt.focus()
        await self.pilot.pause()
        keys: list[str] = []
        for char in text:
            keys.append("ctrl+j" if char == "\n" else _key_for(char))
        await self.pilot.press(*keys)
        if send:
            await self.pilot.press("enter")

    async def prompt(self, text: str) -> None:
        """Send a prompt and wait until its turn (and anything queued after it) is over."""
        before = len(self.sent_methods("session/prompt"))
        await self.type_prompt(text)
        await self.until(
            lambda: len(self.sent_methods("session/prompt")) > before, "the prompt to be sent"
        )
        await self.settle()

    def sent_methods(self, method: str) -> list[dict[str, Any]]:
        """Frames the app sent with this method (requests and notifications), in order."""
        return [f for f in self.sent if f.get("method") == method]

    def screen_text(self) -> str:
        """The current screen (top screen included) as plain text lines."""
        strips = self.app.screen._compositor.render_strips()
        return "\n".join(strip.text.rstrip() for strip in strips)

    def one(self, kind: type[W]) -> W:
        return self.app.screen.query_one(kind)

    def all(self, kind: type[W]) -> list[W]:
        return list(self.app.screen.query(kind))


_KEY_NAMES = {
    " ": "space", "/": "slash", "-": "minus", ".": "full_stop", ",": "comma", ":": "colon",
    "?": "question_mark", "!": "exclamation_mark", "'": "apostrophe", "_": "underscore",
}  # fmt: skip


def _key_for(char: str) -> str:
    return _KEY_NAMES.get(char, char)


@contextlib.asynccontextmanager
async def run_app(
    argv: Sequence[str],
    cwd: Path,
    *,
    env: dict[str, str] | None = None,
    size: tuple[int, int] = SIZE,
    start: bool = True,
    wait_ready: bool = True,
    allow_unknown_methods: bool = False,
) -> AsyncIterator[AppHarness]:
    failures: list[str] = []
    validator = FrameValidator(allow_unknown_methods=allow_unknown_methods)
    sent: list[dict[str, Any]] = []

    def tap(event: TrafficEvent) -> None:
        try:
            frame = json.loads(event.raw)
        except ValueError:
            if event.direction == "out":
                failures.append(f"sent a line that is not JSON: {event.raw[:200]!r}")
            return
        try:
            if event.direction == "in":
                validator.incoming(frame)
            else:
                if isinstance(frame, dict):
                    sent.append(frame)
                validator.outgoing(frame)
        except AssertionError as exc:
            failures.append(f"{exc} (frame: {event.raw[:300]})")

    def factory(bridge: UiBridge) -> AgentSession:
        session = AgentSession(argv, cwd, bridge, env_extra=env)
        session.traffic.subscribe(tap)
        return session

    app = AcpApp(factory, start_agent=start)
    try:
        async with app.run_test(size=size) as pilot:
            harness = AppHarness(app, pilot, validator, failures, sent)
            if start and wait_ready:
                await harness.ready()
            yield harness
            await app.session.close()
    finally:
        await app.session.close()
    assert not failures, "frames sent by acp-tui failed schema validation:\n" + "\n".join(failures)


def fixed_cwd(tmp_path: Path) -> Path:
    """A real directory for the agent's cwd (tests that show paths use fixed fake paths)."""
    path = tmp_path / "project"
    path.mkdir(exist_ok=True)
    return path

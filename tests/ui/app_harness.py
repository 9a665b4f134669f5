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
import io
import json
import logging
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from rich.console import Console
from rich.text import Text
from textual.pilot import Pilot
from textual.widget import Widget

from acp_tui.client.events import SessionState
from acp_tui.client.session.agent_session import AgentSession
from acp_tui.ui.app import AcpApp
from acp_tui.ui.key_guard import KeyGuard
from acp_tui.ui.screen_ui import ScreenUi
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.agents.scenarios import (
    Step,
    end_turn,
    expect_prompt,
    initialize_ok,
    new_session_ok,
    update,
)
from tests.schema_check import FrameValidator, validating_tap
from tests.ui.key_burst import press_at_once, text_keys

TIMEOUT = 30.0  # a deadline, not a wait: `until` returns as soon as its condition holds
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
    logged_errors: list[str] = field(default_factory=list)
    notified: list[str] = field(default_factory=list)

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
        """Idle after the turn ended: ready, no turn, queue empty, and the UI caught up (the
        finished turn frozen into the history, as users get it)."""
        await self.until(
            lambda: (
                self.session.state is SessionState.READY
                and not self.session.turn_running
                and not self.session.queue
            ),
            "the turn to end",
        )
        await self.until(self.turn_end_settled, "the turn end's freezing")
        await self.pilot.pause()
        await self.pilot.pause()

    def turn_end_settled(self) -> bool:
        """The shown conversation is done with its last turn end (finished entries frozen)."""
        from acp_tui.ui.widgets.conversation import ConversationView

        return all(view.turn_end_settled for view in self.app.screen.query(ConversationView))

    async def type_prompt(self, text: str, *, send: bool = True) -> None:
        """Type into the prompt like a quick user (newlines with ctrl+j), then Enter if `send`.

        The text's keys go as one burst (`press_at_once`: the app handles every key as it
        handles a pressed one, without a frame drawn between them); Enter is pressed once the
        app has handled them."""
        prompt = self.app.screen.query_one(PromptInput)
        prompt.focus()
        await self.pilot.pause()
        if text:
            await press_at_once(self.pilot, *text_keys(text))
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

    async def caught_up(self) -> None:
        """Wait until every conversation entry has a mounted widget, then one more frame."""
        from acp_tui.ui.widgets.conversation import ConversationView

        conversation = self.one(ConversationView)
        await self.until(
            lambda: all(view.is_mounted for view in conversation.views.values()),
            "the conversation widgets to mount",
        )
        await self.pilot.pause()

    async def through_gates(self, count: int) -> None:
        """Pace a scenario built with `paced`: let the agent past `count` gates, one at a time,
        each once the UI has mounted what came before it."""
        for _ in range(count):
            await self.caught_up()
            assert await self.session.set_mode(GATE_MODE) is None
        await self.caught_up()

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


def plain(widget: Widget) -> str:
    """The plain text a Static-like widget shows (its content rendered without styles)."""
    content = getattr(widget, "content", None)
    if isinstance(content, Text):
        return content.plain
    if isinstance(content, str):
        return content
    console = Console(width=200, file=io.StringIO(), color_system=None)
    with console.capture() as capture:
        console.print(content)
    return capture.get()


_KEY_NAMES = {
    " ": "space", "/": "slash", "-": "minus", ".": "full_stop", ",": "comma", ":": "colon",
    "?": "question_mark", "!": "exclamation_mark", "'": "apostrophe", "_": "underscore",
}  # fmt: skip


def _key_for(char: str) -> str:
    return _KEY_NAMES.get(char, char)


def _record_notifications(app: AcpApp, into: list[str]) -> None:
    """Keep every toast's text (toasts expire; the tests want to know they were shown)."""
    original = app.notify

    def notify(message: str, *args: Any, **kwargs: Any) -> None:
        into.append(str(message))
        original(message, *args, **kwargs)

    app.notify = notify  # type: ignore[method-assign]


class _ErrorLog(logging.Handler):
    """Collects errors acp_tui logs (a thread listener that raised, for instance)."""

    def __init__(self, into: list[str]) -> None:
        super().__init__(logging.ERROR)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            message += f": {record.exc_info[1]!r}"
        self.into.append(message)


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
    session_kwargs: dict[str, Any] | None = None,
    notifications: bool = False,
    app_kwargs: dict[str, Any] | None = None,
) -> AsyncIterator[AppHarness]:
    failures: list[str] = []
    validator = FrameValidator(allow_unknown_methods=allow_unknown_methods)
    sent: list[dict[str, Any]] = []

    tap = validating_tap(validator, failures, sent)

    def factory(bridge: ScreenUi) -> AgentSession:
        session = AgentSession(argv, cwd, bridge, env_extra=env, **(session_kwargs or {}))
        session.traffic.subscribe(tap)
        return session

    # no key is held from a question unless the test gives the app a guard with a clock
    kwargs: dict[str, Any] = {"key_guard": KeyGuard.unguarded(), **(app_kwargs or {})}
    app = AcpApp(factory, start_agent=start, **kwargs)
    notified: list[str] = []
    _record_notifications(app, notified)  # (before it runs: a notice at start is a toast too)
    logged: list[str] = []
    handler = _ErrorLog(logged)
    logging.getLogger("acp_tui").addHandler(handler)
    try:
        async with app.run_test(size=size, notifications=notifications) as pilot:
            harness = AppHarness(app, pilot, validator, failures, sent, logged, notified)
            if start and wait_ready:
                await harness.ready()
            yield harness
            await app.session.close()
    finally:
        logging.getLogger("acp_tui").removeHandler(handler)
        await app.session.close()
    assert not failures, "frames sent by acp-tui failed schema validation:\n" + "\n".join(failures)


def fixed_cwd(tmp_path: Path) -> Path:
    """A real directory for the agent's cwd (tests that show paths use fixed fake paths)."""
    path = tmp_path / "project"
    path.mkdir(exist_ok=True)
    return path


# ------------------------------------------------------------------ scripted turn contents

SID = "sess-1"
PROJECT = "/project"  # a fake, fixed path: shown in views, never touched
PNG_8_BYTES = "iVBORw0KGgo="
MODES = {
    "currentModeId": "ask",
    "availableModes": [
        {"id": "ask", "name": "Ask", "description": "Ask before every change"},
        {"id": "code", "name": "Code", "description": "Edit files freely"},
        {"id": "plan", "name": "Plan", "description": "Plan only"},
    ],
}


def upd(variant: str, /, **fields: Any) -> Step:
    return update(SID, {"sessionUpdate": variant, **fields})


def text(value: str) -> dict[str, str]:
    return {"type": "text", "text": value}


def plan_entries(*items: tuple[str, str, str]) -> list[dict[str, str]]:
    return [{"content": c, "priority": p, "status": s} for c, p, s in items]


ANSWER_MD = "## Summary\n\nThe **tests** pass:\n\n- one\n- two\n\n```python\nprint('hi')\n```\n"
THOUGHT_TEXT = "I should look at the file first, then answer."
OLD_PY = "def total(a, b):\n    return a + b\n"
NEW_PY = "def total(a, b, c=0):\n    return a + b + c\n"


def rich_turn_updates() -> list[Step]:
    """One turn showing every kind of content, all in final (clock-free) states."""
    return [
        upd("agent_thought_chunk", content=text(THOUGHT_TEXT[:20])),
        upd("agent_thought_chunk", content=text(THOUGHT_TEXT[20:])),
        upd(
            "plan",
            entries=plan_entries(
                ("Read the code", "high", "completed"),
                ("Change total()", "medium", "in_progress"),
                ("Run the tests", "low", "pending"),
            ),
        ),
        upd(
            "tool_call",
            toolCallId="t1",
            title="Read src/app.py",
            kind="read",
            status="completed",
            content=[{"type": "content", "content": text("Read 2 lines.")}],
            locations=[{"path": f"{PROJECT}/src/app.py", "line": 1}],
            rawInput={"path": f"{PROJECT}/src/app.py"},
            rawOutput={"lines": 2},
        ),
        upd(
            "tool_call",
            toolCallId="t2",
            title="Edit src/app.py",
            kind="edit",
            status="pending",
            content=[
                {
                    "type": "diff",
                    "path": f"{PROJECT}/src/app.py",
                    "oldText": OLD_PY,
                    "newText": NEW_PY,
                }
            ],
            locations=[{"path": f"{PROJECT}/src/app.py", "line": 1}],
        ),
        upd(
            "tool_call",
            toolCallId="t3",
            title="Fetch https://example.invalid",
            kind="fetch",
            status="failed",
            content=[{"type": "content", "content": text("could not resolve example.invalid")}],
            rawInput={"url": "https://example.invalid"},
            rawOutput={"error": "ENOTFOUND"},
        ),
        upd(
            "agent_message_chunk",
            content={"type": "image", "mimeType": "image/png", "data": PNG_8_BYTES},
        ),
        upd(
            "agent_message_chunk",
            content={
                "type": "resource_link",
                "name": "notes.md",
                "uri": "file:///project/notes.md",
                "size": 2048,
            },
        ),
        upd(
            "agent_message_chunk",
            content={
                "type": "resource",
                "resource": {
                    "uri": "file:///project/a.py",
                    "text": "x = 1\ny = 2\n",
                    "mimeType": "text/x-python",
                },
            },
        ),
        upd("agent_message_chunk", content=text(ANSWER_MD[:17])),
        upd("agent_message_chunk", content=text(ANSWER_MD[17:40])),
        upd("agent_message_chunk", content=text(ANSWER_MD[40:])),
        upd("future_update_kind", detail={"answer": 42}),
        upd("session_info_update", title="Fix total()"),
        upd("usage_update", used=12_345, size=200_000, cost={"amount": 0.05, "currency": "USD"}),
    ]


GATE_MODE = "ask"


def gate() -> Step:
    """The agent waits here until the test lets it go on (`AppHarness.through_gates`)."""
    return {"expect": "session/set_mode", "match": {"modeId": GATE_MODE}, "respond": {}}


def paced(updates: list[Step]) -> list[Step]:
    """`updates` with a gate after each: the UI shows one before the next arrives."""
    steps: list[Step] = []
    for step in updates:
        steps += [step, gate()]
    return steps


def session_with_modes() -> Step:
    return new_session_ok(SID, modes=MODES)


def one_turn(updates: list[Step], stop_reason: str = "end_turn") -> list[Step]:
    """initialize, session/new (with modes), one prompt answered by `updates`."""
    return [
        initialize_ok(),
        session_with_modes(),
        expect_prompt(),
        *updates,
        end_turn(stop_reason=stop_reason),
    ]


LAUNCHER = """\
import os, sys
counter, *scenarios = sys.argv[1:]
run = int(open(counter).read()) if os.path.exists(counter) else 0
open(counter, "w").write(str(run + 1))
scenario = scenarios[min(run, len(scenarios) - 1)]
agent = {agent!r}
os.execv(sys.executable, [sys.executable, agent, scenario, "--transcript", scenario + ".jsonl"])
"""


def agent_runs(tmp_path: Path, *runs: list[Step]) -> list[str]:
    """argv of an agent that plays `runs[0]` when first started, `runs[1]` when restarted, ..."""
    from tests.agents.scenarios import SCRIPTED_AGENT

    directory = tmp_path / "runs"
    directory.mkdir(exist_ok=True)
    paths = []
    for index, steps in enumerate(runs):
        path = directory / f"run{index}.json"
        path.write_text(json.dumps(steps))
        paths.append(str(path))
    launcher = directory / "launcher.py"
    launcher.write_text(LAUNCHER.format(agent=str(SCRIPTED_AGENT)))
    return [sys.executable, str(launcher), str(directory / "count"), *paths]

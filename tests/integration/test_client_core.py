"""The client core without the UI: one `AgentSession` against the demo agent (v1 and v2), driven
through its public methods only, with a fake `ClientUi` that nobody sits at. Covers the session's
wiring of its parts: connecting (`session/connect.py`), opening and loading (`session/open.py`),
the v1 turn (`prompt_turn`), the routes the agent's requests take (`session/routes.py`), modes
and config (`session/config.py`), v2's driver (`v2/session.py`), a crash and a restart, closing."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from acp_tui.client.events import Notice, SessionState
from acp_tui.client.session.agent_session import AgentSession
from acp_tui.config import HoldWrites, Settings
from acp_tui.demo.sample_project import APP_PY, create_sample_project
from acp_tui.host.permissions import PendingPermission
from acp_tui.protocol.models import SessionConfigSelect
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.entries import MessageEntry, ToolCallEntry
from bench.headless import HeadlessUi

DEMO = [sys.executable, "-m", "acp_tui.demo.agent"]


class Driver:
    """The session, the turns that ended (stop reasons), the notices and questions it told."""

    def __init__(self, cwd: Path, *, protocol: int = 1) -> None:
        create_sample_project(cwd)
        self.session = AgentSession(
            DEMO,
            cwd,
            HeadlessUi(),
            env_extra={"ACP_TUI_DEMO_SPEED": "0"},
            settings=Settings(hold_writes=HoldWrites.NEVER, protocol_version=protocol),
        )
        self.ended: list[str | None] = []
        self.notices: list[Notice] = []
        self.asked: list[PendingPermission] = []
        self.session.notices.subscribe(self.notices.append)
        self.session.permission_asked.subscribe(self.asked.append)
        self.session.thread.subscribe(self._on_change)
        self._changed = asyncio.Event()

    def _on_change(self, change: ch.Change) -> None:
        if isinstance(change, ch.TurnStateChanged) and not change.running:
            self.ended.append(change.stop_reason)
        self._changed.set()

    async def until(self, condition: Callable[[], object], what: str) -> None:
        """Wait for `condition` (checked at every change of the thread or the session's state)."""
        unsubscribe = self.session.state_changed.subscribe(lambda _state: self._changed.set())
        try:
            async with asyncio.timeout(30):
                while not condition():
                    self._changed.clear()
                    await self._changed.wait()
        except TimeoutError:
            raise AssertionError(f"timed out waiting for {what}") from None
        finally:
            unsubscribe()

    async def turn(self, text: str) -> str | None:
        count = len(self.ended)
        assert self.session.submit(text) is None
        await self.until(lambda: len(self.ended) > count, f"the end of the turn {text!r}")
        return self.ended[-1]

    def agent_text(self) -> str:
        return "".join(e.text for e in self.session.thread.entries if isinstance(e, MessageEntry))


@asynccontextmanager
async def driven(cwd: Path, *, protocol: int = 1) -> AsyncIterator[Driver]:
    driver = Driver(cwd, protocol=protocol)
    try:
        assert await driver.session.start(), driver.session.error
        yield driver
    finally:
        await driver.session.close()
    assert driver.session.state is SessionState.CLOSED


async def test_v1_start_prompt_modes_and_config(tmp_path: Path) -> None:
    async with driven(tmp_path) as d:
        session = d.session
        assert session.state is SessionState.READY and not session.speaks_v2
        assert session.agent_name and session.session_id is not None
        assert await d.turn("/help") == "end_turn"
        assert "/edit" in d.agent_text()
        # modes: the agent's own, switched through session/set_mode
        assert [m.id for m in session.thread.modes][:2] == ["ask", "code"]
        assert await session.choose_mode("code") is None
        assert session.thread.current_mode_id == "code"
        # in "code" mode the edit goes through unasked and lands in the change log
        assert await d.turn("/edit") == "end_turn"
        assert d.asked == []
        assert [r.path for r in session.change_log.records] == [tmp_path / "src" / "app.py"]
        # a config option (the demo's model select)
        option = next(o for o in session.thread.config_options if o.id == "model")
        assert isinstance(option, SessionConfigSelect)
        other = next(v for v in option.flat_options() if v.value != option.current_value)
        assert await session.set_config_option("model", other.value) is None
        now = next(o for o in session.thread.config_options if o.id == "model")
        assert now.current_value == other.value
        assert await session.set_mode("no-such-mode") is not None  # the agent's error, told


async def test_v1_cancel_ends_the_question_and_the_turn(tmp_path: Path) -> None:
    async with driven(tmp_path) as d:
        session = d.session
        assert session.submit("/edit") is None  # "ask" mode: the edit asks first
        await d.until(lambda: d.asked, "the permission question")
        assert session.turn_running and session.state is SessionState.RUNNING
        queued = session.submit("/help")  # typed while the turn runs: queued
        assert queued is not None and session.queue == [queued]
        assert session.remove_queued(queued.id) and session.queue == []
        await session.cancel()
        await d.until(lambda: d.ended, "the cancelled turn's end")
        assert d.ended == ["cancelled"]
        assert d.asked[0].done and d.asked[0].chosen is None  # cancelled, not answered
        [call] = [e for e in session.thread.entries if isinstance(e, ToolCallEntry)]
        assert call.status == "cancelled"
        assert (tmp_path / "src" / "app.py").read_text() == APP_PY  # nothing written
        assert session.change_log.records == []
        assert session.state.value == SessionState.READY.value  # (mypy narrowed it to RUNNING)


async def test_a_crash_is_told_and_a_restart_loads_the_session(tmp_path: Path) -> None:
    async with driven(tmp_path) as d:
        session = d.session
        first_id = session.session_id
        session.submit("/crash")
        await d.until(lambda: session.state is SessionState.CRASHED, "the crash")
        assert session.crash is not None and session.crash.returncode == 3
        assert session.crash.during == "prompt"
        assert await session.restart()
        assert session.state is SessionState.READY
        assert session.session_id == first_id  # session/load continued it
        assert any("session reloaded" in n.text for n in d.notices)
        assert await d.turn("/help") == "end_turn"


async def test_v2_start_prompt_and_logout_offer(tmp_path: Path) -> None:
    async with driven(tmp_path, protocol=2) as d:
        session = d.session
        assert session.speaks_v2 and session.protocol_version == 2
        assert session.lifecycle.can_load_session
        assert await d.turn("/help") == "end_turn"
        assert "/edit" in d.agent_text()
        assert session.queue == []  # the prompt was placed by the agent's user_message
        assert session.can_logout is bool(session.auth_methods)

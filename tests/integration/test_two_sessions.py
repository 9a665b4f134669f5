"""Two `AgentSession`s in one process, each against its own demo agent in its own directory,
prompted at the same time: nothing of one reaches the other (threads, change logs, terminals,
permission questions and the rules remembered for each directory)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from acp_tui.client.events import SessionState
from acp_tui.client.session.agent_session import AgentSession
from acp_tui.config import HoldWrites, Settings
from acp_tui.demo.sample_project import create_sample_project
from acp_tui.host.permission_rules import RulesStore
from acp_tui.host.permissions import PendingPermission
from acp_tui.protocol.models import Terminal
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.entries import ToolCallEntry
from bench.headless import HeadlessUi

DEMO = [sys.executable, "-m", "acp_tui.demo.agent"]


class Side:
    """One session, its directory, and the permission questions it was asked."""

    def __init__(self, root: Path, answer: str) -> None:
        self.cwd = root.resolve()
        create_sample_project(self.cwd)
        self.marker = f"only-in-{root.name}.txt"
        (self.cwd / self.marker).write_text("")
        self.rules = RulesStore(self.cwd)
        self.session = AgentSession(
            DEMO,
            self.cwd,
            HeadlessUi(),
            env_extra={"ACP_TUI_DEMO_SPEED": "0"},
            settings=Settings(hold_writes=HoldWrites.NEVER),
            rules=self.rules,
        )
        self.answer = answer
        self.asked: list[PendingPermission] = []
        self.session.permission_asked.subscribe(self._on_asked)
        self.turn_ended = asyncio.Event()
        self.session.thread.subscribe(self._on_change)

    def _on_asked(self, pending: PendingPermission) -> None:
        self.asked.append(pending)
        option = pending.option_of_kind(self.answer)
        assert option is not None, pending.options
        pending.select(option.option_id)

    def _on_change(self, change: ch.Change) -> None:
        if isinstance(change, ch.TurnStateChanged) and not change.running:
            self.turn_ended.set()

    async def turn(self, text: str) -> None:
        self.turn_ended.clear()
        assert self.session.submit(text) is None  # sent now, not queued
        async with asyncio.timeout(30):
            await self.turn_ended.wait()

    def tool_calls(self) -> list[ToolCallEntry]:
        return [e for e in self.session.thread.entries if isinstance(e, ToolCallEntry)]


@asynccontextmanager
async def two_sides(tmp_path: Path) -> AsyncIterator[tuple[Side, Side]]:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = Side(tmp_path / "a", "allow_always")
    b = Side(tmp_path / "b", "allow_once")
    try:
        started = await asyncio.gather(a.session.start(), b.session.start())
        assert list(started) == [True, True], (a.session.error, b.session.error)
        yield a, b
    finally:
        await asyncio.gather(a.session.close(), b.session.close())


def _under(path: str | Path, root: Path) -> bool:
    return Path(path).resolve().is_relative_to(root)


async def test_two_sessions_in_one_process_share_nothing(tmp_path: Path) -> None:
    async with two_sides(tmp_path) as (a, b):
        assert a.session.state is b.session.state is SessionState.READY
        assert a.session.session_id is not None and b.session.session_id is not None

        await asyncio.gather(a.turn("/edit"), b.turn("/edit"))
        await asyncio.gather(a.turn("/terminal"), b.turn("/terminal"))

        # each asked its own question, answered on its own side
        assert len(a.asked) == len(b.asked) == 1
        assert a.asked[0] is not b.asked[0]
        # the rule remembered is for a's directory only; b's store stayed empty
        assert len(a.rules.rules) == 1
        assert b.rules.rules == ()
        assert a.session.rules is a.rules and b.session.rules is b.rules

        for side, other in ((a, b), (b, a)):
            session = side.session
            # threads: distinct, each with only its own agent's tool calls and paths
            assert session.thread is not other.session.thread
            calls = side.tool_calls()
            assert [c.title for c in calls] == ["Edit src/app.py", "ls -la"]
            assert all(c.status == "completed" for c in calls), [c.status for c in calls]
            for call in calls:
                for location in call.locations:
                    assert _under(location.path, side.cwd), location.path
            # change logs: one write each, of its own file
            records = session.change_log.records
            assert [r.path for r in records] == [side.cwd / "src" / "app.py"]
            assert session.change_log is not other.session.change_log
            assert "priority" in (side.cwd / "src" / "app.py").read_text()
            # terminals: the one each agent ran, in its own directory
            terminal_ids = [
                block.terminal_id for block in calls[1].content if isinstance(block, Terminal)
            ]
            assert len(terminal_ids) == 1
            terminal = session.terminal(terminal_ids[0])
            assert terminal is not None
            assert terminal.session_id == session.session_id
            listing, _truncated = terminal.output_text()
            assert side.marker in listing and other.marker not in listing
            other_terminal = other.session.terminal(terminal_ids[0])
            assert other_terminal is not terminal
            # the turn summaries count only the session's own change
            assert session.turn_changes is not other.session.turn_changes

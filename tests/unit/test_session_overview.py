"""The overview's snapshot of one session (`SessionWatch.row`) and a session's changes as diffs,
read from real (unstarted) `AgentSession`s whose thread is fed notifications and whose change
log gets records as the file host and the change monitor add them."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from acp_tui.client.events import AgentCrash, SessionState
from acp_tui.client.session.agent_session import AgentSession
from acp_tui.client.session.overview import (
    LAST_LINE_MAX,
    OverviewSource,
    RowState,
    SessionWatch,
    Worktree,
    last_agent_line,
    named_changes,
    session_changes,
)
from acp_tui.host.change_log import Observed
from acp_tui.thread.permission import PermissionAsk
from bench.headless import HeadlessUi
from tests.unit.thread_support import Clock, chunk, notify


@pytest.fixture
def session(tmp_path: Path) -> AgentSession:
    return AgentSession(["claude-agent-acp"], tmp_path, HeadlessUi())


def test_an_agent_session_is_an_overview_source(session: AgentSession) -> None:
    source: OverviewSource = session  # mypy: AgentSession has all the overview reads
    row = SessionWatch(source).row()
    assert row.agent == "claude-agent-acp" and row.place == str(session.cwd)
    assert row.branch is None and row.title is None
    assert row.state is RowState.STARTING and row.reason == ""
    assert (row.files, row.added, row.removed, row.last_line) == (0, 0, 0, "")
    assert row.tokens_used is None and row.cost is None


def test_states_from_what_the_session_exposes(session: AgentSession) -> None:
    watch = SessionWatch(session)
    session.state = SessionState.READY
    assert watch.row().state is RowState.IDLE
    assert watch.row(unread=True).state is RowState.UNREAD
    session.thread.begin_turn()
    assert watch.row(unread=True).state is RowState.WORKING
    ask = PermissionAsk(3)
    session.thread.ask_permission("c1", ask)
    row = watch.row()
    assert (row.state, row.reason) == (RowState.NEEDS_YOU, "a permission question")
    row = watch.row(held_writes=2)
    assert row.reason == "a permission question, 2 held writes"
    session.thread.settle_permission("c1", 3, "allowed")
    assert watch.row().state is RowState.WORKING
    assert watch.row(held_writes=1).reason == "a held write"
    session.state = SessionState.AUTHENTICATING
    assert (watch.row().state, watch.row().reason) == (RowState.NEEDS_YOU, "a login")
    session.crash = AgentCrash("exited with code 3 \x1b[2J", [], "prompt", 3)
    session.state = SessionState.CRASHED
    row = watch.row(held_writes=1)
    assert row.state is RowState.CRASHED and row.reason == "exited with code 3 ␛[2J"
    session.state, session.error = SessionState.FAILED, "refused"
    assert (watch.row().state, watch.row().reason) == (RowState.FAILED, "refused")


async def test_an_open_elicitation_needs_the_user(session: AgentSession) -> None:
    session.state = SessionState.READY
    watch = SessionWatch(session)
    asked = asyncio.Event()
    session.elicitations.presented.subscribe(lambda pending: asked.set())
    schema = {"type": "object", "properties": {"name": {"type": "string"}}}
    request = asyncio.ensure_future(
        session.elicitations.request(
            {"sessionId": "s", "mode": "form", "message": "Who?", "requestedSchema": schema}
        )
    )
    await asked.wait()
    assert (watch.row().state, watch.row().reason) == (RowState.NEEDS_YOU, "a form")
    session.elicitations.cancel_all()
    await request
    assert watch.row().state is RowState.IDLE


def test_elapsed_counts_the_running_turn_else_since_the_start(session: AgentSession) -> None:
    clock = Clock()
    watch = SessionWatch(session, clock=clock)
    clock.now += 50
    assert watch.row().elapsed == 50 and not watch.row().turn_running
    session.thread.begin_turn()
    clock.now += 7
    row = watch.row()
    assert row.turn_running and row.elapsed == 7
    session.thread.set_state("requires_action")  # v2: still the same turn
    clock.now += 3
    assert watch.row().elapsed == 10
    session.thread.end_turn("end_turn")
    assert watch.row().elapsed == 60


def test_usage_title_and_worktree(session: AgentSession) -> None:
    thread = session.thread
    notify(thread, {"sessionUpdate": "session_info_update", "title": "Fix [red]it\x1b]0;x\x07"})
    notify(
        thread,
        {
            "sessionUpdate": "usage_update",
            "used": 12_300,
            "size": 200_000,
            "cost": {"amount": 0.42, "currency": "USD"},
        },
    )
    tree = Worktree(Path("/data/acp-tui/worktrees/fix\x1b[31m"), "acp/fix\x1b[2J")
    row = SessionWatch(session, worktree=tree).row()
    assert (row.tokens_used, row.tokens_size, row.cost) == (12_300, 200_000, (0.42, "USD"))
    assert row.title == "Fix [red]it␛]0;x␇"
    assert row.place == "/data/acp-tui/worktrees/fix␛[31m" and row.branch == "acp/fix␛[2J"


def test_last_line_of_the_agents_last_message(session: AgentSession) -> None:
    thread = session.thread
    assert last_agent_line(thread) == ""
    notify(thread, chunk("agent_message_chunk", "First message\nwith its own end"))
    notify(thread, {"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "Read"})
    notify(thread, chunk("agent_message_chunk", "Done.\n\n  All\ttests [b]pass\x1b[2J  \n\n"))
    notify(thread, chunk("agent_thought_chunk", "thinking about the next thing"))
    notify(thread, chunk("user_message_chunk", "thanks"))
    assert last_agent_line(thread) == "All tests [b]pass␛[2J"
    notify(thread, chunk("agent_message_chunk", "x" * 500))
    line = SessionWatch(session).row().last_line
    assert len(line) == LAST_LINE_MAX and line.endswith("…") and "\n" not in line


def test_session_changes_against_the_text_before_the_first_change(
    session: AgentSession, tmp_path: Path
) -> None:
    log = session.change_log
    a, b, c, d = (tmp_path / name for name in ("a.py", "b.py", "c.py", "d.py"))
    log.add(a, "one\ntwo\n", "one\n2\n")
    log.add(b, None, "new\nfile\n")
    log.add(a, "one\n2\n", "one\n2\nthree\n", observed=Observed("agent", turn=1))
    log.add(c, "keep\n", "gone\n")
    log.add(c, "gone\n", "keep\n", reverts=4)  # reverted back: no change left
    log.add(d, "bye\n", "", deleted=True)
    diffs = session_changes(session)
    assert [Path(diff.path) for diff in diffs] == [a, b, d]
    assert [(diff.added, diff.removed) for diff in diffs] == [(2, 1), (2, 0), (0, 1)]
    assert diffs[0].old_text == "one\ntwo\n" and diffs[0].new_text == "one\n2\nthree\n"
    assert diffs[1].is_new_file and diffs[2].is_deletion
    row = SessionWatch(session).row()
    assert (row.files, row.added, row.removed) == (3, 4, 2)


def test_the_watch_recomputes_a_files_diff_only_after_a_new_record(
    session: AgentSession, tmp_path: Path
) -> None:
    log = session.change_log
    watch = SessionWatch(session)
    log.add(tmp_path / "a", "x\n", "y\n")
    first = watch.changes()
    assert watch.changes()[0] is first[0]
    log.add(tmp_path / "a", "y\n", "z\n")
    assert watch.changes()[0] is not first[0] and watch.changes()[0].new_text == "z\n"


def test_given_changes_are_counted_instead(session: AgentSession, tmp_path: Path) -> None:
    session.change_log.add(tmp_path / "a", "x\n", "y\n")
    assert SessionWatch(session).row(changes=[]).files == 0


def test_a_closed_watch_no_longer_follows_the_turn(session: AgentSession) -> None:
    clock = Clock()
    watch = SessionWatch(session, clock=clock)
    watch.close()
    session.thread.begin_turn()
    assert watch.turn_started_at is None
    clock.now += 5
    assert watch.row().elapsed == 5  # since the watch began, the turn's start unknown


def test_named_changes_of_a_session(session: AgentSession, tmp_path: Path) -> None:
    session.change_log.add(tmp_path / "a", "x\n", "y\n")
    named = named_changes(session)
    assert (named.name, named.root) == ("claude-agent-acp", session.cwd)
    assert [diff.new_text for diff in named.changes] == ["y\n"]
    assert named_changes(session, "left\x1b[2J").name == "left␛[2J"


def test_a_watch_made_during_a_turn_counts_from_when_it_was_made(session: AgentSession) -> None:
    clock = Clock()
    session.thread.begin_turn()
    watch = SessionWatch(session, clock=clock)
    clock.now += 4
    assert watch.row().turn_running and watch.row().elapsed == 4
    assert watch.turn_started_at == 100.0


def test_the_last_line_is_read_from_the_end_of_a_long_message(session: AgentSession) -> None:
    text = "\n".join(f"line {n}" for n in range(100_000)) + "\n \n\t\n"
    notify(session.thread, chunk("agent_message_chunk", text))
    assert last_agent_line(session.thread) == "line 99999"
    notify(session.thread, chunk("agent_message_chunk", "\n\n   "))
    assert last_agent_line(session.thread) == "line 99999"

"""Parts of the main screen that live beside the agent, at 80x24 and 160x50: the crash banner
(the agent crashed during a prompt, or exited while idle), a live terminal card (a PTY command
running in the conversation), the subagent lane opened on its child's cards, and the LLM
providers screen the sidebar opens.

Deterministic as `test_app_at_two_sizes.py`: fixed names and paths, tool calls in clock-free
states, the running turn's clock stopped for the picture, a terminal whose command printed a
fixed text and then waits for input nobody types (a condition, not a delay).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Group
from rich.text import Text
from textual.command import CommandList, CommandPalette
from textual.widgets import Input, OptionList

from acp_tui.client.events import SessionState
from acp_tui.client.session.agent_session import AgentSession
from acp_tui.config import Settings
from acp_tui.sandbox.modes import SandboxMode
from acp_tui.thread.entries import MessageEntry
from acp_tui.thread.subagent_sessions import SubagentLaneEntry
from acp_tui.thread.thread_changes import TurnStateChanged
from acp_tui.ui.key_guard import KeyGuard
from acp_tui.ui.screen_ui import ScreenUi
from acp_tui.ui.screens.providers_screen import ProvidersScreen
from acp_tui.ui.widgets import empty_state, status_bar
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.crash_banner import CrashBanner
from acp_tui.ui.widgets.frozen_history import FrozenHistory
from acp_tui.ui.widgets.notices_section import NoticesSection
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.queue_view import QueuedItem
from acp_tui.ui.widgets.status_bar import StatusBar
from acp_tui.ui.widgets.subagent_lane import SubagentLaneView
from acp_tui.ui.widgets.terminal_view import TerminalView
from acp_tui.ui.workspace.spec import SessionSpec
from acp_tui.ui.workspace.tab_bar import TabBar
from tests.agents.scenarios import SCRIPTED_AGENT, end_turn, expect_prompt, update
from tests.snapshot.test_app_at_two_sizes import SIZES, finished_turn, turn
from tests.snapshot.test_app_snapshots import (
    SnapshotApp,
    caught_up,
    initialize,
    make_snapshot,
    type_and_send,
    until,
)
from tests.ui.app_harness import MODES, SID, text, upd

__all__ = ["make_snapshot"]  # the fixture, used by name

NEW = {"expect": "session/new", "respond": {"sessionId": SID, "modes": MODES}}


def said(text: str) -> dict[str, Any]:
    return upd("agent_message_chunk", content={"type": "text", "text": text})


CRASHES = {
    # a prompt half answered, then stderr and exit code 3
    "crashed_during_a_prompt": [
        initialize(), NEW, expect_prompt(), said("Reading shop.py first."),
        {"stderr": "agent: loading model weights\nagent: error: config.toml: bad key 'x'\n"},
        {"exit": 3},
    ],
    # the session opened, then the agent left quietly
    "exited_while_idle": [initialize(), NEW, {"exit": 0}],
    # npx could not fetch the agent's version: no restart offered (it would fail the same way)
    "unpublished_version": [
        {"stderr": "npm error code ETARGET\n"
                   "npm error notarget No matching version found for some-agent@9.9.9.\n"},
        {"exit": 1},
    ],
}  # fmt: skip


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("how", list(CRASHES))
def test_crash_banner(snap_compare, make_snapshot, how: str, size: tuple[int, int]) -> None:
    snapshot = make_snapshot(CRASHES[how])
    prompted = how == "crashed_during_a_prompt"

    async def run(pilot) -> None:
        session = snapshot.app.session
        if prompted:
            await until(pilot, lambda: session.state is SessionState.READY)
            await type_and_send(pilot, "fix total")
        await until(pilot, lambda: session.state is SessionState.CRASHED)
        await until(pilot, lambda: pilot.app.screen.query_one(CrashBanner).display)
        if prompted:  # what it said before it went
            await until(pilot, lambda: any(
                isinstance(e, MessageEntry) and "Reading shop.py first." in e.text
                for e in session.thread.entries
            ))  # fmt: skip
        await caught_up(pilot)

    assert snap_compare(snapshot.app, terminal_size=size, run_before=run)


SHELL = "printf 'collected 4 items\\n\\ntests/test_shop.py ....\\n4 passed\\n'; read answer"
TERMINAL_ID = "$saved.term.result.terminalId"


@pytest.mark.parametrize("size", SIZES)
def test_live_terminal_card(snap_compare, make_snapshot, size: tuple[int, int]) -> None:
    """A command the agent runs in a terminal, still running (it waits for a line on its
    input), its output in the card; the call pending (no clock runs on it)."""
    create = {"sessionId": SID, "command": "sh", "args": ["-c", SHELL]}
    snapshot = make_snapshot([
        initialize(), NEW, expect_prompt(), said("Running the tests."),
        {"request": "terminal/create", "params": create, "save_as": "term"},
        upd("tool_call", toolCallId="t1", title="Run the tests", kind="execute",
            status="pending", content=[{"type": "terminal", "terminalId": TERMINAL_ID}],
            rawInput={"command": "sh", "args": ["-c", SHELL]}),
    ])  # fmt: skip

    async def run(pilot) -> None:
        await until(pilot, lambda: snapshot.app.session.state is SessionState.READY)
        await type_and_send(pilot, "run the tests")
        await until(pilot, lambda: pilot.app.screen.query(TerminalView))
        view = pilot.app.screen.query_one(TerminalView)
        await until(pilot, lambda: "4 passed" in "\n".join(view.text_lines()))
        await caught_up(pilot)
        pilot.app.screen.query_one(StatusBar).running_since = None  # the turn's clock
        pilot.app.screen.query_one(ConversationView).scroll_end(animate=False)
        await pilot.pause()

    assert snap_compare(snapshot.app, terminal_size=size, run_before=run)


FAILING = "printf 'tests/test_shop.py F\\n1 failed\\n'; exit 1"


@pytest.mark.parametrize("size", SIZES)
def test_finished_terminal_card(snap_compare, make_snapshot, size: tuple[int, int]) -> None:
    """A command that ran in a terminal and failed: its exit code under its output (the border
    red), the call failed, the turn over."""
    create = {"sessionId": SID, "command": "sh", "args": ["-c", FAILING]}
    done = {"sessionId": SID, "terminalId": TERMINAL_ID}
    snapshot = make_snapshot([
        initialize(), NEW, expect_prompt(),
        {"request": "terminal/create", "params": create, "save_as": "term"},
        {"request": "terminal/wait_for_exit", "params": done},
        upd("tool_call", toolCallId="t1", title="Run the tests", kind="execute",
            status="failed", content=[{"type": "terminal", "terminalId": TERMINAL_ID}]),
        said("One test fails."),
        end_turn(),
    ])  # fmt: skip

    async def run(pilot) -> None:
        session = snapshot.app.session
        await until(pilot, lambda: session.state is SessionState.READY)
        await type_and_send(pilot, "run the tests")
        await until(pilot, lambda: not session.turn_running)
        await caught_up(pilot)
        await until(
            pilot, lambda: "exit" in str(pilot.app.screen.query_one(TerminalView).border_subtitle)
        )
        pilot.app.screen.query_one(ConversationView).scroll_end(animate=False)
        await pilot.pause()

    assert snap_compare(snapshot.app, terminal_size=size, run_before=run)


CHILD = f"{SID}/agent-1"


def child(variant: str, /, **fields: Any) -> dict[str, Any]:
    return update(CHILD, {"sessionUpdate": variant, **fields})


def subagent(**fields: Any) -> dict[str, Any]:
    return upd("subagent_update", sessionId=CHILD, **fields)


TASK = {
    "sessionUpdate": "session_message",
    "messageId": "m1",
    "senderSessionId": SID,
    "recipientSessionId": CHILD,
    "content": [{"type": "text", "text": "find the files that compute the total"}],
}


@pytest.mark.parametrize("size", SIZES)
def test_subagent_lane_opened(snap_compare, make_snapshot, size: tuple[int, int]) -> None:
    """A finished child's lane, thawed from the finished turn's history and opened with Enter,
    as a user does: its task first, its thought (folded), its message, a tool call with its
    output and one with its terminal's output."""
    echo = {"sessionId": CHILD, "command": "echo", "args": ["hello from the child"]}
    done = {"sessionId": CHILD, "terminalId": TERMINAL_ID}
    listing = [{"type": "content", "content": {"type": "text", "text": "cart.py shop.py"}}]
    snapshot = make_snapshot([
        initialize(), NEW, expect_prompt(),
        said("I will ask a helper to look around."),
        subagent(title="Explore", description="looks around the project",
                 state={"state": "running"}),
        update(SID, TASK),
        child("agent_thought_chunk", content={"type": "text", "text": "first the files"}),
        child("agent_message_chunk", content={"type": "text", "text": "I will list the files."}),
        child("tool_call", toolCallId="t1", title="ls", kind="execute", status="completed",
              content=listing, rawInput={"command": "ls"}),
        {"request": "terminal/create", "params": echo, "save_as": "term"},
        {"request": "terminal/wait_for_exit", "params": done},
        child("tool_call", toolCallId="t2", title="echo", kind="execute", status="completed",
              content=[{"type": "terminal", "terminalId": TERMINAL_ID}]),
        subagent(state={"state": "idle", "stopReason": "end_turn"}),
        said("The helper found two files."),
        end_turn(),
    ])  # fmt: skip

    async def run(pilot) -> None:
        session = snapshot.app.session
        await until(pilot, lambda: session.state is SessionState.READY)
        await type_and_send(pilot, "explore")
        await until(pilot, lambda: not session.turn_running)
        conversation = pilot.app.screen.query_one(ConversationView)
        lane = next(e for e in session.thread.entries if isinstance(e, SubagentLaneEntry))
        await until(pilot, lambda: lane.id in conversation.frozen_entry_ids)
        history = conversation.query_children(FrozenHistory).first()
        history.focus()
        await pilot.pause()
        while history.cursor_entry is not lane:
            await pilot.press("up")
        await pilot.press("enter")  # thawed, focused
        await until(pilot, lambda: pilot.app.screen.query(SubagentLaneView))
        view = pilot.app.screen.query_one(SubagentLaneView)
        await until(pilot, lambda: view.has_focus)
        await pilot.press("enter")  # opened
        await until(pilot, lambda: "hello from the child" in view.text)
        await caught_up(pilot)
        await pilot.pause()

    assert snap_compare(snapshot.app, terminal_size=size, run_before=run)


PROVIDERS = [
    {"providerId": "main", "supported": ["anthropic", "openai"], "required": True,
     "current": {"apiType": "anthropic", "baseUrl": "https://api.anthropic.com"}},
    {"providerId": "fast", "supported": ["openai"], "required": False, "current": None},
    {"providerId": "[b]local[/b]", "supported": ["openai"], "required": False,
     "current": {"apiType": "openai", "baseUrl": "http://localhost:8080/v1"}},
]  # fmt: skip


@pytest.mark.parametrize("size", SIZES)
def test_providers_screen(snap_compare, make_snapshot, size: tuple[int, int]) -> None:
    """The agent's LLM providers (markup in an id drawn as text), the form open on one that can
    be disabled."""
    hello = initialize()
    hello["respond"] = {**hello["respond"], "agentCapabilities": {"providers": {}}}
    listed = {"expect": "providers/list", "respond": {"providers": PROVIDERS}}
    snapshot = make_snapshot([hello, NEW, listed])

    async def run(pilot) -> None:
        await until(pilot, lambda: snapshot.app.session.state is SessionState.READY)
        row = pilot.app.screen.query_one("ProvidersRow")
        await until(pilot, lambda: row.display)
        if not row.region:  # the sidebar is hidden where the screen is narrow
            await pilot.press("ctrl+b")
            await until(pilot, lambda: row.region)
        row.focus()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(pilot.app.screen, ProvidersScreen))
        screen = pilot.app.screen
        listing = screen.query_one("#providers", OptionList)
        await until(pilot, lambda: listing.option_count == len(PROVIDERS))
        listing.highlighted = 1
        await pilot.press("enter")
        await until(pilot, lambda: screen.chosen is not None)
        await pilot.pause()

    assert snap_compare(snapshot.app, terminal_size=size, run_before=run)


COMPACTIONS = [
    said("Working on it."),
    upd("compaction_update", compactionId="c1", status="in_progress"),
    upd("compaction_summary_chunk", compactionId="c1", content=text("Fixed **total()** ")),
    upd("compaction_summary_chunk", compactionId="c1", content=text("in shop.py.")),
    upd("compaction_update", compactionId="c1", status="completed"),
    said("Carrying on."),
    upd("compaction_update", compactionId="c2", status="in_progress"),
    upd("compaction_update", compactionId="c2", status="failed", error="context [red]too long"),
    upd("notice", severity="warning", title="Rate [bold]limited[/]", description="Retrying"),
]


@pytest.mark.parametrize("size", SIZES)
def test_compactions_and_a_notice(snap_compare, make_snapshot, size: tuple[int, int]) -> None:
    """A context compaction folded to its title, one that failed with the agent's error (markup
    drawn as text), and a notice: in the sidebar (toasts, which leave with the clock, cleared)."""
    snapshot = make_snapshot(turn(COMPACTIONS))

    async def run(pilot) -> None:
        await finished_turn(pilot, snapshot.app.session, COMPACTIONS)
        await until(pilot, lambda: pilot.app.screen.query_one(NoticesSection).display)
        pilot.app.clear_notifications()
        await pilot.pause()

    assert snap_compare(snapshot.app, terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES)
def test_queued_prompts(snap_compare, make_snapshot, size: tuple[int, int]) -> None:
    """Prompts typed while the agent works: listed under the prompt, counted in the status
    line (the turn's clock stopped)."""
    snapshot = make_snapshot([initialize(), NEW, expect_prompt(), said("Working on it.")])

    async def run(pilot) -> None:
        session = snapshot.app.session
        await until(pilot, lambda: session.state is SessionState.READY)
        await type_and_send(pilot, "fix total")
        await until(pilot, lambda: session.turn_running)
        await until(pilot, lambda: any(  # the agent's line, shown above the queue
            isinstance(e, MessageEntry) and "Working on it." in e.text
            for e in session.thread.entries
        ))  # fmt: skip
        await type_and_send(pilot, "then add a test for the tax")
        await type_and_send(pilot, "and update the [b]README[/b]")
        await until(pilot, lambda: len(pilot.app.screen.query(QueuedItem)) == 2)
        await caught_up(pilot)
        pilot.app.screen.query_one(StatusBar).running_since = None  # the turn's clock
        await pilot.pause()

    assert snap_compare(snapshot.app, terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES)
def test_command_palette_ctrl_p(snap_compare, make_snapshot, size: tuple[int, int]) -> None:
    """Textual's palette with acp-tui's commands, searched for "rename": the rename command,
    then rewind (its letters in order). Hits that score the same come in the order their
    providers answer (with "mo", rename and edit-in-$EDITOR swapped from run to run)."""
    snapshot = make_snapshot([initialize(), NEW])

    async def run(pilot) -> None:
        await until(pilot, lambda: snapshot.app.session.state is SessionState.READY)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(pilot.app.screen, CommandPalette))
        palette = pilot.app.screen
        palette.query_one(Input).cursor_blink = False
        await pilot.press(*"rename")
        listing = palette.query_one(CommandList)

        def searched() -> bool:  # the search's worker done, its hits listed
            searching = [w for w in pilot.app.workers if w.node is palette and w.is_running]
            return bool(listing.option_count) and not searching

        await until(pilot, searched)
        await pilot.pause()

    assert snap_compare(snapshot.app, terminal_size=size, run_before=run)


class TabsApp(SnapshotApp):
    """The snapshot app with more tabs: every tab's agent stopped when it exits."""

    async def on_unmount(self) -> None:
        for tab in list(self.tabs):
            await tab.session.close()


SECOND_INFO = {"name": "second", "title": "Second Agent", "version": "2.0"}


@pytest.mark.parametrize("size", SIZES)
def test_two_tabs(snap_compare, make_snapshot, size: tuple[int, int], tmp_path: Path) -> None:
    """Two sessions side by side in tabs (the bar on top): the first shown after its turn, the
    second, another agent in the same directory, ready."""
    updates = [said("The total now adds the tax.")]
    snapshot = make_snapshot(turn(updates))
    hello = {**initialize(), "respond": {**initialize()["respond"], "agentInfo": SECOND_INFO}}
    (tmp_path / "second.json").write_text(json.dumps([hello, NEW]))
    second = tmp_path / "second"
    second.write_text(
        f"#!/bin/sh\nexec {sys.executable} {SCRIPTED_AGENT} {tmp_path / 'second.json'}\n"
    )
    second.chmod(0o755)

    def spawn(bridge: ScreenUi, spec: SessionSpec) -> AgentSession:
        settings = Settings(sandbox=SandboxMode.OFF)  # (as the first tab's)
        return AgentSession(list(spec.argv), spec.cwd, bridge, settings=settings)

    more = (SessionSpec((str(second),), snapshot.cwd),)
    app = TabsApp(snapshot._factory, key_guard=KeyGuard.unguarded(), spawn=spawn, more=more)
    snapshot.app = app

    async def run(pilot) -> None:
        await until(pilot, lambda: len(app.tabs) == 2)
        await until(pilot, lambda: all(t.session.state is SessionState.READY for t in app.tabs))
        await until(pilot, lambda: app.session is app.tabs[0].session)
        await finished_turn(pilot, app.session, updates)
        await until(pilot, lambda: len(pilot.app.screen.query_one(TabBar).labels) == 2)
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES)
def test_stop_reasons(snap_compare, make_snapshot, size: tuple[int, int]) -> None:
    """How three turns ended, under each: the answer cut at the token limit, a refusal (its
    prompt marked not kept), and a turn cancelled with Esc."""
    snapshot = make_snapshot([
        initialize(), NEW,
        expect_prompt(), said("The total is computed in"), end_turn(stop_reason="max_tokens"),
        expect_prompt(), end_turn(stop_reason="refusal"),
        expect_prompt(), said("Starting."), {"wait_notify": "session/cancel"},
        end_turn(stop_reason="cancelled"),
    ])  # fmt: skip

    async def run(pilot) -> None:
        session = snapshot.app.session
        await until(pilot, lambda: session.state is SessionState.READY)

        ended: list[str | None] = []  # each turn's stop reason, as it ends

        def turn_ended(change: object) -> None:
            if isinstance(change, TurnStateChanged) and not change.running:
                ended.append(change.stop_reason)

        session.thread.subscribe(turn_ended)

        def said_so_far() -> str:
            entries = session.thread.entries
            return "".join(e.text for e in entries if isinstance(e, MessageEntry))

        await type_and_send(pilot, "explain total")
        await until(pilot, lambda: len(ended) == 1)
        await type_and_send(pilot, "delete the tests")
        await until(pilot, lambda: len(ended) == 2)
        await type_and_send(pilot, "fix total")
        await until(pilot, lambda: "Starting." in said_so_far())
        await pilot.press("escape")
        await until(pilot, lambda: len(ended) == 3)
        assert ended == ["max_tokens", "refusal", "cancelled"]
        await caught_up(pilot)
        pilot.app.clear_notifications()  # "Cancelling…": a toast leaves with the clock
        pilot.app.screen.query_one(ConversationView).scroll_end(animate=False)
        await pilot.pause()

    assert snap_compare(snapshot.app, terminal_size=size, run_before=run)


def hint_drawn(pilot) -> str:
    """The text the hint over the empty conversation draws now."""
    content = pilot.app.screen.query_one(empty_state.EmptyState).content
    lines = content.renderables if isinstance(content, Group) else []
    return "\n".join(line.plain for line in lines if isinstance(line, Text))


@pytest.mark.parametrize("size", SIZES)
def test_starting_agent(
    snap_compare, make_snapshot, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent that has not answered `initialize` yet: what it wrote to stderr, and a prompt
    typed meanwhile (sent once the session opens). The seconds it has been starting are a
    clock: shown as a fixed "3s" here."""
    monkeypatch.setattr(empty_state, "format_elapsed", lambda seconds: "3s")
    monkeypatch.setattr(status_bar, "format_elapsed", lambda seconds: "3s")
    snapshot = make_snapshot([
        {"stderr": "agent: loading model weights\nagent: 2 of 3 shards\n"},
        {"wait_file": "never", "timeout": 60},  # answers nothing: the test ends it
    ])  # fmt: skip

    async def run(pilot) -> None:
        session = snapshot.app.session
        await until(pilot, lambda: session.state is SessionState.STARTING)
        await until(pilot, lambda: "2 of 3 shards" in hint_drawn(pilot))
        await until(pilot, lambda: "Starting agent… 3s" in hint_drawn(pilot))  # (its clock)
        pilot.app.screen.query_one(PromptInput).insert("fix total")
        await pilot.pause()

    assert snap_compare(snapshot.app, terminal_size=size, run_before=run)


def fixed_project(shop: str) -> Path:
    """`/tmp/acp-tui-snapshots/project` holding `shop.py`: the same path on every run and
    machine (not $TMPDIR: it differs between machines), kept between runs; suites that run at
    once write the same bytes, each by an atomic rename."""
    project = Path("/tmp/acp-tui-snapshots/project")
    project.mkdir(parents=True, exist_ok=True)
    target = project / "shop.py"
    if not target.is_file() or target.read_text() != shop:
        staged = project / f".shop.py.{os.getpid()}"
        staged.write_text(shop)
        os.replace(staged, target)
    return project


@pytest.mark.parametrize("size", SIZES)
def test_prompt_with_an_attached_file(snap_compare, make_snapshot, size: tuple[int, int]) -> None:
    """A prompt that @-mentions a file of the project: the file goes with it (embedded), and the
    user's message shows what was attached."""
    hello = initialize()
    capabilities = {"promptCapabilities": {"embeddedContext": True}}
    hello["respond"] = {**hello["respond"], "agentCapabilities": capabilities}
    snapshot = make_snapshot([
        hello, NEW, expect_prompt(), said("It multiplies price by qty."), end_turn(),
    ])  # fmt: skip
    # the attachment is named by its absolute path: the project in a directory of a fixed name
    project = fixed_project("def total(price, qty):\n    return price * qty\n")

    def in_project(bridge: ScreenUi) -> AgentSession:  # (as the snapshot's, in `project`)
        settings = Settings(sandbox=SandboxMode.OFF)
        session = AgentSession(snapshot.argv, project, bridge, settings=settings)
        session.traffic.subscribe(snapshot._tap)
        return session

    snapshot.app = SnapshotApp(in_project, key_guard=KeyGuard.unguarded())

    async def run(pilot) -> None:
        session = snapshot.app.session
        await until(pilot, lambda: session.state is SessionState.READY)
        await type_and_send(pilot, "explain @shop.py please")
        await until(pilot, lambda: session.thread.last_stop_reason == "end_turn")
        await until(pilot, lambda: not session.turn_running)
        await caught_up(pilot)
        pilot.app.screen.query_one(ConversationView).scroll_end(animate=False)
        await pilot.pause()

    assert snap_compare(snapshot.app, terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES)
def test_stall_banner(
    snap_compare, make_snapshot, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent that does not answer `initialize` within `initialize_warning_seconds` (0.5 s
    here): the banner says so, and the keys to wait on, restart or quit. The
    seconds it has been starting, under the banner, are shown as a fixed "3s"."""
    monkeypatch.setattr(empty_state, "format_elapsed", lambda seconds: "3s")
    monkeypatch.setattr(status_bar, "format_elapsed", lambda seconds: "3s")
    # silent: what it wrote to stderr by then would depend on how fast it started
    snapshot = make_snapshot([{"wait_file": "never", "timeout": 60}])  # the test ends it

    def impatient(bridge: ScreenUi) -> AgentSession:  # (as the snapshot's, warned at 0.5 s)
        settings = Settings(sandbox=SandboxMode.OFF, initialize_warning_seconds=0.5)
        session = AgentSession(snapshot.argv, snapshot.cwd, bridge, settings=settings)
        session.traffic.subscribe(snapshot._tap)
        return session

    snapshot.app = SnapshotApp(impatient, key_guard=KeyGuard.unguarded())

    async def run(pilot) -> None:
        await until(pilot, lambda: pilot.app.screen.query_one(CrashBanner).display)
        await until(pilot, lambda: snapshot.app.session.stall is not None)
        # the hint under it is drawn again each second while the agent starts: once with its clock
        await until(pilot, lambda: "Starting agent… 3s" in hint_drawn(pilot))
        await pilot.pause()

    assert snap_compare(snapshot.app, terminal_size=size, run_before=run)

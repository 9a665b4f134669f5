"""The main screen around a scripted agent at 80x24 (the narrowest terminal the README promises)
and 160x50: the conversation's cards a few kinds at a time (so that each kind is in view at
80x24), the sidebar, F1, F5 and the forms the agent asks for.

Deterministic as `test_app_snapshots.py`: fixed names and paths, tool calls in clock-free states,
no turn running when the picture is taken (or its clock stopped), cursors steadily on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import OptionList

from acp_tui.client.events import SessionState
from acp_tui.ui.screens.help_screen import HelpScreen
from acp_tui.ui.screens.session_picker import SessionPicker
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
from acp_tui.ui.widgets.status_bar import StatusBar
from tests.agents.scenarios import end_turn, expect_prompt
from tests.snapshot.test_app_snapshots import (
    caught_up,
    initialize,
    make_snapshot,
    type_and_send,
    until,
)
from tests.snapshot.test_elicitation_snapshot import form_steps, hold_still, open_form
from tests.snapshot.test_session_picker_snapshot import steps as session_list_steps
from tests.ui.app_harness import GATE_MODE, MODES, SID, paced, rich_turn_updates, upd
from tests.ui.test_settings_section import options as config_options

__all__ = ["make_snapshot"]  # the fixture, used by name

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 50), id="160x50")]

RICH = rich_turn_updates()
EXECUTE = upd(
    "tool_call",
    toolCallId="t4",
    title="Run make test",
    kind="execute",
    status="completed",
    content=[{"type": "content", "content": {"type": "text", "text": "4 passed in 0.02s"}}],
    rawInput={"command": "make", "args": ["test"]},
)
CARDS = {
    # the reasoning, then the plan
    "thought_and_plan": RICH[0:3],
    # a read, a failed fetch and a command that ran
    "tool_calls": [RICH[3], RICH[5], EXECUTE],
    # an edit with its diff, waiting on nothing
    "edit": [RICH[4]],
    # an image, a link to a resource, an embedded resource, the answer in Markdown
    "media_and_answer": RICH[6:12],
    # an update kind acp-tui does not know, a title, the usage
    "unknown_update": RICH[12:15],
}


def turn(updates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A session with modes, then one prompt answered by `updates` (each shown before the next
    arrives) and the end of the turn."""
    new = {"expect": "session/new", "respond": {"sessionId": SID, "modes": MODES}}
    return [initialize(), new, expect_prompt(), *paced(updates), end_turn()]


async def finished_turn(pilot, session, updates: list[dict[str, Any]]) -> None:
    """Send a prompt, let the agent's updates through one by one, wait for the end."""
    await until(pilot, lambda: session.state is SessionState.READY)
    await type_and_send(pilot, "fix total")
    for _ in updates:
        await caught_up(pilot)
        assert await session.set_mode(GATE_MODE) is None
    await until(pilot, lambda: not session.turn_running)
    await caught_up(pilot)
    pilot.app.screen.query_one(ConversationView).scroll_end(animate=False)
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("cards", list(CARDS))
def test_conversation_cards(snap_compare, make_snapshot, cards: str, size: tuple[int, int]):
    updates = CARDS[cards]
    snapshot = make_snapshot(turn(updates))

    async def run(pilot) -> None:
        await finished_turn(pilot, snapshot.app.session, updates)

    assert snap_compare(snapshot.app, terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES)
def test_sidebar(snap_compare, make_snapshot, size: tuple[int, int]) -> None:
    """Modes, the agent's settings, the plan and the usage; ctrl+b shows it where the width
    alone would not."""
    updates = [RICH[2], RICH[13], RICH[14]]  # the plan, a title, the usage
    respond = {"sessionId": SID, "modes": MODES, "configOptions": config_options()}
    new = {"expect": "session/new", "respond": respond}
    snapshot = make_snapshot([initialize(), new, expect_prompt(), *paced(updates), end_turn()])

    async def run(pilot) -> None:
        await finished_turn(pilot, snapshot.app.session, updates)
        if not pilot.app.screen.query_one("Sidebar").display:
            await pilot.press("ctrl+b")
            await until(pilot, lambda: pilot.app.screen.query_one("Sidebar").display)
        await until(pilot, lambda: len(pilot.app.screen.query("SettingRow")) == 3)
        await pilot.pause()

    assert snap_compare(snapshot.app, terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES)
def test_permission_card(snap_compare, make_snapshot, size: tuple[int, int]) -> None:
    """Every option whole (at 80x24 the buttons wrap to a new line, no sidebar), a one-line key
    hint, the footer's keys for the focused card."""
    options = [
        {"optionId": "once", "name": "Allow", "kind": "allow_once"},
        {"optionId": "always", "name": "Always allow make test", "kind": "allow_always"},
        {"optionId": "no", "name": "Reject", "kind": "reject_once"},
        {"optionId": "never", "name": "Always reject make test", "kind": "reject_always"},
    ]
    call = {"toolCallId": "t1", "title": "Run make test", "kind": "execute"}
    permission = {"sessionId": SID, "toolCall": call, "options": options}
    snapshot = make_snapshot([
        initialize(),
        {"expect": "session/new", "respond": {"sessionId": SID, "modes": MODES}},
        expect_prompt(),
        upd("tool_call", **call, status="pending", rawInput={"command": "make", "args": ["test"]}),
        {"request": "session/request_permission", "params": permission, "save_as": "answer"},
    ])  # fmt: skip

    async def run(pilot) -> None:
        await until(pilot, lambda: snapshot.app.session.state is SessionState.READY)
        await type_and_send(pilot, "fix it")
        await until(pilot, lambda: pilot.app.screen.query(PermissionPrompt))
        await caught_up(pilot)
        await until(pilot, lambda: pilot.app.screen.query_one(PermissionPrompt).has_focus_within)
        pilot.app.screen.query_one(StatusBar).running_since = None  # the turn's clock
        await pilot.pause()

    assert snap_compare(snapshot.app, terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES)
def test_help_f1(
    snap_compare, make_snapshot, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACP_TUI_CONFIG", "/home/you/.config/acp-tui/config.toml")  # shown
    new = {"expect": "session/new", "respond": {"sessionId": SID, "modes": MODES}}
    snapshot = make_snapshot([initialize(), new])

    async def run(pilot) -> None:
        await until(pilot, lambda: snapshot.app.session.state is SessionState.READY)
        await pilot.press("f1")
        await until(pilot, lambda: isinstance(pilot.app.screen, HelpScreen))
        await pilot.pause()

    assert snap_compare(snapshot.app, terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES)
def test_sessions_f5(snap_compare, make_snapshot, size: tuple[int, int]) -> None:
    snapshot = make_snapshot(session_list_steps())

    async def run(pilot) -> None:
        await until(pilot, lambda: snapshot.app.session.state is SessionState.READY)
        snapshot.app.session.cwd = Path("/project")  # the title shows it: a fixed path
        await pilot.press("f5")
        await until(pilot, lambda: isinstance(pilot.app.screen, SessionPicker))
        options = pilot.app.screen.query_one(OptionList)
        await until(pilot, lambda: options.option_count >= 4)
        await pilot.pause()

    assert snap_compare(snapshot.app, terminal_size=size, run_before=run)


@pytest.mark.parametrize("size", SIZES)
def test_elicitation_form(snap_compare, make_snapshot, size: tuple[int, int]) -> None:
    snapshot = make_snapshot(form_steps())

    async def run(pilot) -> None:
        await open_form(pilot, snapshot)
        await hold_still(pilot)

    assert snap_compare(snapshot.app, terminal_size=size, run_before=run)

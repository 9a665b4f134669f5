"""How an elicitation form looks (every field kind, a title and a message from the agent)."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input

from acp_tui.client.events import SessionState
from acp_tui.ui.screens.elicitation_screen import ElicitationScreen
from acp_tui.ui.screens.main import MainScreen
from acp_tui.ui.widgets.status_bar import StatusBar
from tests.agents.scenarios import expect_prompt
from tests.snapshot.test_app_snapshots import initialize, make_snapshot, type_and_send, until
from tests.ui.app_harness import MODES, SID
from tests.ui.test_elicitation import SCHEMA

__all__ = ["make_snapshot"]  # the fixture


def form_steps() -> list[dict[str, Any]]:
    """The scripted agent: a session, then the form asked for at the first prompt."""
    params = {"sessionId": SID, "mode": "form", "message": "Where should the service go?",
              "requestedSchema": SCHEMA}  # fmt: skip
    return [initialize(), {"expect": "session/new", "respond": {"sessionId": SID, "modes": MODES}},
            expect_prompt(), {"request": "elicitation/create", "params": params}]  # fmt: skip


async def open_form(pilot, snapshot) -> None:
    """Send the prompt and wait for the form."""
    await until(pilot, lambda: snapshot.app.session.state is SessionState.READY)
    await type_and_send(pilot, "deploy")
    await until(pilot, lambda: isinstance(pilot.app.screen, ElicitationScreen))


async def hold_still(pilot) -> None:
    """Focus the name field with its cursor steady and stop the turn's clock: nothing that
    moves with time stays in the picture."""
    name = pilot.app.screen.query_one("#field-name", Input)
    name.cursor_blink = False  # a blinking cursor is a clock: keep it steadily on
    name.focus()
    main = next(s for s in pilot.app.screen_stack if isinstance(s, MainScreen))
    main.query_one(StatusBar).running_since = None  # the turn's clock: still for the picture
    await pilot.pause()


def test_elicitation_form(snap_compare, make_snapshot) -> None:
    snapshot = make_snapshot(form_steps())

    async def run(pilot) -> None:
        await open_form(pilot, snapshot)
        accept = pilot.app.screen.query_one("#accept")
        accept.press()  # shows the validation errors
        # the press flashes the button (-active) for a moment: picture it after the flash
        await until(pilot, lambda: not accept.has_class("-active"))
        await pilot.pause()
        await hold_still(pilot)

    assert snap_compare(snapshot.app, terminal_size=(110, 60), run_before=run)

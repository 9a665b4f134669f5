"""Enter in an elicitation form: in a text field it goes to the next text field, and from the last
one it accepts (the form's key line says so). Keys only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import events
from textual.widgets import Input, Static

from acp_tui.ui.screens.elicitation_screen import ElicitationScreen
from tests.agents.scenarios import client_request, write_scenario
from tests.ui.app_harness import SID, fixed_cwd, plain, run_app
from tests.ui.test_elicitation import answers, open_form, steps_with


def form(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties, "required": required}
    params = {"sessionId": SID, "mode": "form", "message": "Who?", "requestedSchema": schema}
    return client_request("elicitation/create", params)


async def test_enter_in_the_only_text_field_accepts(tmp_path: Path) -> None:
    request = form(
        {"name": {"type": "string", "title": "Name"}, "ok": {"type": "boolean", "title": "OK"}},
        ["name"],
    )
    agent = write_scenario(tmp_path, steps_with(request))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        screen = await open_form(h)
        assert "enter next text field, accept from the last" in plain(
            screen.query_one("#keys", Static)
        )
        await h.pilot.press("a", "d", "a", "enter")
        await h.until(lambda: answers(agent), "the answer")
    assert answers(agent) == [{"action": "accept", "content": {"name": "ada", "ok": False}}]


async def test_enter_goes_to_the_next_text_field_then_accepts(tmp_path: Path) -> None:
    request = form(
        {
            "name": {"type": "string", "minLength": 2},
            "ok": {"type": "boolean"},
            "age": {"type": "integer"},
        },
        ["name", "age"],
    )
    agent = write_scenario(tmp_path, steps_with(request))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        screen = await open_form(h)
        await h.pilot.press("x", "enter")
        assert isinstance(screen.focused, Input) and screen.focused.id == "field-age"
        await h.pilot.press("4", "enter")  # the last text field: accept, but "x" is too short
        await h.pilot.pause()
        assert h.app.screen is screen and answers(agent) == []
        assert screen.focused is not None and screen.focused.id == "field-name", (
            "the focus goes to the first field in error"
        )
        assert plain(screen.query_one("#error-name", Static)) == "at least 2 characters"
        await h.pilot.press("x", "y", "enter", "enter")  # (focusing selects the text: retyped)
        await h.until(lambda: answers(agent), "the answer")
        assert not isinstance(h.app.screen, ElicitationScreen)
    assert answers(agent) == [
        {"action": "accept", "content": {"name": "xy", "ok": False, "age": 4}}
    ]


async def test_a_key_right_after_enter_is_not_sent_with_the_form(tmp_path: Path) -> None:
    request = form({"name": {"type": "string"}}, ["name"])
    agent = write_scenario(tmp_path, steps_with(request))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await open_form(h)
        await h.pilot.press("b", "o", "b")
        # both keys queued at once, as the driver queues a fast typist's: the "n" reaches the
        # input before the form handles its enter
        h.app.post_message(events.Key("enter", "\r"))
        h.app.post_message(events.Key("n", "n"))
        await h.until(lambda: answers(agent), "the answer")
    assert answers(agent) == [{"action": "accept", "content": {"name": "bob"}}]

"""Elicitation against the scripted agent: a form with validation, decline/cancel, a cancelled
turn cancelling the open form, and URL mode waiting for elicitation/complete."""

from __future__ import annotations

import webbrowser
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button, Checkbox, Input, Select, SelectionList, Static

from acp_tui.ui.screens.elicitation_screen import ElicitationScreen
from tests.agents.scenarios import (
    client_request,
    end_turn,
    expect_prompt,
    initialize_ok,
    write_scenario,
)
from tests.ui.app_harness import SID, AppHarness, fixed_cwd, plain, run_app, session_with_modes

SCHEMA = {
    "type": "object",
    "title": "Deploy [b]settings[/b]",
    "properties": {
        "name": {"type": "string", "title": "Service name", "minLength": 3, "pattern": "^[a-z-]+$"},
        "email": {"type": "string", "format": "email"},
        "replicas": {"type": "integer", "minimum": 1, "maximum": 5, "default": 2},
        "dry_run": {"type": "boolean", "title": "Dry run", "default": True},
        "region": {"type": "string", "oneOf": [{"const": "eu", "title": "Europe"},
                                               {"const": "us", "title": "United States"}]},
        "features": {"type": "array", "items": {"type": "string", "enum": ["logs", "metrics"]},
                     "minItems": 1},
    },
    "required": ["name", "region", "features"],
}  # fmt: skip


def form_request() -> dict[str, Any]:
    params = {"sessionId": SID, "mode": "form", "message": "Where to deploy?",
              "requestedSchema": SCHEMA}  # fmt: skip
    return client_request("elicitation/create", params, save_as="answer")


def steps_with(request: dict[str, Any], *after: dict[str, Any]) -> list[dict[str, Any]]:
    return [initialize_ok(), session_with_modes(), expect_prompt(), request, *after, end_turn()]


def answers(agent: Any) -> list[Any]:
    frames = [f for f in agent.transcript() if isinstance(f, dict) and "method" not in f]
    return [f.get("result", f.get("error")) for f in frames]


async def open_form(h: AppHarness) -> ElicitationScreen:
    await h.type_prompt("deploy")
    await h.until(lambda: isinstance(h.app.screen, ElicitationScreen), "the elicitation form")
    await h.pilot.pause()
    screen = h.app.screen
    assert isinstance(screen, ElicitationScreen)
    return screen


async def test_form_validates_then_accepts_typed_content(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, steps_with(form_request()))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        screen = await open_form(h)
        assert "Deploy [b]settings[/b]" in plain(screen.query_one("#title", Static))
        assert h.app.session.elicitations.open, "the request waits for the user"
        screen.query_one("#field-name", Input).value = "No"
        screen.query_one("#field-email", Input).value = "not-an-address"
        screen.query_one("#field-replicas", Input).value = "9"
        screen.query_one("#accept", Button).press()
        await h.pilot.pause()
        errors = {n: plain(screen.query_one(f"#error-{n}", Static)) for n in
                  ("name", "email", "replicas", "region", "features")}  # fmt: skip
        assert errors == {"name": "at least 3 characters", "email": "not an e-mail address",
                          "replicas": "at most 5", "region": "required",
                          "features": "required"}  # fmt: skip
        assert h.app.screen is screen, "an invalid form is not sent"
        screen.query_one("#field-name", Input).value = "web-api"
        screen.query_one("#field-email", Input).value = "ops@example.com"
        screen.query_one("#field-replicas", Input).value = "3"
        screen.query_one("#field-dry_run", Checkbox).value = False
        screen.query_one("#field-region", Select).value = "us"
        screen.query_one("#field-features", SelectionList).select("metrics")
        screen.query_one("#accept", Button).press()
        await h.until(lambda: answers(agent), "the answer to reach the agent")
        await h.settle()
    assert answers(agent) == [{"action": "accept", "content": {
        "name": "web-api", "email": "ops@example.com", "replicas": 3, "dry_run": False,
        "region": "us", "features": ["metrics"]}}]  # fmt: skip


@pytest.mark.parametrize("button", ["decline", "cancel"])
async def test_decline_and_cancel_send_no_content(tmp_path: Path, button: str) -> None:
    agent = write_scenario(tmp_path, steps_with(form_request()))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        screen = await open_form(h)
        screen.query_one(f"#{button}", Button).press()
        await h.until(lambda: answers(agent), "the answer")
        await h.settle()
    assert answers(agent) == [{"action": button}]


async def test_cancelling_the_turn_cancels_the_open_form(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, steps_with(form_request(), {"wait_cancel": True}))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await open_form(h)
        await h.app.session.cancel()
        await h.until(lambda: not isinstance(h.app.screen, ElicitationScreen), "the form closes")
        await h.settle()
    assert answers(agent) == [{"action": "cancel"}]


async def test_url_mode_opens_the_url_and_waits_for_complete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []

    def fake_open(url: str) -> bool:
        opened.append(url)
        return True

    monkeypatch.setattr(webbrowser, "open", fake_open)
    params = {"sessionId": SID, "mode": "url", "message": "Log in to the service",
              "url": "https://example.invalid/login", "elicitationId": "e-1"}  # fmt: skip
    complete = {"notify": "elicitation/complete", "params": {"elicitationId": "e-1"}}
    gate = {"expect": "session/set_mode", "respond": {}}
    steps = steps_with(client_request("elicitation/create", params, save_as="answer"), gate,
                       complete)  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        screen = await open_form(h)
        assert "https://example.invalid/login" in plain(screen.query_one("#url", Static))
        screen.query_one("#accept", Button).press()
        await h.until(lambda: answers(agent), "the answer")
        assert opened == ["https://example.invalid/login"]
        assert h.app.screen is screen, "the dialog waits for elicitation/complete"
        assert await h.app.session.set_mode("ask") is None  # let the agent send complete
        await h.until(lambda: h.app.screen is not screen, "the dialog to close on complete")
        await h.settle()
    assert answers(agent) == [{"action": "accept"}]

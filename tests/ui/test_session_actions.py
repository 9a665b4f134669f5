"""Log out from the palette (only when the agent offers it) and acp-tui's `/clear`,
`/sessions`, `/model`."""

from __future__ import annotations

from pathlib import Path

from acp_tui.client.events import SessionState
from acp_tui.ui.screens.choice_picker import ChoicePicker
from acp_tui.ui.screens.main import MainScreen
from acp_tui.ui.screens.question import QuestionScreen
from acp_tui.ui.screens.session_picker import SessionPicker
from tests.agents.scenarios import end_turn, expect_prompt, initialize_ok, write_scenario
from tests.ui.app_harness import SID, AppHarness, fixed_cwd, run_app
from tests.ui.test_settings_section import open_from_palette, options


def palette_names(h: AppHarness) -> list[str]:
    screen = h.app.screen
    assert isinstance(screen, MainScreen)
    return [name for name, _help, _run in screen.extra_commands()]


async def test_logout_from_the_palette_when_the_agent_offers_it(tmp_path: Path) -> None:
    steps = [
        initialize_ok(auth={"logout": {}}),
        {"expect": "session/new", "respond": {"sessionId": SID}},
        {"expect": "logout", "error": {"code": -32603, "message": "Internal error",
                                       "data": "token store locked"}},
        {"expect": "logout", "respond": {}},
    ]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        assert "Log out of the agent" in palette_names(h)
        for _ in range(2):
            await open_from_palette(h, "Log out")
            await h.until(lambda: isinstance(h.app.screen, QuestionScreen), "the confirmation")
            await h.pilot.press("y")
        await h.until(lambda: any(n.startswith("Logged out of") for n in h.notified), "done")
        assert any("Could not log out: Internal error: token store locked" in n for n in h.notified)
        assert [f["params"] for f in h.sent_methods("logout")] == [{}, {}]


async def test_no_logout_entry_without_the_capability(tmp_path: Path) -> None:
    steps = [initialize_ok(), {"expect": "session/new", "respond": {"sessionId": SID}}]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        assert "Log out of the agent" not in palette_names(h)


async def test_clear_starts_a_new_session_asking_first_during_a_turn(tmp_path: Path) -> None:
    steps = [
        initialize_ok(),
        {"expect": "session/new", "respond": {"sessionId": "s1"}},
        expect_prompt(),
        {"wait_notify": "session/cancel"},
        end_turn(stop_reason="cancelled"),
        {"expect": "session/new", "respond": {"sessionId": "s2"}},
        expect_prompt("second"),
        end_turn("second"),
        {"expect": "session/new", "respond": {"sessionId": "s3", "configOptions": options()}},
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("first question")
        await h.until(lambda: h.session.turn_running, "the turn")
        first_screen = h.app.screen
        await h.type_prompt("/clear")
        await h.until(lambda: isinstance(h.app.screen, QuestionScreen), "the confirmation")
        await h.pilot.press("y")
        await h.until(lambda: h.session.session_id == "s2", "the new session")
        await h.until(lambda: isinstance(h.app.screen, MainScreen), "the main screen")
        assert h.app.screen is not first_screen
        assert h.session.thread.entries == []
        assert h.sent_methods("session/cancel")
        await h.prompt("second question")
        await h.type_prompt("/clear")  # no turn running: no question
        await h.until(lambda: h.session.session_id == "s3", "the third session")
        assert not isinstance(h.app.screen, QuestionScreen)
        assert h.session.state is SessionState.READY


async def test_sessions_and_model_slash_commands_open_their_pickers(tmp_path: Path) -> None:
    steps = [
        initialize_ok(sessionCapabilities={"list": {}}),
        {"expect": "session/new", "respond": {"sessionId": SID, "configOptions": options()}},
        {"expect": "session/list", "respond": {"sessions": []}},
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("/model")
        await h.until(lambda: isinstance(h.app.screen, ChoicePicker), "the model picker")
        await h.pilot.press("escape")
        await h.until(lambda: isinstance(h.app.screen, MainScreen), "back")
        await h.type_prompt("/sessions")
        await h.until(lambda: isinstance(h.app.screen, SessionPicker), "the session picker")


async def test_v2_logout_is_auth_logout_offered_with_auth_methods(tmp_path: Path) -> None:
    from acp_tui.config import Settings

    steps = [
        {"expect": "initialize", "match": {"protocolVersion": 2}, "respond": {
            "protocolVersion": 2, "info": {"name": "scripted-v2", "version": "1"},
            "capabilities": {},
            "authMethods": [{"methodId": "key", "name": "API key", "type": "agent"}]}},
        {"expect": "session/new", "respond": {"sessionId": SID}},
        {"expect": "auth/logout", "respond": {}},
    ]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    v2 = {"settings": Settings(protocol_version=2)}
    async with run_app(agent.argv, fixed_cwd(tmp_path), session_kwargs=v2) as h:
        assert h.session.protocol_version == 2
        assert "Log out of the agent" in palette_names(h)
        await open_from_palette(h, "Log out")
        await h.until(lambda: isinstance(h.app.screen, QuestionScreen), "the confirmation")
        await h.pilot.press("y")
        await h.until(lambda: any(n.startswith("Logged out of") for n in h.notified), "done")
        assert not h.sent_methods("logout")

"""Agent presets in the app: defaults applied after the session opens (failures are notices),
the preset's auth method used without asking, and the picker shown when no agent was given."""

from __future__ import annotations

import stat
from pathlib import Path

from textual.widgets import OptionList

from acp_tui.client.events import SessionState
from acp_tui.client.session.history import OpenRequest
from acp_tui.presets import Preset, PresetTable
from acp_tui.ui.screens.agent_picker import DEMO_ID, AgentPickerApp
from acp_tui.ui.screens.session_picker import SessionPicker
from acp_tui.ui.widgets.mode_list import ModeList
from tests.agents.scenarios import initialize_ok, write_scenario
from tests.ui.app_harness import MODES, SID, fixed_cwd, run_app
from tests.ui.test_settings_section import MODELS, options, status


async def test_a_preset_starts_in_its_model_mode_and_options(tmp_path: Path) -> None:
    steps = [
        initialize_ok(),
        {"expect": "session/new",
         "respond": {"sessionId": SID, "configOptions": options(), "modes": MODES}},
        {"expect": "session/set_config_option", "match": {"configId": "model", "value": "opus"},
         "respond": {"configOptions": options(model="opus")}},
        {"expect": "session/set_mode", "match": {"modeId": "plan"}, "respond": {}},
        {"expect": "session/set_config_option", "match": {"configId": "web", "value": True},
         "respond": {"configOptions": options(model="opus", web=True)}},
    ]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    preset = Preset(
        "mine", tuple(agent.argv), model="opus", mode="plan",
        config={"effort": "high", "web": True, "nope": "x"},
    )  # fmt: skip
    async with run_app(agent.argv, fixed_cwd(tmp_path), app_kwargs={"preset": preset}) as h:
        await h.until(lambda: h.one(ModeList).current == "plan", "the preset's mode")
        await h.until(lambda: "model: Opus" in status(h), "the preset's model")
        await h.until(lambda: any("option 'nope'" in n for n in h.notified), "the bad option")
        note = next(n for n in h.notified if "option 'nope'" in n)
        assert "Preset mine: option 'nope': the agent has no such option" in note
        # effort was already "high": not sent again
        sent = [f["params"] for f in h.sent_methods("session/set_config_option")]
        assert sent == [
            {"sessionId": SID, "configId": "model", "value": "opus"},
            {"sessionId": SID, "configId": "web", "value": True, "type": "boolean"},
        ]
        assert h.session.state is SessionState.READY


async def test_a_failing_default_is_a_notice_not_fatal(tmp_path: Path) -> None:
    steps = [
        initialize_ok(),
        {"expect": "session/new", "respond": {"sessionId": SID, "models": MODELS}},
        {"expect": "session/set_model", "match": {"modelId": "flash"},
         "error": {"code": -32603, "message": "Internal error", "data": "quota exceeded"}},
    ]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    preset = Preset("g", tuple(agent.argv), model="flash", mode="yolo")
    async with run_app(agent.argv, fixed_cwd(tmp_path), app_kwargs={"preset": preset}) as h:
        await h.until(lambda: any("Preset g" in n for n in h.notified), "the notice")
        note = next(n for n in h.notified if "Preset g" in n)
        assert "model 'flash': Internal error: quota exceeded" in note
        assert "mode 'yolo': the agent offers no modes" in note
        assert h.session.state is SessionState.READY
        assert "model: Auto" in status(h)


async def test_the_presets_auth_method_is_used_without_asking(tmp_path: Path) -> None:
    init = initialize_ok()
    init["respond"]["authMethods"] = [
        {"id": "oauth", "name": "Log in with a browser"},
        {"id": "api-key", "name": "Use an API key"},
    ]
    steps = [
        init,
        {"expect": "session/new", "error": {"code": -32000, "message": "Authentication required"}},
        {"expect": "authenticate", "match": {"methodId": "api-key"}, "respond": {}},
        {"expect": "session/new", "respond": {"sessionId": SID}},
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path), session_kwargs={}, wait_ready=False) as h:
        h.session.preferred_auth = "api-key"
        await h.ready()
        assert [f["params"]["methodId"] for f in h.sent_methods("authenticate")] == ["api-key"]


def _program(directory: Path, name: str) -> str:
    path = directory / name
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


async def test_the_agent_picker_offers_installed_presets(tmp_path: Path) -> None:
    table = PresetTable(
        {
            "ghost": Preset("ghost", ("no-such-program-xyz",), install="npm i -g ghost"),
            "one": Preset("one", (_program(tmp_path, "one"),), title="First"),
            "two": Preset("two", (_program(tmp_path, "two"), "acp")),
        }
    )
    app = AgentPickerApp(table)
    async with app.run_test() as pilot:
        options = app.query_one(OptionList)
        ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
        assert ids == ["one", "two", DEMO_ID, "ghost"]  # installed first, then the demo
        ghost = options.get_option("ghost")
        assert ghost.disabled and "install: npm i -g ghost" in str(ghost.prompt)
        await pilot.press("down", "enter")
    assert isinstance(app.return_value, Preset) and app.return_value.name == "two"
    app = AgentPickerApp(table)
    async with app.run_test() as pilot:
        await pilot.press("escape")
    assert app.return_value is None


async def test_preset_defaults_follow_a_session_opened_from_the_picker(tmp_path: Path) -> None:
    """A resumed session comes back with its own settings: the preset's are applied again."""
    at_new = {"configOptions": options(model="opus"), "modes": {**MODES, "currentModeId": "plan"}}
    steps = [
        initialize_ok(sessionCapabilities={"list": {}, "resume": {}}),
        {"expect": "session/new", "respond": {"sessionId": SID, **at_new}},
        {"expect": "session/list",
         "respond": {"sessions": [{"sessionId": "old-1", "cwd": "$request.params.cwd",
                                   "title": "Yesterday"}]}},
        {"expect": "session/resume", "match": {"sessionId": "old-1"},
         "respond": {"configOptions": options(model="sonnet"), "modes": MODES}},
        {"expect": "session/set_config_option",
         "match": {"sessionId": "old-1", "configId": "model", "value": "opus"},
         "respond": {"configOptions": options(model="opus")}},
        {"expect": "session/set_mode", "match": {"sessionId": "old-1", "modeId": "plan"},
         "respond": {}},
    ]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    preset = Preset("mine", tuple(agent.argv), model="opus", mode="plan")
    async with run_app(agent.argv, fixed_cwd(tmp_path), app_kwargs={"preset": preset}) as h:
        assert h.sent_methods("session/set_config_option") == [], "the new session had them"
        await h.pilot.press("f5")
        await h.until(lambda: isinstance(h.app.screen, SessionPicker), "the picker")
        await h.until(lambda: h.app.screen.query_one(OptionList).option_count > 0, "listed")
        h.app.screen.query_one(OptionList).focus()
        await h.pilot.press("enter")
        await h.until(lambda: h.session.session_id == "old-1", "the resumed session")
        await h.until(lambda: len(h.sent_methods("session/set_mode")) == 1, "the preset's mode")
        await h.until(lambda: h.one(ModeList).current == "plan", "the mode shown")
        await h.until(lambda: "model: Opus" in status(h), "the preset's model shown")


async def test_preset_defaults_follow_continue(tmp_path: Path) -> None:
    steps = [
        initialize_ok(loadSession=True, sessionCapabilities={"list": {}}),
        {"expect": "session/list",
         "respond": {"sessions": [{"sessionId": "old-1", "cwd": "$request.params.cwd"}]}},
        {"expect": "session/load", "match": {"sessionId": "old-1"},
         "respond": {"configOptions": options(model="sonnet")}},
        {"expect": "session/set_config_option",
         "match": {"sessionId": "old-1", "configId": "model", "value": "opus"},
         "respond": {"configOptions": options(model="opus")}},
    ]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    preset = Preset("mine", tuple(agent.argv), model="opus")
    kwargs = {"preset": preset, "open_request": OpenRequest(continue_last=True)}
    async with run_app(agent.argv, fixed_cwd(tmp_path), app_kwargs=kwargs) as h:
        await h.until(lambda: "model: Opus" in status(h), "the preset's model")
        assert h.session.session_id == "old-1"
        assert h.sent_methods("session/new") == []

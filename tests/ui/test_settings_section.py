"""Config options and models: the Settings section, the status bar, the quick picker, modes.

Against the scripted agent: every change is sent as the schema says, and what is shown is what
the agent answered (the full option list it returns replaces ours).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import OptionList

from acp_tui.ui.screens.choice_picker import ChoicePicker
from acp_tui.ui.widgets.mode_list import ModeList
from acp_tui.ui.widgets.settings_section import SettingRow, SettingsSection
from acp_tui.ui.widgets.status_bar import StatusBar
from bench.turns import update
from tests.agents.scenarios import end_turn, expect_prompt, initialize_ok, write_scenario
from tests.ui.app_harness import SID, AppHarness, fixed_cwd, run_app, upd
from tests.ui.headless_app import headless_app, until
from tests.ui.key_burst import press_at_once


def model_option(current: str = "sonnet") -> dict[str, Any]:
    return {
        "id": "model",
        "name": "Model",
        "category": "model",
        "type": "select",
        "description": "Which model answers",
        "currentValue": current,
        "options": [
            {"group": "anthropic", "name": "Anthropic", "options": [
                {"value": "sonnet", "name": "Sonnet"},
                {"value": "opus", "name": "Opus", "description": "Slower, smarter"},
            ]},
            {"group": "local", "name": "Local", "options": [
                {"value": "tiny", "name": "Tiny"},
            ]},
        ],
    }  # fmt: skip


def effort_option(current: str = "high") -> dict[str, Any]:
    return {
        "id": "effort",
        "name": "Reasoning effort",
        "category": "thought_level",
        "type": "select",
        "currentValue": current,
        "options": [
            {"value": "low", "name": "Low"},
            {"value": "medium", "name": "Medium"},
            {"value": "high", "name": "High"},
        ],
    }


def web_option(current: bool = False) -> dict[str, Any]:
    return {
        "id": "web",
        "name": "Web search",
        "type": "boolean",
        "description": "Let the agent search the web",
        "currentValue": current,
    }


def options(model: str = "sonnet", effort: str = "high", web: bool = False) -> list[Any]:
    return [model_option(model), effort_option(effort), web_option(web)]


def status(h: AppHarness) -> str:
    return h.one(StatusBar).render().plain


def rows(h: AppHarness) -> dict[str, str]:
    return {row.row_id: str(row.render()) for row in h.all(SettingRow)}


def row(h: AppHarness, row_id: str) -> SettingRow:
    return next(r for r in h.all(SettingRow) if r.row_id == row_id)


async def pick(h: AppHarness, value: str) -> None:
    """In the open ChoicePicker, move to `value` with the arrow keys and press Enter."""
    await h.until(lambda: isinstance(h.app.screen, ChoicePicker), "the picker")
    options = h.app.screen.query_one(OptionList)
    for _ in range(options.option_count + 1):
        index = options.highlighted
        if index is not None and options.get_option_at_index(index).id == value:
            break
        await h.pilot.press("down")
    await h.pilot.press("enter")
    await h.until(lambda: not isinstance(h.app.screen, ChoicePicker), "the picker to close")


async def open_from_palette(h: AppHarness, query: str) -> None:
    """ctrl+p, type `query`, wait for the first hit, Enter."""
    from textual.command import CommandList, CommandPalette

    await h.pilot.press("ctrl+p")
    await h.until(lambda: isinstance(h.app.screen, CommandPalette), "the palette")
    await press_at_once(h.pilot, *query)
    hits = h.app.screen.query_one(CommandList)
    await h.until(lambda: hits.option_count > 0, "a palette hit")
    await h.pilot.press("down", "enter")


async def test_settings_show_change_and_follow_the_agent(tmp_path: Path) -> None:
    steps = [
        initialize_ok(),
        {"expect": "session/new", "respond": {"sessionId": SID, "configOptions": options()}},
        # picking Opus: the agent answers with the full list, in which it also lowered effort
        {
            "expect": "session/set_config_option",
            "match": {"configId": "model", "value": "opus"},
            "respond": {"configOptions": options("opus", "medium")},
        },
        {
            "expect": "session/set_config_option",
            "match": {"configId": "web", "value": True, "type": "boolean"},
            "respond": {"configOptions": options("opus", "medium", web=True)},
        },
        {
            "expect": "session/set_config_option",
            "match": {"configId": "effort", "value": "low"},
            "error": {
                "code": -32602,
                "message": "Invalid params",
                "data": {"details": "low effort is not available for opus"},
            },
        },
        expect_prompt(),
        upd("config_option_update", configOptions=options("tiny", "medium", web=True)),
        end_turn(),
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.until(lambda: "model: Sonnet" in status(h), "the model in the status bar")
        assert "Reasoning effort: High" in status(h)
        await h.until(lambda: list(rows(h)) == ["model", "effort", "web"], "the settings rows")
        shown = rows(h)
        assert "Model" in shown["model"] and "Sonnet" in shown["model"]
        assert "Which model answers" in shown["model"]
        assert "○ off" in shown["web"] and "Let the agent search the web" in shown["web"]

        # the quick picker (f6) shows the groups and marks the current model
        await h.pilot.press("f6")
        await h.until(lambda: isinstance(h.app.screen, ChoicePicker), "the model picker")
        listed = h.app.screen.query_one(OptionList)
        labels = [str(listed.get_option_at_index(i).prompt) for i in range(listed.option_count)]
        assert labels[0] == "Anthropic" and labels[3] == "Local"
        assert labels[1].startswith("● Sonnet") and labels[2].startswith("○ Opus")
        await pick(h, "opus")
        await h.until(lambda: "model: Opus" in status(h), "Opus in the status bar")
        assert "Reasoning effort: Medium" in status(h), "the answered list replaced ours"
        sent = h.sent_methods("session/set_config_option")[-1]["params"]
        assert sent == {"sessionId": SID, "configId": "model", "value": "opus"}

        await h.until(lambda: "Opus" in rows(h).get("model", ""), "the rows redrawn")
        # a boolean toggles with Enter on its row
        row(h, "web").focus()
        await h.pilot.press("enter")
        await h.until(lambda: "● on" in rows(h).get("web", ""), "web search on")
        sent = h.sent_methods("session/set_config_option")[-1]["params"]
        assert sent == {"sessionId": SID, "configId": "web", "value": True, "type": "boolean"}

        # a refusal is shown with the agent's detail; nothing changes
        row(h, "effort").focus()
        await h.pilot.press("enter")
        await pick(h, "low")
        await h.until(
            lambda: any("low effort is not available for opus" in n for n in h.notified),
            "the error with its data",
        )
        assert "Reasoning effort: Medium" in status(h)

        # the agent changes options itself during a turn
        await h.prompt("go")
        await h.until(lambda: "model: Tiny" in status(h), "the live update")
        await h.until(lambda: "Tiny" in rows(h).get("model", ""), "the row updated")


async def test_a_mode_option_drives_the_modes_section_and_shift_tab(tmp_path: Path) -> None:
    mode = {
        "id": "mode", "name": "Session Mode", "category": "mode", "type": "select",
        "currentValue": "build",
        "options": [
            {"value": "build", "name": "build", "description": "The default agent."},
            {"value": "plan", "name": "plan", "description": "Disallows all edit tools."},
        ],
    }  # fmt: skip
    planned = {**mode, "currentValue": "plan"}
    steps = [
        initialize_ok(),
        {"expect": "session/new", "respond": {"sessionId": SID, "configOptions": [mode]}},
        {
            "expect": "session/set_config_option",
            "match": {"configId": "mode", "value": "plan"},
            "respond": {"configOptions": [planned]},
        },
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        modes = h.one(ModeList)
        await h.until(lambda: [m.id for m in modes.modes] == ["build", "plan"], "the modes")
        assert modes.current == "build"
        assert "mode: build" in status(h)
        await h.pilot.press("shift+tab")
        await h.until(lambda: modes.current == "plan", "plan current")
        assert "mode: plan" in status(h)
        assert h.sent_methods("session/set_mode") == []
        (sent,) = h.sent_methods("session/set_config_option")
        assert sent["params"] == {"sessionId": SID, "configId": "mode", "value": "plan"}


MODELS = {
    "availableModels": [
        {"modelId": "auto", "name": "Auto", "description": "Let the agent decide"},
        {"modelId": "gemini-2.5-pro", "name": "gemini-2.5-pro"},
        {"modelId": "flash", "name": "gemini-3.8-flash"},
    ],
    "currentModelId": "auto",
}


async def test_unstable_models_are_shown_and_set_with_set_model(tmp_path: Path) -> None:
    steps = [
        initialize_ok(),
        {"expect": "session/new", "respond": {"sessionId": SID, "models": MODELS}},
        {
            "expect": "session/set_model",
            "match": {"modelId": "gemini-2.5-pro"},
            "error": {"code": -32603, "message": "Internal error", "data": "quota exceeded"},
        },
        {"expect": "session/set_model", "match": {"modelId": "flash"}, "respond": {}},
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.until(lambda: "model: Auto" in status(h), "the model in the status bar")
        await h.until(lambda: "Auto" in rows(h).get("models", ""), "the model row")
        await open_from_palette(h, "model")
        await pick(h, "gemini-2.5-pro")
        await h.until(
            lambda: any("Internal error: quota exceeded" in n for n in h.notified), "the error"
        )
        assert "model: Auto" in status(h)
        row(h, "models").focus()
        await h.pilot.press("enter")
        await pick(h, "flash")
        await h.until(lambda: "model: gemini-3.8-flash" in status(h), "the new model")
        await h.until(lambda: "gemini-3.8-flash" in rows(h).get("models", ""), "the row")
        sent = [f["params"] for f in h.sent_methods("session/set_model")]
        assert sent == [
            {"sessionId": SID, "modelId": "gemini-2.5-pro"},
            {"sessionId": SID, "modelId": "flash"},
        ]


async def test_no_models_offered_says_so(tmp_path: Path) -> None:
    steps = [initialize_ok(), {"expect": "session/new", "respond": {"sessionId": SID}}]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.pilot.press("f6")
        await h.until(lambda: any("no choice of models" in n for n in h.notified), "the notice")
        assert not isinstance(h.app.screen, ChoicePicker)
        assert rows(h) == {}
        assert "none" in str(h.one(SettingsSection).query_one(".settings-none").render())


async def test_the_status_bar_names_the_thought_level_as_the_agent_does() -> None:
    """`Effort` or `Reasoning Effort`, not `thinking`; agent text made safe and shortened."""
    async with headless_app((140, 45)) as (app, pilot):
        thread = app.session.thread
        bar = app.screen.query_one(StatusBar)

        def shown() -> str:
            return bar.render().plain

        thread.apply_notification(update("config_option_update", configOptions=[
            {**effort_option("medium"), "name": "Effort"}]))  # fmt: skip
        await until(pilot, lambda: "Medium" in shown(), "the effort in the status bar")
        assert "  Effort: Medium" in shown() and "thinking" not in shown()
        hostile = "Reasoning\x1b[2J Effort [bold]of the most thorough kind[/bold]"
        thread.apply_notification(update("config_option_update", configOptions=[
            {**effort_option("high"), "name": hostile}]))  # fmt: skip
        await until(pilot, lambda: "High" in shown(), "the new option")
        assert "  Reasoning␛[2J Effort [b…: High" in shown(), "24 cells at most, no escape"
        assert "\x1b" not in shown()


async def test_a_value_changed_by_the_agent_updates_its_row_in_place(tmp_path: Path) -> None:
    """The same rows with a new value: each row's text is updated, no row is removed and mounted
    again (before, the whole section was rebuilt: a frame without its rows, seen as the settings
    snapshot taken in that frame)."""
    steps = [
        initialize_ok(),
        {"expect": "session/new", "respond": {"sessionId": SID, "configOptions": options()}},
        expect_prompt(),
        upd("config_option_update", configOptions=options("tiny", "medium", web=True)),
        end_turn(),
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.until(lambda: list(rows(h)) == ["model", "effort", "web"], "the settings rows")
        before = list(h.all(SettingRow))
        await h.prompt("go")
        await h.until(lambda: "Tiny" in rows(h).get("model", ""), "the row updated")
        assert "● on" in rows(h)["web"] and "Medium" in rows(h)["effort"]
        assert list(h.all(SettingRow)) == before  # the same widgets

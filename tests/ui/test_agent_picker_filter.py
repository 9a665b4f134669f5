"""The agent picker (`acp-tui` with no agent): what is typed filters the list, ↑ ↓ and Enter
still choose, and the built-in demo agent is an entry of its own."""

from __future__ import annotations

import stat
from pathlib import Path

from textual.widgets import Input, OptionList

from acp_tui.presets import Preset, PresetTable
from acp_tui.ui.screens.agent_picker import DEMO, DEMO_ID, AgentPickerApp


def program(directory: Path, name: str) -> str:
    path = directory / name
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def table(tmp_path: Path) -> PresetTable:
    return PresetTable(
        {
            "gemini": Preset("gemini", (program(tmp_path, "gemini"),), "Gemini CLI"),
            "codex": Preset(
                "codex", (program(tmp_path, "codex-acp"),), "Codex (ACP adapter)",
                registry_id="codex-acp",
            ),
            "qwen": Preset(
                "qwen", (program(tmp_path, "qwen"),), "Qwen Code",
                description="Alibaba's coding agent",
            ),
            "ghost": Preset("ghost", ("no-such-program-xyz",), install="npm i -g ghost"),
        }
    )  # fmt: skip


def shown(app: AgentPickerApp) -> list[str | None]:
    options = app.query_one(OptionList)
    return [options.get_option_at_index(i).id for i in range(options.option_count)]


async def test_typing_filters_and_enter_starts_the_highlighted_agent(tmp_path: Path) -> None:
    app = AgentPickerApp(table(tmp_path))
    async with app.run_test() as pilot:
        assert shown(app) == ["gemini", "codex", "qwen", DEMO_ID, "ghost"]
        assert app.focused is app.query_one(Input)  # keys go to the filter
        await pilot.press(*"alibaba")  # a word of the description
        assert shown(app) == ["qwen"]
        for _ in range(7):
            await pilot.press("backspace")
        await pilot.press(*"codex-acp")  # the registry id of the `codex` preset
        assert shown(app) == ["codex"]
        await pilot.press("enter")
    assert isinstance(app.return_value, Preset) and app.return_value.name == "codex"


async def test_arrows_move_in_the_list_while_the_filter_has_the_keys(tmp_path: Path) -> None:
    app = AgentPickerApp(table(tmp_path))
    async with app.run_test() as pilot:
        await pilot.press(*"co")  # codex, and Qwen Code
        assert shown(app) == ["codex", "qwen"]
        await pilot.press("down", "enter")
    assert isinstance(app.return_value, Preset) and app.return_value.name == "qwen"


async def test_the_demo_agent_is_an_entry(tmp_path: Path) -> None:
    app = AgentPickerApp(table(tmp_path))
    async with app.run_test() as pilot:
        await pilot.press(*"demo")
        assert shown(app) == [DEMO_ID]
        label = str(app.query_one(OptionList).get_option(DEMO_ID).prompt)
        assert "the built-in demo agent" in label and "no API key" in label
        await pilot.press("enter")
    assert app.return_value == DEMO


async def test_a_filter_nothing_matches_leaves_the_list_empty_and_enter_does_nothing(
    tmp_path: Path,
) -> None:
    app = AgentPickerApp(table(tmp_path))
    async with app.run_test() as pilot:
        await pilot.press(*"zzz")
        assert shown(app) == []
        await pilot.press("enter")
        assert app.is_running
        await pilot.press("escape")
    assert app.return_value is None

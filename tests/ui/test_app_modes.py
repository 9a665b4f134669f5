"""Session modes: listed with the current one marked, chosen, cycled, moved by the agent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual import events

from acp_tui.ui.screens import settings_actions
from acp_tui.ui.widgets.mode_list import ModeList
from acp_tui.ui.widgets.status_bar import StatusBar
from tests.agents.scenarios import (
    end_turn,
    expect_prompt,
    initialize_ok,
    new_session_ok,
    write_scenario,
)
from tests.ui.app_harness import SID, AppHarness, fixed_cwd, run_app, session_with_modes, upd


def marks(h: AppHarness) -> list[str]:
    mode_list = h.one(ModeList)
    return [
        str(mode_list.get_option_at_index(i).prompt).split("\n")[0]
        for i in range(mode_list.option_count)
    ]


def status(h: AppHarness) -> str:
    return h.one(StatusBar).render().plain


async def test_modes_choose_cycle_fail_and_follow_the_agent(tmp_path: Path) -> None:
    steps = [
        initialize_ok(),
        session_with_modes(),
        {"expect": "session/set_mode", "match": {"modeId": "code"}, "respond": {}},
        {
            "expect": "session/set_mode",
            "match": {"modeId": "plan"},
            "error": {"code": -32602, "message": "plan mode is locked"},
        },
        expect_prompt(),
        upd("current_mode_update", currentModeId="plan"),
        end_turn(),
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.until(lambda: marks(h) == ["● Ask", "○ Code", "○ Plan"], "the modes listed")
        assert "mode: Ask" in status(h)

        mode_list = h.one(ModeList)
        mode_list.focus()
        mode_list.highlighted = 1
        await h.pilot.press("enter")
        await h.until(lambda: marks(h) == ["○ Ask", "● Code", "○ Plan"], "Code marked")
        assert h.sent_methods("session/set_mode")[-1]["params"]["modeId"] == "code"
        assert "mode: Code" in status(h)

        await h.pilot.press("shift+tab")  # next: plan, which the agent refuses
        await h.until(lambda: any("plan mode is locked" in n for n in h.notified), "the error")
        assert h.sent_methods("session/set_mode")[-1]["params"]["modeId"] == "plan"
        assert marks(h) == ["○ Ask", "● Code", "○ Plan"], "a failed switch leaves the mark"
        assert "mode: Code" in status(h)

        await h.prompt("go")  # the agent switches itself to plan during the turn
        await h.until(lambda: marks(h) == ["○ Ask", "○ Code", "● Plan"], "Plan marked")
        assert "mode: Plan" in status(h)


async def test_shift_tab_wraps_around(tmp_path: Path) -> None:
    steps = [
        initialize_ok(),
        session_with_modes(),
        {"expect": "session/set_mode", "match": {"modeId": "code"}, "respond": {}},
        {"expect": "session/set_mode", "match": {"modeId": "plan"}, "respond": {}},
        {"expect": "session/set_mode", "match": {"modeId": "ask"}, "respond": {}},
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        for expected in ("Code", "Plan", "Ask"):
            await h.pilot.press("shift+tab")
            await h.until(mode_shown(h, expected), f"mode {expected}")
        sent = [f["params"]["modeId"] for f in h.sent_methods("session/set_mode")]
        assert sent == ["code", "plan", "ask"]


def mode_shown(h: AppHarness, name: str) -> Callable[[], bool]:
    return lambda: f"mode: {name}" in status(h)


async def test_after_a_refused_mode_shift_tab_moves_on(tmp_path: Path) -> None:
    steps = [
        initialize_ok(),
        session_with_modes(),
        {
            "expect": "session/set_mode",
            "match": {"modeId": "code"},
            "error": {"code": -32603, "message": "code mode is locked"},
        },
        {
            "expect": "session/set_mode",
            "match": {"modeId": "plan"},
            "error": {"code": -32603, "message": "plan mode is locked"},
        },
        # back round the cycle: the current mode (ask) is skipped, code is asked for again
        {"expect": "session/set_mode", "match": {"modeId": "code"}, "respond": {}},
        {"expect": "session/set_mode", "match": {"modeId": "plan"}, "respond": {}},
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.until(mode_shown(h, "Ask"), "mode Ask")
        for refused in ("code", "plan"):
            await h.pilot.press("shift+tab")
            await h.until(notified(h, f"{refused} mode is locked"), f"{refused} refused")
        await h.pilot.press("shift+tab")
        await h.until(mode_shown(h, "Code"), "mode Code")
        await h.pilot.press("shift+tab")  # cycles on from the new current mode
        await h.until(mode_shown(h, "Plan"), "mode Plan")
        sent = [f["params"]["modeId"] for f in h.sent_methods("session/set_mode")]
        assert sent == ["code", "plan", "code", "plan"]


async def test_shift_tab_with_a_single_mode_does_nothing(tmp_path: Path) -> None:
    one_mode = {
        "currentModeId": "default",
        "availableModes": [{"id": "default", "name": "Default", "description": None}],
    }
    steps = [
        initialize_ok(),
        new_session_ok(SID, modes=one_mode),
        expect_prompt(),
        end_turn(),
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.until(mode_shown(h, "Default"), "mode Default")
        await h.pilot.press("shift+tab", "shift+tab")
        await h.prompt("hi")  # the scenario fails on any set_mode before the prompt
        assert h.sent_methods("session/set_mode") == []
        assert "mode: Default" in status(h)


def notified(h: AppHarness, text: str) -> Callable[[], bool]:
    return lambda: any(text in n for n in h.notified)


async def test_an_agent_without_modes_has_the_modes_section_say_none(tmp_path: Path) -> None:
    """Like Settings and Commands: `none`, not an empty line under `Modes (shift+tab)`."""
    steps = [initialize_ok(), new_session_ok(SID), expect_prompt(), end_turn()]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.pilot.pause()
        assert marks(h) == ["none"]
        # the sidebar's column (the empty conversation's hint is on the same rows, left of it)
        lines = [line.split("▏")[-1].strip() for line in h.screen_text().splitlines()]
        assert lines[lines.index("Modes  (shift+tab)") + 1] == "none"
        mode_list = h.one(ModeList)
        assert mode_list.get_option_at_index(0).disabled, "nothing to choose"
        mode_list.focus()
        await h.pilot.press("enter", "shift+tab")
        await h.pilot.pause()
        assert h.sent_methods("session/set_mode") == []


async def test_the_mode_list_is_not_built_again_for_the_same_modes(tmp_path: Path) -> None:
    """While the session opens, its state, modes and config options each refresh the list: the
    same modes and current mode leave the options as they are (built once, not once per ask)."""
    agent = write_scenario(tmp_path, [initialize_ok(), session_with_modes()])
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.until(lambda: marks(h) == ["● Ask", "○ Code", "○ Plan"], "the modes listed")
        mode_list = h.one(ModeList)
        options = [mode_list.get_option_at_index(i) for i in range(mode_list.option_count)]
        mode_list.set_modes(list(mode_list.modes), mode_list.current)
        assert [mode_list.get_option_at_index(i) for i in range(3)] == options
        assert all(mode_list.get_option_at_index(i) is option for i, option in enumerate(options))
        mode_list.set_modes(mode_list.modes[:2], mode_list.current)  # a change: built again
        assert marks(h) == ["● Ask", "○ Code"]


PERMISSIVE_MODES = {
    "currentModeId": "default",
    "availableModes": [
        {"id": "default", "name": "Default", "description": "Asks before edits"},
        {"id": "bypassPermissions", "name": "Bypass Permissions", "description": None},
        {"id": "plan", "name": "Plan", "description": "Plans only"},
    ],
}


async def test_shift_tab_sets_the_mode_once_after_the_presses_and_passes_no_mode_on_the_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 39, 14: cycling set every mode on the way on the agent (Claude briefly ran
    bypassPermissions). Now the screen shows the selection and the agent gets one set_mode,
    for the mode the presses stopped at; a mode that skips permissions on the way is never
    sent."""
    steps = [
        initialize_ok(),
        new_session_ok(SID, modes=PERMISSIVE_MODES),
        {"expect": "session/set_mode", "match": {"modeId": "plan"}, "respond": {}},
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.until(mode_shown(h, "Default"), "mode Default")
        # the second press comes within the settle time of the first however long a press
        # takes (under load Pilot's press can take a second: MODE_SETTLE is 0.8 s)
        monkeypatch.setattr(settings_actions, "MODE_SETTLE", 3600.0)
        await h.pilot.press("shift+tab")
        assert "mode: → Bypass Permissions" in status(h), "selected on screen, not yet set"
        assert h.one(ModeList).highlighted == 1
        monkeypatch.undo()  # the presses stop at the next one: set MODE_SETTLE after it
        await h.pilot.press("shift+tab")
        assert "mode: → Plan" in status(h)
        await h.until(mode_shown(h, "Plan"), "mode Plan set once the presses stopped")
        sent = [f["params"]["modeId"] for f in h.sent_methods("session/set_mode")]
        assert sent == ["plan"]


async def test_a_mode_that_skips_permissions_is_set_only_once_confirmed(tmp_path: Path) -> None:
    from acp_tui.ui.screens.question import QuestionScreen

    steps = [
        initialize_ok(),
        new_session_ok(SID, modes=PERMISSIVE_MODES),
        {"expect": "session/set_mode", "match": {"modeId": "bypassPermissions"}, "respond": {}},
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.until(mode_shown(h, "Default"), "mode Default")
        await h.pilot.press("shift+tab")  # stops at Bypass Permissions: asked first
        await h.until(lambda: isinstance(h.app.screen, QuestionScreen), "the confirmation")
        screen = h.app.screen
        assert isinstance(screen, QuestionScreen)
        assert "without asking you first" in screen.question.detail
        await h.pilot.press("escape")  # stay
        await h.until(lambda: any("Mode not changed" in n for n in h.notified), "said")
        assert h.sent_methods("session/set_mode") == []
        assert "mode: Default" in status(h)
        mode_list = h.one(ModeList)  # the sidebar's list asks the same
        mode_list.focus()
        mode_list.highlighted = 1
        await h.pilot.press("enter")
        await h.until(lambda: isinstance(h.app.screen, QuestionScreen), "asked again")
        await h.pilot.press("s")
        await h.until(mode_shown(h, "Bypass Permissions"), "switched once confirmed")
        sent = [f["params"]["modeId"] for f in h.sent_methods("session/set_mode")]
        assert sent == ["bypassPermissions"]


async def test_a_confirmation_answered_by_two_keys_at_once_is_answered_once(
    tmp_path: Path,
) -> None:
    """A prompt typed into the mode's confirmation ("Please do the task." has two `s`, its
    Switch key): the second key reached the screen before it was gone and acp-tui ended with
    ScreenStackError ("Can't pop screen")."""
    from acp_tui.ui.screens.question import QuestionScreen

    steps = [
        initialize_ok(),
        new_session_ok(SID, modes=PERMISSIVE_MODES),
        {"expect": "session/set_mode", "match": {"modeId": "bypassPermissions"}, "respond": {}},
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.until(mode_shown(h, "Default"), "mode Default")
        await h.pilot.press("shift+tab")
        await h.until(lambda: isinstance(h.app.screen, QuestionScreen), "the confirmation")
        await h.pilot.press("f4")  # the question chosen: its keys answer it
        for _ in range(2):  # both queued before the first is handled, as typed keys come
            h.app.post_message(events.Key("s", "s"))
        await h.until(lambda: not isinstance(h.app.screen, QuestionScreen), "answered")
        await h.until(mode_shown(h, "Bypass Permissions"), "switched once confirmed")
        assert [f["params"]["modeId"] for f in h.sent_methods("session/set_mode")] == [
            "bypassPermissions"
        ]

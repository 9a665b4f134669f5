"""Session modes: listed with the current one marked, chosen, cycled, moved by the agent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from acp_tui.ui.widgets.mode_list import ModeList
from acp_tui.ui.widgets.status_bar import StatusBar
from tests.agents.scenarios import end_turn, expect_prompt, initialize_ok, write_scenario
from tests.ui.app_harness import AppHarness, fixed_cwd, run_app, session_with_modes, upd


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

"""A permission prompt has the focus the moment it is mounted: no frame in between where the
prompt shows but a key still goes to the prompt box (`focus()` defers through the app queue)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Button

from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
from tests.agents.scenarios import write_scenario
from tests.ui.app_harness import fixed_cwd, one_turn, run_app
from tests.ui.test_permission_focus import answer_with, with_tool_call, without_tool_call


async def test_the_prompt_has_the_focus_the_moment_it_is_mounted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    focused_at_mount: list[object] = []
    original = PermissionPrompt.on_mount

    def on_mount(self: PermissionPrompt) -> None:
        original(self)
        focused_at_mount.append(self.screen.focused)

    monkeypatch.setattr(PermissionPrompt, "on_mount", on_mount)
    agent = write_scenario(tmp_path, one_turn([*without_tool_call("c1"), *with_tool_call("c2")]))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("go")
        for call_id in ("c1", "c2"):
            assert await answer_with(h, agent, call_id, "a") == {
                "outcome": "selected", "optionId": "once"}  # fmt: skip
        assert [str(b.label) for b in focused_at_mount if isinstance(b, Button)] == [
            "Allow (a)", "Allow (a)"]  # fmt: skip

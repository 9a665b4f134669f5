"""f5 ctrl+r on an old branch a rewind left opens it in a new tab of the same agent and
directory (the tab that asked goes on in its own session), its files rewound forward there."""

from __future__ import annotations

from pathlib import Path

from acp_tui.demo.sample_project import create_sample_project
from acp_tui.ui.screens.choice_picker import ChoicePicker
from tests.ui.app_harness import fixed_cwd
from tests.ui.test_rewind import (
    confirmation,
    demo_edit_allowed,
    listed,
    restore_then_send_instead,
    rewind_forward_from_picker,
)
from tests.ui.workspace_support import workspace_app


async def test_the_old_branch_opens_in_a_new_tab(tmp_path: Path) -> None:
    cwd = fixed_cwd(tmp_path).resolve()
    create_sample_project(cwd)
    app_py = cwd / "src" / "app.py"
    before = app_py.read_bytes()
    async with workspace_app(tmp_path) as h:
        first = h.app.tabs[0]
        await demo_edit_allowed(h, lambda: app_py.read_bytes() != before)
        edited = app_py.read_bytes()
        old_session = first.session.session_id

        await h.type_prompt("//rewind")
        await h.until(lambda: isinstance(h.app.screen, ChoicePicker), "the prompt picker")
        await h.pilot.press("enter")
        await confirmation(h)
        await restore_then_send_instead(h, app_py, before, "/edit", "/help")
        await h.until(lambda: first.session.session_id not in (None, old_session), "new branch")
        await h.until(lambda: not first.session.turn_running, "the turn's end")
        new_branch = first.session.session_id

        screen = await rewind_forward_from_picker(h, old_session)
        assert len(h.app.tabs) == 2, "a new tab"
        second = h.app.tabs[1]
        assert h.app.current_tab is second and second.session.session_id == old_session
        assert second.spec.argv == first.spec.argv and second.spec.cwd == first.spec.cwd
        assert first.session.session_id == new_branch, "the tab that asked stays on its branch"
        assert "src/app.py  restored" in listed(screen)
        await h.pilot.press("enter")
        await h.until(lambda: app_py.read_bytes() == edited, "app.py as the old branch left it")

"""The agent started before the app (as `acp-tui` does: `client.prestart`), then adopted.

The early connection's tasks are created before any app exists, so whatever its handlers do
(mount a permission prompt, a tool card) must still run in the app's context: Textual raises
`NoActiveAppError` in `compose` otherwise, and the whole app went down on the first prompt.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp_tui.client.prestart import prestart
from tests.agents.scenarios import write_scenario
from tests.sandboxes import default_sandbox
from tests.ui.app_harness import fixed_cwd, one_turn, run_app
from tests.ui.test_permission_focus import answer_with, with_tool_call


async def test_an_adopted_early_agent_drives_the_ui_through_a_permission_prompt(
    tmp_path: Path,
) -> None:
    agent = write_scenario(tmp_path, one_turn([*with_tool_call("c1")]))
    cwd = fixed_cwd(tmp_path)
    # started here, in the test's own context: no app exists yet, as in `acp-tui` itself
    early = await prestart(
        agent.argv, str(cwd.resolve()), {}, sandbox=default_sandbox(agent.argv, cwd)
    )
    assert early is not None
    kwargs: dict[str, Any] = {"prestarted": early}
    async with run_app(agent.argv, cwd, session_kwargs=kwargs) as h:
        assert h.session._process is early.process, "the session adopted the early agent"
        await h.type_prompt("go")
        outcome = await answer_with(h, agent, "c1", "a")
        assert outcome == {"outcome": "selected", "optionId": "once"}
        assert h.app.is_running
        assert not h.logged_errors, h.logged_errors


async def test_an_oversized_frame_from_a_prestarted_agent_is_a_notice(tmp_path: Path) -> None:
    """The early connection's reader started before the settings were loaded: the cap it
    applies is the setting's, read as frames come in (it kept the 64 MiB default)."""
    from acp_tui.config import Settings
    from tests.agents.scenarios import agent_text
    from tests.ui.app_harness import SID

    steps = [{"raw": "{" + "x" * 5000 + "\n"}, agent_text(SID, "still here")]
    agent = write_scenario(tmp_path, one_turn(steps))
    cwd = fixed_cwd(tmp_path)
    early = await prestart(
        agent.argv, str(cwd.resolve()), {}, sandbox=default_sandbox(agent.argv, cwd)
    )
    assert early is not None
    kwargs: dict[str, Any] = {"prestarted": early, "settings": Settings(max_frame_bytes=1000)}
    async with run_app(agent.argv, cwd, session_kwargs=kwargs) as h:
        assert h.session._process is early.process
        await h.prompt("go")
        await h.until(lambda: "still here" in h.screen_text(), "the text after the big frame")
        assert any("Discarded a message of 5,001 bytes" in n for n in h.notified), h.notified
        assert h.app.is_running

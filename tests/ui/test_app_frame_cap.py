"""An agent message over `max_frame_bytes` is dropped with a notice; the session goes on."""

from __future__ import annotations

from pathlib import Path

from acp_tui.config import Settings
from tests.agents.scenarios import (
    agent_text,
    end_turn,
    expect_prompt,
    initialize_ok,
    new_session_ok,
)
from tests.ui.app_harness import SID, agent_runs, fixed_cwd, run_app


async def test_oversized_message_is_dropped_with_a_notice(tmp_path: Path) -> None:
    turn = [
        initialize_ok(),
        new_session_ok(SID),
        expect_prompt(),
        {"raw": "{" + "x" * 5000 + "\n"},
        agent_text(SID, "still here"),
        end_turn(),
    ]
    settings = Settings(max_frame_bytes=1000)
    async with run_app(
        agent_runs(tmp_path, turn), fixed_cwd(tmp_path), session_kwargs={"settings": settings}
    ) as h:
        await h.prompt("go")
        await h.until(lambda: "still here" in h.screen_text(), "the text after the big frame")
        assert any("Discarded a message of 5,001 bytes" in n for n in h.notified), h.notified

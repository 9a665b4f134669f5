"""ctrl+q under an endless tool-call flood (issue 25, item 5): the quit does not wait behind
the flood's drawing. While the session closes (the agent stopped, its process ended) nothing
is laid out again: each step of the close would otherwise wait for a frame of the flood, and
under load one frame of thousands of cards took seconds (ctrl+q took ~14 s).

Counted, not timed: the layouts of the conversation's cards between the start of the close and
the end of the app."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.geometry import Size

from acp_tui.client.session.agent_session import AgentSession
from acp_tui.ui.widgets.entry_lines import EntryLines
from tests.ui.app_harness import fixed_cwd, run_app
from tests.ui.test_floods import flood, wait_gone

pytestmark = pytest.mark.timeout(120)


async def test_nothing_is_laid_out_while_ctrl_q_closes_the_session_under_a_flood(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    closing = False
    layouts_while_closing = 0
    real_height, real_close = EntryLines.get_content_height, AgentSession.close

    def get_content_height(self: EntryLines, container: Size, viewport: Size, width: int) -> int:
        nonlocal layouts_while_closing
        if closing:
            layouts_while_closing += 1
        return real_height(self, container, viewport, width)

    async def close(self: AgentSession) -> Any:
        nonlocal closing
        closing = True
        return await real_close(self)

    monkeypatch.setattr(EntryLines, "get_content_height", get_content_height)
    monkeypatch.setattr(AgentSession, "close", close)
    async with run_app(flood("tool_call", 2_000, "--forever"), fixed_cwd(tmp_path)) as h:
        process = h.session._process
        assert process is not None
        await h.type_prompt("flood me", send=False)
        h.app.post_message(events.Key("enter", None))  # (Pilot would wait for an idle screen)
        async with asyncio.timeout(90):  # (Pilot's pauses would wait for an idle screen)
            while len(h.session.thread.tool_calls) <= 3_000:  # noqa: ASYNC110
                await asyncio.sleep(0.05)
        h.app.post_message(events.Key("ctrl+q", None))  # as the driver does (no waiting)
        async with asyncio.timeout(60):  # (a deadline for a hung quit, not a measure)
            while h.app.is_running:  # noqa: ASYNC110 (the app's state has no event to await)
                await asyncio.sleep(0.05)
        assert closing
        assert layouts_while_closing == 0
        await wait_gone(process.pid)

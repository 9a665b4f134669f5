"""Test support: the real app headless with no agent, and waiting on a condition frame by frame."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from acp_tui.client.session.agent_session import AgentSession
from acp_tui.ui.app import AcpApp
from acp_tui.ui.key_guard import KeyGuard
from acp_tui.ui.widgets.prompt_input import PromptInput
from bench.headless import HeadlessUi


@asynccontextmanager
async def headless_app(
    size: tuple[int, int], *, steady_cursor: bool = False
) -> AsyncIterator[tuple[AcpApp, Pilot[Any]]]:
    """`AcpApp` at `size` with a session that never starts an agent (updates are fed to its
    thread). `steady_cursor`: no blinking prompt cursor (two captures of one screen match)."""
    app = AcpApp(
        lambda bridge: AgentSession(["true"], Path.cwd(), HeadlessUi()),
        start_agent=False,
        key_guard=KeyGuard.unguarded(),
    )
    async with app.run_test(size=size) as pilot:
        if steady_cursor:
            app.screen.query_one(PromptInput).cursor_blink = False
        yield app, pilot


async def until(pilot: Pilot[Any], condition: Callable[[], object], what: str) -> None:
    """Let the app run frames until `condition` holds (30 s deadline, then fail naming `what`:
    it returns as soon as the condition holds, so only a machine under heavy load gets near)."""
    try:
        async with asyncio.timeout(30):
            while not condition():
                await pilot.pause(0.01)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what}") from None

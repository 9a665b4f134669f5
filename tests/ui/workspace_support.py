"""Helpers for the workspace tests: an app whose ctrl+t opens real sessions (the demo agent, or a
scripted agent offered as a preset), and ways to look at its tabs."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from acp_tui.client.session.agent_session import AgentSession
from acp_tui.config import Settings
from acp_tui.host.dir_watch import DirectoryWatchers
from acp_tui.presets import Preset
from acp_tui.ui.screen_ui import ScreenUi
from acp_tui.ui.workspace.spec import SessionSpec
from acp_tui.ui.workspace.tab import SessionTab
from acp_tui.ui.workspace.tab_bar import TabBar
from tests.ui.app_harness import AppHarness, demo_argv, demo_env, fixed_cwd, run_app


def spawner(settings: Settings | None = None, watchers: DirectoryWatchers | None = None) -> Any:
    """A `SpawnSession` as the launcher's: its own agent process per tab (demo speed 0); the
    directory watchers shared, when given, as the launcher shares them."""

    def spawn(bridge: ScreenUi, spec: SessionSpec) -> AgentSession:
        kwargs: dict[str, Any] = {"settings": settings} if settings is not None else {}
        env = demo_env()
        return AgentSession(
            list(spec.argv), spec.cwd, bridge, env_extra=env, watchers=watchers, **kwargs
        )

    return spawn


@contextlib.asynccontextmanager
async def workspace_app(
    tmp_path: Path,
    *presets: Preset,
    settings: Settings | None = None,
    cwd: Path | None = None,
    watchers: DirectoryWatchers | None = None,
    **kwargs: Any,
) -> AsyncIterator[AppHarness]:
    """The demo agent in the first tab (in `cwd`, default a fresh directory); ctrl+t can open
    more (the presets offered too). `watchers`: one `DirectoryWatchers` for every session, as
    the launcher makes (default: each session its own)."""
    spawn = spawner(settings, watchers)
    app_kwargs = {"spawn": spawn, "presets": presets, **kwargs.pop("app_kwargs", {})}
    if watchers is not None:
        kwargs["session_kwargs"] = {**kwargs.get("session_kwargs", {}), "watchers": watchers}
    async with run_app(
        demo_argv(), cwd or fixed_cwd(tmp_path), env=demo_env(), app_kwargs=app_kwargs, **kwargs
    ) as h:
        try:
            yield h
        finally:
            for tab in list(h.app.tabs):
                await tab.session.close()


async def open_tab(h: AppHarness, *keys: str) -> SessionTab:
    """ctrl+t, then `keys` in the picker (none: Enter, the same agent here); the new tab, ready."""
    before = len(h.app.tabs)
    await h.pilot.press("ctrl+t")
    await h.until(lambda: type(h.app.screen).__name__ == "NewSessionScreen", "the picker")
    await h.pilot.press(*(keys or ("enter",)))
    await h.until(lambda: len(h.app.tabs) > before, "the new tab")
    tab = h.app.tabs[-1]
    await h.until(lambda: tab.session.session_id is not None, "the new tab's session")
    return tab


def bar(h: AppHarness) -> TabBar:
    """The tab bar of the screen shown."""
    return h.app.screen.query_one(TabBar)


def states(h: AppHarness) -> list[str]:
    """Each tab's state, in order."""
    return [tab.state.value for tab in h.app.tabs]

"""The inotify watch limit reached in the session directory (simulated: `inotify_add_watch`
fails with ENOSPC through the module's libc seam), through the whole app: the user is told once,
in the session, that file watching is incomplete and how the directory is watched instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.host.inotify import available
from tests.ui.app_harness import demo_argv, demo_env, fixed_cwd, run_app
from tests.unit.inotify_limit import limit_watches

pytestmark = pytest.mark.skipif(not available(), reason="inotify (Linux) only")


async def test_the_watch_limit_is_told_once_in_the_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cwd = fixed_cwd(tmp_path)
    for name in ("src", "docs", "tests"):
        (cwd / name / "more").mkdir(parents=True)
    limited = limit_watches(monkeypatch, allowed=2)
    async with run_app(demo_argv(), cwd, env=demo_env()) as h:

        def told() -> list[str]:
            return [n for n in h.notified if "file watching incomplete" in n]

        await h.until(told, "the notice")
        assert limited.refused > 0
        (notice,) = told()
        assert "fs.inotify.max_user_watches" in notice and str(cwd.resolve()) in notice
        assert "checked for changes every 2 s" in notice
        await h.prompt("/help")  # the session goes on; the notice is not repeated
        assert len(told()) == 1

"""A `ClientUi` for benchmarks and tests that run the app with nobody at the keyboard."""

from __future__ import annotations

from typing import Any

from acp_tui.host.asker import FixedAnswer


class HeadlessUi:
    """Denies every host question, never logs in, rejects every held write."""

    asker = FixedAnswer("deny")

    async def choose_auth_method(
        self, agent: Any, methods: Any, error: Any, *, by_user: bool = False
    ) -> None:
        return None

    async def run_login_terminal(
        self, argv: Any, env: Any, cwd: Any, *, by_user: bool = False
    ) -> None:
        return None

    async def review_write(self, path: Any, diff: Any) -> None:
        return None

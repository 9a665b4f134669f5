"""The sandbox a test's session plans by default, for agents the test starts itself."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from acp_tui.client.sandbox_setup import plan_session_sandbox, sandbox_request
from acp_tui.config import Settings
from acp_tui.sandbox import landlock
from acp_tui.sandbox.policy import SandboxPolicy

needs_landlock = pytest.mark.skipif(
    landlock.abi_version() < 1, reason="this kernel offers no Landlock"
)


def default_sandbox(
    argv: Sequence[str], cwd: Path, settings: Settings | None = None
) -> SandboxPolicy:
    """The policy an `AgentSession(argv, cwd, settings=settings)` plans."""
    settings = settings if settings is not None else Settings()
    request = sandbox_request(settings, None, argv)
    return plan_session_sandbox(request, cwd.resolve(), settings, argv)

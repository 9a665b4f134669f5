"""The sidebar's Sandbox section: the mode, where the agent may write, what it may not read."""

from __future__ import annotations

from pathlib import Path

from acp_tui.sandbox.modes import SandboxMode
from acp_tui.sandbox.policy import SandboxPolicy
from acp_tui.ui.widgets.sandbox_section import describe_sandbox

HOME = Path("/home/u")


def test_a_confined_agent_shows_its_mode_places_and_secrets() -> None:
    policy = SandboxPolicy(
        SandboxMode.STRICT,
        writable=(Path("/work/p\x1b[2Jx"), HOME / ".gemini"),
        unreadable=(HOME / ".ssh",),
        abi=7,
    )
    text = describe_sandbox(policy, None, HOME).plain
    assert text.splitlines() == [
        "Sandbox",
        "strict  Landlock ABI 7",
        "writes only in:",
        "  /work/p␛[2Jx",
        "  ~/.gemini",
        "unreadable:",
        "  ~/.ssh",
    ]


def test_off_and_a_failed_sandbox_say_so() -> None:
    missing = SandboxPolicy(SandboxMode.OFF, notice="Landlock is not available here: x")
    assert describe_sandbox(missing, None, HOME).plain == (
        "Sandbox\noff: Landlock is not available here: x"
    )
    assert describe_sandbox(SandboxPolicy(SandboxMode.OFF), None, HOME).plain == (
        "Sandbox\noff: the agent runs unsandboxed"
    )
    failed = describe_sandbox(None, "sandbox project needs Linux Landlock", HOME).plain
    assert failed == "Sandbox\nnot started: sandbox project needs Linux Landlock"

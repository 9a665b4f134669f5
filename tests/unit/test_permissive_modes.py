"""Which modes let the agent act without asking (issue 39, 14), by the agents' own words."""

from __future__ import annotations

import pytest

from acp_tui.thread.permissive_modes import skips_permissions


@pytest.mark.parametrize(
    ("mode_id", "name", "description"),
    [
        ("bypassPermissions", "Bypass Permissions", None),  # Claude
        ("yolo", "YOLO", "Automatically approve all tools"),  # Qwen, Gemini
        ("full-access", "Full Access", None),  # Codex
        ("turbo", "Turbo", "Skips all permission prompts"),  # an agent's own wording
        ("auto", "Auto", "Runs every tool without asking"),
    ],
)
def test_modes_that_skip_permissions(mode_id: str, name: str, description: str | None) -> None:
    assert skips_permissions(mode_id, name, description)


@pytest.mark.parametrize(
    ("mode_id", "name", "description"),
    [
        ("default", "Default", "Asks before edits"),
        ("acceptEdits", "Accept Edits", "Auto-accept file edit permissions"),
        ("dontAsk", "Don't Ask", "Don't prompt for permissions, deny if not pre-approved"),
        ("plan", "Plan Mode", "Planning mode, no actual tool execution"),
        ("auto-edit", "Auto Edit", "Automatically approve edit tools"),
        ("read-only", "Read Only", None),
    ],
)
def test_modes_that_still_ask(mode_id: str, name: str, description: str | None) -> None:
    assert not skips_permissions(mode_id, name, description)

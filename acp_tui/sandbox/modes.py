"""The sandbox modes (an enum alone: the command line and the presets read it)."""

from __future__ import annotations

from enum import StrEnum


class SandboxMode(StrEnum):
    """How the agent process and everything it starts are confined."""

    OFF = "off"
    """Not at all."""
    PROJECT = "project"
    """Writes only inside the session's roots, the temporary directory and the agent's own state
    and cache directories; reads anywhere."""
    STRICT = "strict"
    """As `project`, and the user's secrets (`~/.ssh`, `~/.gnupg`, …) cannot be read."""

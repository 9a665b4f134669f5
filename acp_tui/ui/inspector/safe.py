"""Agent text made safe to draw in the inspector: one line of a frame, tabs expanded."""

from __future__ import annotations

from acp_tui.safe_text import safe_line


def safe_text(text: str) -> str:
    """`text` with nothing a terminal would interpret (`acp_tui.safe_text.safe_line`)."""
    return safe_line(text.expandtabs(4))

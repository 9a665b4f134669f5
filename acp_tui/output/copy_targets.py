"""What `/copy` takes: the last agent message, or the last code block in it."""

from __future__ import annotations

import re

from acp_tui.thread.entries import Entry, MessageEntry

_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})[^\n]*\n(?P<body>.*?)^(?P=fence)[ \t]*$",
                    re.MULTILINE | re.DOTALL)  # fmt: skip


def last_agent_text(entries: list[Entry]) -> str | None:
    """The text of the agent's last non-empty message, or None."""
    for entry in reversed(entries):
        if isinstance(entry, MessageEntry) and entry.role == "agent" and entry.text.strip():
            return entry.text
    return None


def last_code_block(entries: list[Entry]) -> str | None:
    """The body of the last fenced code block in the agent's last message, or None."""
    text = last_agent_text(entries)
    if text is None:
        return None
    blocks = [match.group("body") for match in _FENCE.finditer(text)]
    return blocks[-1] if blocks else None

"""Which of an agent's session modes let it act without asking permission (Claude's
`bypassPermissions`, Qwen's YOLO, Codex's full access, …): switching to one is confirmed first.

Read from what the agent says of the mode (its id, name and description, as plain words), so an
agent's own wording ("Bypass permissions", "skips all permission prompts", "auto-approve every
tool") counts. No I/O, no UI.
"""

from __future__ import annotations

import re
from functools import cache


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The words that say so, and where an id breaks into words (compiled when a mode is first
    looked at, not by every launch)."""
    words = re.compile(
        r"bypass|yolo|full[\s_-]*access|dangerous|skip\w*\s+(?:all\s+)?(?:the\s+)?permission"
        r"|without\s+(?:asking|permission|approval|confirmation)|no\s+(?:permission|approval)s?\b"
        r"|auto[\s_-]*approv\w*\s+(?:all|every(?:thing)?)|approve\w*\s+(?:all|everything)"
        r"|never\s+ask"
    )
    return words, re.compile(r"(?<=[a-z])(?=[A-Z])|[_\-.]")


def _plain(text: str | None) -> str:
    """Words of an id or a text, lower case: `bypassPermissions` → "bypass permissions"."""
    return _patterns()[1].sub(" ", text or "").lower()


def skips_permissions(
    mode_id: str, name: str | None = None, description: str | None = None
) -> bool:
    """Whether the mode, by what the agent calls and says of it, runs tools without asking."""
    words = _patterns()[0]
    return any(words.search(_plain(text)) for text in (mode_id, name, description))

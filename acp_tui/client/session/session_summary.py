"""One earlier session as a list shows it: its id, title, last update and directory."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SessionSummary:
    id: str
    title: str | None = None
    updated_at: str | None = None
    cwd: str | None = None
    archived: bool = False
    """Unstable: archived (listed only when asked for)."""
    status: str | None = None
    """Unstable `session/status`: "open" (the agent has it in memory), "saved", `GONE` (the
    agent does not know it: -32002), or unknown (None: not asked, or no answer)."""


GONE = "gone"
"""A session `session/status` says the agent does not know (-32002): not opened."""


def summary_from(raw: Any) -> SessionSummary | None:
    """A summary from its JSON form (`sessionId`, `title`, `updatedAt`, `cwd`); None if it has
    no string id. Fields that are not strings are left out."""
    if not isinstance(raw, dict) or not isinstance(raw.get("sessionId"), str):
        return None

    def text(key: str) -> str | None:
        value = raw.get(key)
        return value if isinstance(value, str) else None

    return SessionSummary(raw["sessionId"], text("title"), text("updatedAt"), text("cwd"))

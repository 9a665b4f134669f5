"""Plain text where Textual would parse markup: toasts (`notify`) and `literal` titles.

Textual parses a `str` as content markup in several places (`notify`, `Static("...")`,
`Collapsible(title=...)`), so a message quoting the agent with ``[/]`` in it raised
`MarkupError` and took the app down. Widgets get `rich.text.Text`/`Content` or `markup=False`;
where only a markup string can go, `literal` escapes it. `notify` here has no markup switch:
the message is shown exactly (made safe for the terminal first). Every toast in `acp_tui.ui`
goes through it (a test checks the sources).
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.notifications import SeverityLevel
from textual.widget import Widget

from acp_tui.safe_text import safe_text


def notify(
    where: App[Any] | Widget,
    message: str,
    *,
    title: str = "",
    severity: SeverityLevel = "information",
    timeout: float | None = None,
) -> None:
    """Show `message` (and `title`) as a toast, literally: no markup, controls made visible."""
    where.notify(
        safe_text(message),
        title=safe_text(title),
        severity=severity,
        timeout=timeout,
        markup=False,
    )


def literal(text: str) -> str:
    """Markup that shows `text` exactly (for a `Collapsible` title, which is parsed as markup)."""
    return safe_text(text).replace("[", "\\[")

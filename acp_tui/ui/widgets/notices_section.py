"""The agent's notices (unstable `notice` updates), listed in the sidebar to look at again.

A notice is a toast when it arrives (`MainScreen`) and a line here: never a conversation entry,
so it is not exported or frozen. The section is hidden until the first notice; it lists the
most recent ones, newest last, after a count of the earlier ones. Texts are already safe (the
model's `DisplayStr`) and drawn as `Text`, never markup.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.notifications import SeverityLevel
from textual.widgets import Static

from acp_tui.protocol.models import Notice

SHOWN = 20
"""How many of the most recent notices the section lists."""

SEVERITY_MARK = {"info": ("●", "blue"), "warning": ("⚠", "yellow"), "error": ("✗", "red")}
TOAST_SEVERITY: dict[str, SeverityLevel] = {
    "info": "information",
    "warning": "warning",
    "error": "error",
}


def notice_toast(notice: Notice) -> tuple[str, str, SeverityLevel]:
    """(message, title, toast severity) of the toast a notice is shown as."""
    severity = TOAST_SEVERITY[notice.level]
    if notice.description:
        return notice.description, notice.title, severity
    return notice.title, "", severity


def notices_text(notices: Sequence[Notice], count: int | None = None) -> Text:
    """The most recent notices: a mark by severity, the title in bold, the description; first
    "+K earlier" when the agent sent more (`count`: how many it sent in all)."""
    text = Text()
    earlier = (len(notices) if count is None else count) - min(len(notices), SHOWN)
    if earlier > 0:
        text.append(f"+{earlier} earlier notice{'s' if earlier != 1 else ''}", style="dim")
    for notice in notices[-SHOWN:]:
        mark, colour = SEVERITY_MARK[notice.level]
        if text:
            text.append("\n")
        text.append(f"{mark} ", style=colour)
        text.append(notice.title, style="bold")
        if notice.description:
            text.append(f"\n  {notice.description}", style="dim")
    return text


class NoticesSection(Static):
    """The notices list (hidden while there is none)."""

    DEFAULT_CSS = "NoticesSection { height: auto; }"

    def show_notices(self, notices: Sequence[Notice], count: int | None = None) -> None:
        """Show the session's most recent notices (`count`: how many the agent sent)."""
        self.update(notices_text(notices, count))

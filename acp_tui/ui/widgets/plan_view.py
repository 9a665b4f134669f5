"""A plan: entries with status marks and priority, and progress like 3/7."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual.widgets import Static

from acp_tui.safe_text import safe_text

STATUS_MARKS = {
    "pending": ("☐", "dim"),
    "in_progress": ("◐", "bold yellow"),
    "completed": ("☑", "green"),
}
PRIORITY_STYLES = {"high": "bold red", "medium": "yellow", "low": "dim"}


def plan_progress(entries: Sequence[Any]) -> tuple[int, int]:
    """How many of a plan's steps are completed, and how many there are."""
    done = sum(1 for entry in entries if getattr(entry, "status", None) == "completed")
    return done, len(entries)


def render_plan_entries(entries: Sequence[Any], *, title: str = "Plan") -> RenderableType:
    """A plan's steps with a status mark each, under a "Plan done/total" title."""
    done, total = plan_progress(entries)
    header = Text(f"{title} ", style="bold")
    header.append(f"{done}/{total}", style="bold green" if total and done == total else "cyan")
    lines: list[RenderableType] = [header]
    for entry in entries:
        status = str(getattr(entry, "status", "pending"))
        mark, style = STATUS_MARKS.get(status, ("?", "magenta"))
        line = Text(f" {mark} ", style=style)
        content = str(getattr(entry, "content", ""))
        line.append(content, style="strike dim" if status == "completed" else "")
        priority = str(getattr(entry, "priority", ""))
        if priority and priority != "medium":
            line.append(f"  [{priority}]", style=PRIORITY_STYLES.get(priority, "dim"))
        lines.append(line)
    return Group(*lines)


def render_plan_state(plan: Any, title: str) -> RenderableType:
    """A plan of any kind: items (v1 `plan` and `plan_update` items), markdown, or a file."""
    kind = getattr(plan, "kind", None)
    if kind == "items":
        return render_plan_entries(list(getattr(plan, "entries", [])), title=title)
    if kind == "markdown":
        from rich.markdown import Markdown  # markdown_it: only for a markdown plan

        return Group(Text(title, style="bold"), Markdown(str(getattr(plan, "markdown", ""))))
    if kind == "file":
        return Group(Text(title, style="bold"), Text(f"📄 {getattr(plan, 'uri', '')}"))
    raw = getattr(plan, "raw", None) or plan
    return Group(Text(f"{title} ({kind})", style="bold"), Text(safe_text(str(raw)), style="dim"))


class PlanView(Static):
    """A plan in the conversation or the sidebar."""

    DEFAULT_CSS = """
    PlanView {
        height: auto;
        border-left: thick $accent 60%;
        padding: 0 1;
        margin: 0 0 1 0;
    }
    """

    def show_entries(self, entries: Sequence[Any], title: str = "Plan") -> None:
        """Show a plan given as its list of steps."""
        self.update(render_plan_entries(entries, title=title))

    def show_plan(self, plan: Any, title: str) -> None:
        """Show a plan of any kind (steps, a file, Markdown, unknown)."""
        self.update(render_plan_state(plan, title))

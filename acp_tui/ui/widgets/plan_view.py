"""A plan: entries with status marks and priority, and progress like 3/7."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.text import Text
from textual.widgets import Static

from acp_tui.protocol.models import PlanEntry
from acp_tui.safe_text import safe_text
from acp_tui.thread.entries import PlanState

STATUS_MARKS = {
    "pending": ("☐", "dim"),
    "in_progress": ("◐", "bold yellow"),
    "completed": ("☑", "green"),
}
PRIORITY_STYLES = {"high": "bold red", "medium": "yellow", "low": "dim"}


def plan_progress(entries: Sequence[PlanEntry]) -> tuple[int, int]:
    """How many of a plan's steps are completed, and how many there are."""
    done = sum(1 for entry in entries if entry.status == "completed")
    return done, len(entries)


def render_plan_entries(entries: Sequence[PlanEntry], *, title: str = "Plan") -> RenderableType:
    """A plan's steps with a status mark each, under a "Plan done/total" title."""
    done, total = plan_progress(entries)
    header = Text(f"{title} ", style="bold")
    header.append(f"{done}/{total}", style="bold green" if total and done == total else "cyan")
    lines: list[RenderableType] = [header]
    for entry in entries:
        status = entry.status
        mark, style = STATUS_MARKS.get(status, ("?", "magenta"))
        line = Text(f" {mark} ", style=style)
        line.append(entry.content, style="strike dim" if status == "completed" else "")
        priority = entry.priority
        if priority and priority != "medium":
            line.append(f"  [{priority}]", style=PRIORITY_STYLES.get(priority, "dim"))
        lines.append(line)
    return Group(*lines)


def render_plan_state(plan: PlanState, title: str) -> RenderableType:
    """A plan of any kind: items (v1 `plan` and `plan_update` items), markdown, or a file."""
    kind = plan.kind
    if kind == "items":
        return render_plan_entries(plan.entries, title=title)
    if kind == "markdown":
        from acp_tui.ui.markdown.renderable import MarkdownText  # only for a markdown plan

        return Group(Text(title, style="bold"), MarkdownText(plan.markdown or ""))
    if kind == "file":
        return Group(Text(title, style="bold"), Text(f"📄 {plan.uri or ''}"))
    raw: object = plan.raw or plan
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

    def show_entries(self, entries: Sequence[PlanEntry], title: str = "Plan") -> None:
        """Show a plan given as its list of steps."""
        self.update(render_plan_entries(entries, title=title))

    def show_plan(self, plan: PlanState, title: str) -> None:
        """Show a plan of any kind (steps, a file, Markdown, unknown)."""
        self.update(render_plan_state(plan, title))

"""A compact, static preview of a `FileDiff` for tool-call cards (a Rich renderable)."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.style import Style
from rich.text import Text

from acp_tui.safe_text import safe_line
from acp_tui.thread.diff import FileDiff, path_warning
from acp_tui.ui.widgets.diff_highlight import display_text

SIGNS = {"context": " ", "add": "+", "remove": "-"}


def stats_text(diff: FileDiff) -> Text:
    """`+N -M` (with a true minus sign) in green and red."""
    return Text.assemble((f"+{diff.added}", "green"), " ", (f"\N{MINUS SIGN}{diff.removed}", "red"))


def diff_title(
    diff: FileDiff, *, path_style: str = "", warning_style: str | Style = "yellow"
) -> Text:
    """The one line that names a diff, in the card preview and atop the diff view: its path (made
    safe), a warning for a suspicious path, "new file"/"deleted", and `+N -M`."""
    title = Text(no_wrap=True, overflow="ellipsis")
    title.append(safe_line(diff.path) or "(no path)", style=path_style)
    title.append_text(diff_flags(diff, warning_style=warning_style))
    return title


def diff_flags(diff: FileDiff, *, warning_style: str | Style = "yellow") -> Text:
    """What `diff_title` shows after the path: a warning, "new file"/"deleted", `+N -M`."""
    title = Text(no_wrap=True)
    warning = path_warning(diff.path)
    if warning:
        title.append(f"  {warning}", style=warning_style)
    if diff.is_new_file:
        title.append("  new file", style="italic")
    elif diff.is_deletion:
        title.append("  deleted", style="italic")
    title.append("  ")
    title.append_text(stats_text(diff))
    return title


class DiffPreview:
    """A compact Rich renderable for tool-call cards: `path +N -M`, the first lines of the
    first hunks, and "… N more lines"."""

    def __init__(self, diff: FileDiff, max_lines: int = 8) -> None:
        self.diff = diff
        self.max_lines = max_lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        diff = self.diff
        title = diff_title(diff, path_style="bold")
        yield title
        all_lines = [line for hunk in diff.hunks for line in hunk.lines]
        styles = {"add": "green", "remove": "red", "context": "dim"}
        for line in all_lines[: self.max_lines]:
            yield Text(
                f"{SIGNS[line.kind]} {display_text(line.text)}",
                style=styles[line.kind],
                no_wrap=True,
                overflow="ellipsis",
            )
        hidden = len(all_lines) - self.max_lines
        if hidden > 0:
            yield Text(f"… {hidden} more lines", style="dim italic")

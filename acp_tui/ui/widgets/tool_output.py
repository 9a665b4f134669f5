"""Text a tool call returned (command output, file contents, messages), as Markdown.

Agent text goes through the project's own Markdown renderer only (never Rich markup).
Text that carries Markdown structure (claude-agent-acp wraps command output in a ```console
fence) renders as Markdown; other multi-line text is program output or file contents, whose
lines must stay as they are, so it becomes a literal code block.

The output of a command is shown by its last lines (`OUTPUT_TAIL_LINES`) with a first line
saying how many are above; Enter or a click on the view shows them all. The frozen history
renders the same lines from the same functions (`tool_text_lines`).
"""

from __future__ import annotations

import re

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip

from acp_tui.ui.markdown import StreamingMarkdown
from acp_tui.ui.markdown.blocks import BlockSplitter
from acp_tui.ui.markdown.document import DocumentView
from acp_tui.ui.markdown.render import RenderContext, wrap_text

OUTPUT_TAIL_LINES = 8
_MARKDOWN_LINE = re.compile(r"^ {0,3}(```|~~~|#{1,6} |[-*+] |\d{1,9}[.)] |> |\|.*\|\s*$)")
_BACKTICKS = re.compile(r"`{3,}")


def tool_text_markdown(text: str) -> str:
    """The Markdown source that shows a tool's text as it is meant to be read."""
    if "\n" not in text.strip("\n"):
        return text  # one line: a message, inline Markdown at most
    if any(_MARKDOWN_LINE.match(line) for line in text.splitlines()):
        return text
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=2)
    fence = "`" * (longest + 1)
    return f"{fence}text\n{text.rstrip(chr(10))}\n{fence}\n"


def hint_strips(ctx: RenderContext, hidden: int, width: int) -> list[Strip]:
    """The line above a clipped output: how many lines are not shown, and how to see them."""
    noun = "line" if hidden == 1 else "lines"
    text = Text(f"⋯ {hidden} earlier {noun} (click or e shows all)", style="dim")
    return wrap_text(ctx, text, width)


def clip(lines: list[Strip], tail: int | None) -> tuple[int, list[Strip]]:
    """How many lines a tail of `tail` lines hides, and the lines it shows."""
    if tail is None or len(lines) <= tail:
        return 0, lines
    return len(lines) - tail, lines[len(lines) - tail :]


def tool_text_lines(
    ctx: RenderContext, text: str, width: int, tail: int | None = None
) -> list[Strip]:
    """The lines a `ToolTextView` of `text` shows at `width` (for the frozen history)."""
    splitter = BlockSplitter()
    source = tool_text_markdown(text)
    if source:
        splitter.feed(source)
    splitter.close()
    document = DocumentView(splitter)
    document.update(ctx, max(width, 1))
    hidden, shown = clip([*document.frozen, *document.tail], tail)
    return [*hint_strips(ctx, hidden, width), *shown] if hidden else shown


class ToolTextView(StreamingMarkdown):
    """A tool's text rendered as Markdown; with `tail`, only its last lines until expanded."""

    DEFAULT_CSS = """
    ToolTextView:focus { background: $boost; }
    """
    BINDINGS = [Binding("enter", "expand", "show all", show=False)]

    class Expanded(Message):
        """The user asked to see the whole output."""

    def __init__(self, text: str, *, tail: int | None = None) -> None:
        super().__init__(tool_text_markdown(text), classes="tool-text")
        self.finish()
        self.tail = tail
        self.tool_text = text
        self.can_focus = False  # focusable while lines are hidden (Enter shows them)

    @property
    def hidden_lines(self) -> int:
        """Lines above the visible tail (0 when everything shows)."""
        if self.tail is None:
            return 0
        return max(0, self.line_count - self.tail)

    def _hint(self) -> list[Strip]:
        hidden = self.hidden_lines
        if not hidden or self._render_ctx is None:
            return []
        return hint_strips(self._render_ctx, hidden, self._document.width)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        total = super().get_content_height(container, viewport, width)
        hidden = self.hidden_lines
        self.can_focus = bool(hidden)
        return total - hidden + len(self._hint()) if hidden else total

    def render_line(self, y: int) -> Strip:
        hint = self._hint()
        if y < len(hint):
            style = self.rich_style
            return hint[y].apply_style(style).crop_extend(0, self.size.width, style)
        return super().render_line(y - len(hint) + self.hidden_lines)

    def action_expand(self) -> None:
        if self.tail is None:
            return
        self.tail = None
        self.can_focus = False
        self.refresh(layout=True)
        self.post_message(self.Expanded())

    def on_click(self, event: events.Click) -> None:
        if self.hidden_lines:
            event.stop()
            self.action_expand()

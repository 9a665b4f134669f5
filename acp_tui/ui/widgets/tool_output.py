"""Text a tool call returned (command output, file contents, messages), as Markdown.

Agent text goes through the project's own Markdown renderer only (never Rich markup).
Text that carries Markdown structure (claude-agent-acp wraps command output in a ```console
fence) renders as Markdown; other multi-line text is program output or file contents, whose
lines must stay as they are, so it becomes a literal code block.

The output of a command is shown by its last lines (`OUTPUT_TAIL_LINES`) with a first line
saying how many are above; a click on that line or `e` on the card shows them all (see
`tool_call_card`). Cards live and frozen draw these lines with `tool_text_lines`.
"""

from __future__ import annotations

import re

from rich.text import Text
from textual.strip import Strip

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
    """The lines of a tool's `text` at `width`: with `tail`, its last lines under a note
    saying how many more there are."""
    source = tool_text_markdown(text)
    document = DocumentView(BlockSplitter(), lambda: source)
    if source:
        document.feed(source)
    document.close()
    document.update(ctx, max(width, 1))
    hidden, shown = clip([*document.frozen, *document.tail], tail)
    return [*hint_strips(ctx, hidden, width), *shown] if hidden else shown

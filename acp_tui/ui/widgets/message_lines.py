"""Messages drawn from their data: the user's, the agent's and thoughts, live or frozen.

One function per kind, used both by the live view of a finished message (`MessageLines`) and
by the frozen history. They read the entry and its `EntryViewState` (sections the user opened:
an embedded resource, a finished thought). A message still streaming is shown by the
incremental `StreamingMarkdown`, which renders with the same `DocumentView`; when it finishes,
its document is handed over (`StreamedText`) so the text is not parsed again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from rich.text import Text
from textual.content import Content
from textual.strip import Strip

from acp_tui.protocol import models as m
from acp_tui.thread.entries import MessageEntry, TextRun
from acp_tui.ui.markdown.blocks import BlockSplitter
from acp_tui.ui.markdown.document import DocumentView
from acp_tui.ui.widgets.entry_lines import Render
from acp_tui.ui.widgets.entry_renderables import (
    Look,
    block_lines,
    click_style,
    collapsible_title,
    left_bar,
    padded,
    section_action,
    with_margin,
    wrap_content,
    wrap_text,
)
from acp_tui.ui.widgets.entry_state import THOUGHT, EntryViewState

THOUGHT_INDENT = 2
TEXT_PAGE = 100_000
"""How many characters of a text block are drawn at first, and how many more each "show more"
adds: a message of megabytes (one unbroken 10 MB chunk took 490 MB and froze the app) is drawn
a page at a time. The thread keeps the whole text: the export and /copy have all of it."""

TextLines = Callable[[int, str, int], list[Strip]]
"""How a message draws its text block: (block index, text, width) -> lines."""


def block_section(index: int) -> str:
    """The view-state section name of a message's content block ``index``."""
    return f"block-{index}"


PASTE_FOLD = 24
"""A text of the user's longer than this many lines (a paste) is shown folded."""
PASTE_HEAD = 8
"""The lines a folded text shows before its "N lines" title."""


def paste_section(index: int) -> str:
    """The view-state section of the user's long text block ``index`` (open: shown whole)."""
    return f"paste-{index}"


@dataclass
class StreamedText:
    """Finished documents a streaming view already parsed: (their text, the document) by
    text block index, each used once (then the view's lines are the item's own)."""

    documents: dict[int, tuple[str, DocumentView]] = field(default_factory=dict)

    def take(self, index: int, text: str) -> DocumentView | None:
        """The document of block ``index`` if it was made from ``text`` (then forgotten)."""
        found = self.documents.pop(index, None)
        return found[1] if found is not None and found[0] == text else None


def markdown_document_lines(
    text: str, look: Look, width: int, document: DocumentView | None = None
) -> list[Strip]:
    """Markdown text as a finished `StreamingMarkdown` shows it (from ``document`` if given)."""
    if document is None:
        document = DocumentView(BlockSplitter(), lambda: text)
        if text:
            document.feed(text)
        document.close()
    document.update(look.markdown, max(width, 1))
    return [document.line(y) for y in range(document.line_count)]


def markdown_text(look: Look, streamed: StreamedText | None) -> TextLines:
    """Text blocks drawn as Markdown, from the streamed document when one was handed over."""

    def text(index: int, value: str, width: int) -> list[Strip]:
        document = streamed.take(index, value) if streamed is not None else None
        return markdown_document_lines(value, look, width, document)

    return text


def shown_chars(state: EntryViewState | None, index: int) -> int:
    """How many characters of text block ``index`` are drawn (pages the user asked for)."""
    pages = state.text_pages.get(index, 1) if state is not None else 1
    return pages * TEXT_PAGE


def show_more_action(index: int) -> str:
    """The click action that draws the next page of text block ``index``."""
    return f"show_more_text({index})"


def more_text_line(left: int, index: int, look: Look, width: int) -> list[Strip]:
    """The line under a text cut short: how much is left, a click shows the next page."""
    step = min(left, TEXT_PAGE)
    note = Content(
        f"▸ {left:,} more characters not shown: click to show {step:,} more "
        "(the export has the whole text)"
    )
    style = look.style("title") + click_style(show_more_action(index))
    return [line.apply_style(style) for line in wrap_content(note, width)]


def _block_lines(
    entry: MessageEntry,
    look: Look,
    width: int,
    state: EntryViewState | None,
    text_lines: TextLines,
) -> list[Strip]:
    lines: list[Strip] = []
    sections = state.sections if state is not None else {}
    for index, part in enumerate(list(entry.parts)):
        if isinstance(part, TextRun):
            limit = shown_chars(state, index)
            lines += text_lines(index, part.head(limit), width)
            if part.length > limit:
                lines += more_text_line(part.length - limit, index, look, width)
        elif isinstance(part, m.TextContent):  # (never: text is kept in runs)
            lines += text_lines(index, part.text, width)
        else:
            section = block_section(index)
            lines += block_lines(
                part, look, width, section=section, open_=sections.get(section, False)
            )
    return lines


def user_message_lines(
    entry: MessageEntry, look: Look, width: int, state: EntryViewState | None = None
) -> list[Strip]:
    """The user's message: a bar on the left, the text as typed (a long one, a paste, folded to
    its first lines and a title a click opens), blocks, and a refusal."""
    inner = width - 3
    sections = state.sections if state is not None else {}

    def text(index: int, value: str, width: int) -> list[Strip]:
        count = value.count("\n") + 1
        if count <= PASTE_FOLD:
            return wrap_text(Text(value), look, width)
        section = paste_section(index)
        open_ = sections.get(section, False)
        what = "click to fold them" if open_ else f"{count - PASTE_HEAD:,} more: click to show"
        title = collapsible_title(
            f"{count:,} lines ({what})",
            width,
            look.style("title"),
            expanded=open_,
            action=section_action(section),
        )
        shown = value if open_ else "\n".join(value.split("\n", PASTE_HEAD)[:PASTE_HEAD])
        return [*wrap_text(Text(shown), look, width), title]

    lines = _block_lines(entry, look, inner, state, text)
    not_kept = state.not_kept if state is not None else None
    if not_kept:
        note = Content(f"✖ {not_kept}")
        lines += [line.apply_style(look.style("not-kept")) for line in wrap_content(note, inner)]
    bar = look.style("user-bar-not-kept" if not_kept else "user-bar")
    return with_margin(left_bar(lines, width, "▌", bar, look.style("user")), width, look)


def agent_message_lines(
    entry: MessageEntry,
    look: Look,
    width: int,
    state: EntryViewState | None = None,
    streamed: StreamedText | None = None,
) -> list[Strip]:
    """The agent's message: Markdown text and blocks, inset by one column each side."""
    lines = _block_lines(entry, look, width - 2, state, markdown_text(look, streamed))
    return with_margin(padded(lines, width, look.style("base")), width, look)


def thought_lines(
    entry: MessageEntry,
    look: Look,
    width: int,
    state: EntryViewState | None = None,
) -> list[Strip]:
    """A finished thought: folded to its title; opened by the user, its text dimmed below."""
    open_ = state.sections.get(THOUGHT, False) if state is not None else False
    title = collapsible_title(
        "💭 thought", width, look.style("title"), expanded=open_, action=section_action(THOUGHT)
    )
    if not open_:
        return with_margin([title], width, look)
    inner = width - THOUGHT_INDENT
    body = _block_lines(entry, look, inner, state, markdown_text(look, None))
    dim = look.style("thought")
    shown = padded([line.apply_style(dim) for line in body], width, dim, THOUGHT_INDENT, 0)
    return with_margin([title, *shown], width, look)


def message_render(
    entry: MessageEntry, state: EntryViewState, streamed: StreamedText | None = None
) -> Render:
    """How a message is drawn, live or frozen: by its role, with its view state."""
    if entry.role == "user":
        return lambda look, width: user_message_lines(entry, look, width, state)
    if entry.role == "thought":
        # no hand-over: a thought is drawn folded, so its document would be kept unused
        return lambda look, width: thought_lines(entry, look, width, state)
    return lambda look, width: agent_message_lines(entry, look, width, state, streamed)

"""Messages in the conversation: the user's, the agent's (streamed Markdown), thoughts.

A message is drawn from its data (`MessageLines`, by the functions in `message_lines`, the
same ones the frozen history uses) except while the agent streams it: then
`StreamingMessage` (an agent message) or `ThoughtView` (a thought) show it incrementally, and
the conversation swaps in a `MessageLines` when it finishes, handing over the parsed documents.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from acp_tui.protocol.models import AudioContent, ContentBlock, ImageContent, TextContent
from acp_tui.thread.entries import MessageEntry
from acp_tui.ui.markdown import StreamingMarkdown
from acp_tui.ui.widgets.content_block_view import block_widget
from acp_tui.ui.widgets.entry_lines import EntryItem
from acp_tui.ui.widgets.entry_state import EntryViewState
from acp_tui.ui.widgets.live_entry import LiveEntry
from acp_tui.ui.widgets.message_lines import TEXT_PAGE, StreamedText


class MessageLines(LiveEntry):
    """A message drawn from its data (a user's; an agent's or a thought once finished).
    ``o`` opens its image or audio with the system viewer."""

    BINDINGS: ClassVar[list[Binding]] = [  # type: ignore[assignment]
        Binding("o", "open_media", "open media", show=False, id="message.open-media"),
    ]

    def __init__(self, item: EntryItem, message: MessageEntry, state: EntryViewState) -> None:
        super().__init__(item, state)
        self.message = message
        """The message entry (``item`` draws it, see `message_lines.message_render`)."""
        self.opened: list[str] = []
        """Files opened with the system viewer (for tests)."""

    def mark_not_kept(self, reason: str) -> None:
        """Mark the prompt as not delivered to the agent, with why."""
        self.state.not_kept = reason
        self.redraw()

    def action_open_media(self) -> None:
        """Open the message's (first) image or audio block with the system viewer."""
        media = [b for b in self.message.blocks if isinstance(b, ImageContent | AudioContent)]
        if not media:
            return
        from acp_tui.ui.widgets.media_block_view import open_media

        opened = open_media(self, media[0])
        if opened is not None:
            self.opened.append(opened)

    def action_show_more_text(self, index: int) -> None:
        """Draw the next page of a long text block (a click on the line under it)."""
        pages = self.state.text_pages
        pages[index] = pages.get(index, 1) + 1
        self.redraw()


class StreamingMessage(Vertical):
    """A message the agent is streaming: text blocks grow in `StreamingMarkdown` views."""

    DEFAULT_CSS = """
    StreamingMessage { height: auto; margin: 0 0 1 0; }
    """

    @property
    def BLANK(self) -> bool:  # type: ignore[override]
        """Without a border a message's own lines are blank (its blocks cover them): Textual
        then paints them as one shared blank strip instead of line by line."""
        styles = self.styles
        return styles.gutter == styles.padding

    def __init__(self, entry: MessageEntry) -> None:
        super().__init__()
        self.entry = entry
        # Views exist from the start, so chunks that arrive before this widget is mounted go
        # straight into them; compose() mounts whatever exists by then.
        self._cut_notes: dict[int, Widget] = {}
        """The note under each text block cut at `TEXT_PAGE` while it streams."""
        self._block_views: list[Widget] = []
        self._composed = False
        self.finished = False
        for block in entry.blocks:
            self._block_views.append(self._view_for(block))

    def compose(self) -> ComposeResult:
        self._composed = True
        for index, view in enumerate(self._block_views):
            yield view
            if index in self._cut_notes:
                yield self._cut_notes[index]

    def _view_for(self, block: ContentBlock) -> Widget:
        if isinstance(block, TextContent):
            view = StreamingMarkdown()
            self._feed(len(self._block_views), view, block.text)
            return view
        return block_widget(block)

    def _feed(self, index: int, view: StreamingMarkdown, text: str) -> None:
        """Append streamed text to a view, up to `TEXT_PAGE` characters (drawn while it
        streams); what is past it is shown once the message is complete, a page at a time."""
        room = TEXT_PAGE - view.length
        if room <= 0:
            return
        if len(text) <= room:
            view.append(text)
            return
        view.append(text[:room])
        note = Static(
            Text(
                f"▸ longer than {TEXT_PAGE:,} characters: the rest is shown a page at a time "
                "once the message is complete",
                style="dim",
            ),
            classes="-inset",
        )
        self._cut_notes[index] = note
        if self._composed and view.parent is self:  # (a new view's note is mounted with it)
            self.mount(note, after=view)

    def append_chunk(self, block_index: int, text: str) -> None:
        """Add streamed `text` to content block `block_index` (a new or non-text block re-syncs the
        blocks)."""
        if block_index < len(self._block_views):
            view = self._block_views[block_index]
            if isinstance(view, StreamingMarkdown):
                self._feed(block_index, view, text)
                return
        self.sync_blocks()

    def sync_blocks(self) -> None:
        """Mount views for blocks the entry gained (non-text blocks, new text blocks)."""
        blocks = list(self.entry.blocks)
        if len(blocks) > len(self._block_views):
            for view in self._block_views:
                if isinstance(view, StreamingMarkdown):
                    view.finish()
            new: list[Widget] = []
            for block in blocks[len(self._block_views) :]:
                index = len(self._block_views)
                self._block_views.append(self._view_for(block))
                new.append(self._block_views[-1])
                if index in self._cut_notes:
                    new.append(self._cut_notes[index])
            if self._composed:
                self.mount_all(new)

    def catch_up(self) -> None:
        """Take the text the entry gained while nothing was appended (its tab was hidden): each
        text block's missing end, then the blocks it gained."""
        for index, (view, block) in enumerate(
            zip(self._block_views, self.entry.blocks, strict=False)
        ):
            if isinstance(view, StreamingMarkdown) and isinstance(block, TextContent):
                shown = view.source
                if not view.finished and block.text.startswith(shown):
                    self._feed(index, view, block.text[len(shown) :])
        self.sync_blocks()

    def finish(self, *, replaced: bool = False) -> None:
        """The message is complete: streaming views close their documents (``replaced``: see
        `StreamingMarkdown.finish`)."""
        if self.finished:
            return
        self.finished = True
        for view in self._block_views:
            if isinstance(view, StreamingMarkdown):
                view.finish(replaced=replaced)

    def when_drawn(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` once every text block's appended text is on the screen (see
        `StreamingMarkdown.when_drawn`)."""
        views = [view for view in self._block_views if isinstance(view, StreamingMarkdown)]
        waiting = len(views)

        def drawn() -> None:
            nonlocal waiting
            waiting -= 1
            if waiting == 0:
                callback()

        if not views:
            callback()
        for view in views:
            view.when_drawn(drawn)

    def streamed(self) -> StreamedText:
        """The documents the finished views parsed, for the `MessageLines` that replaces this."""
        documents = {
            index: (view.source, view.document)
            for index, view in enumerate(self._block_views)
            if isinstance(view, StreamingMarkdown) and view.finished and not view.plain_code
        }  # (a fence drawn plain after a burst: the message drawn from data colours it)
        return StreamedText(documents)


class AgentMessageView(StreamingMessage):
    """The agent's reply while it streams, as Markdown.

    Its one-column inset is each block's: the streaming text draws it inside its own lines
    (so a line is painted once, see `screen_lines`), other blocks take it as margin."""

    DEFAULT_CSS = """
    AgentMessageView > StreamingMarkdown { padding: 0 1; }
    AgentMessageView > .-inset { margin-left: 1; margin-right: 1; }
    """

    def _view_for(self, block: ContentBlock) -> Widget:
        view = super()._view_for(block)
        if not isinstance(view, StreamingMarkdown):
            view.add_class("-inset")
        return view


class ThoughtView(Vertical):
    """A thought while it streams: dimmed, under an open "thinking" title."""

    DEFAULT_CSS = """
    ThoughtView { height: auto; margin: 0 0 1 0; }
    ThoughtView Collapsible { border: none; padding: 0; background: transparent; }
    ThoughtView Collapsible > Contents { padding: 0 0 0 2; }
    ThoughtView StreamingMessage { color: $text-muted; text-style: italic; margin: 0; }
    """

    def __init__(self, entry: MessageEntry) -> None:
        super().__init__()
        self.entry = entry
        self.message = StreamingMessage(entry)

    @property
    def finished(self) -> bool:
        """Whether the thought's stream has ended."""
        return self.message.finished

    def compose(self) -> ComposeResult:
        with Collapsible(title="💭 thinking", collapsed=False):
            yield self.message

    def append_chunk(self, block_index: int, text: str) -> None:
        """Add streamed reasoning text."""
        self.message.append_chunk(block_index, text)

    def sync_blocks(self) -> None:
        """Bring the inner message's block views up to date with the entry."""
        self.message.sync_blocks()

    def catch_up(self) -> None:
        """Take the text the thought gained while its tab was hidden."""
        self.message.catch_up()

    def finish(self, *, replaced: bool = False) -> None:
        """The thought is complete (the conversation then shows it folded, drawn from data)."""
        self.message.finish(replaced=replaced)

    def when_drawn(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` once the thought's appended text is on the screen."""
        self.message.when_drawn(callback)

    def streamed(self) -> StreamedText:
        """The thought's text so far."""
        return self.message.streamed()

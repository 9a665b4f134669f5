"""Messages in the conversation: the user's, the agent's (streamed Markdown), thoughts."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from acp_tui.protocol.models import ContentBlock, TextContent
from acp_tui.session.entries import MessageEntry
from acp_tui.ui.markdown import StreamingMarkdown
from acp_tui.ui.widgets.content_block_view import block_widget
from acp_tui.ui.widgets.entry_state import THOUGHT, EntryViewState


class MessageView(Vertical):
    """A message made of content blocks; text blocks stream into `StreamingMarkdown`."""

    DEFAULT_CSS = """
    MessageView { height: auto; margin: 0 0 1 0; }
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
        self._block_views: list[Widget] = [self._view_for(block) for block in entry.blocks]
        self._composed = False
        self._finished = False

    def compose(self) -> ComposeResult:
        self._composed = True
        yield from self._block_views

    def _view_for(self, block: ContentBlock) -> Widget:
        if isinstance(block, TextContent):
            return StreamingMarkdown(block.text)
        return block_widget(block)

    def append_chunk(self, block_index: int, text: str) -> None:
        """Add streamed `text` to content block `block_index` (a new or non-text block re-syncs the
        blocks)."""
        if block_index < len(self._block_views):
            view = self._block_views[block_index]
            if isinstance(view, StreamingMarkdown):
                view.append(text)
                return
        self.sync_blocks()

    def sync_blocks(self) -> None:
        """Mount views for blocks the entry gained (non-text blocks, new text blocks)."""
        blocks = list(self.entry.blocks)
        new_views = [self._view_for(block) for block in blocks[len(self._block_views) :]]
        if new_views:
            for view in self._block_views:
                if isinstance(view, StreamingMarkdown):
                    view.finish()
            self._block_views.extend(new_views)
            if self._composed:
                self.mount_all(new_views)

    def finish(self) -> None:
        """The message is complete: streaming views lay out at their final height."""
        if self._finished:
            return
        self._finished = True
        for view in self._block_views:
            if isinstance(view, StreamingMarkdown):
                view.finish()


class UserMessageView(MessageView):
    """A user's message: the prompt as sent, or replayed from a loaded session."""

    DEFAULT_CSS = """
    UserMessageView {
        border-left: outer $secondary;
        background: $secondary 10%;
        padding: 0 1;
    }
    UserMessageView.-replayed { border-left: outer $secondary 50%; }
    UserMessageView.-not-kept { border-left: outer $error; }
    UserMessageView #not-kept { color: $error; }
    """

    def _view_for(self, block: ContentBlock) -> Widget:
        if isinstance(block, TextContent):
            return Static(Text(block.text), classes="user-text")
        return block_widget(block)

    def append_chunk(self, block_index: int, text: str) -> None:
        # replayed user messages (session/load) can stream too
        """Show the grown message (a replayed user message can stream)."""
        self._block_views_refresh()

    def _block_views_refresh(self) -> None:
        blocks = list(self.entry.blocks)
        for index, block in enumerate(blocks):
            if index < len(self._block_views):
                view = self._block_views[index]
                if isinstance(view, Static) and isinstance(block, TextContent):
                    view.update(Text(block.text))
        self.sync_blocks()

    def mark_not_kept(self, reason: str) -> None:
        """Mark the prompt as not delivered to the agent, with why."""
        self.add_class("-not-kept")
        self.mount(Static(Text(f"✖ {reason}"), id="not-kept"))


class AgentMessageView(MessageView):
    """The agent's reply, streamed as Markdown.

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
    """A thought: dimmed, collapsible; open while it streams, folded when the turn moves on."""

    DEFAULT_CSS = """
    ThoughtView { height: auto; margin: 0 0 1 0; }
    ThoughtView Collapsible { border: none; padding: 0; background: transparent; }
    ThoughtView Collapsible > Contents { padding: 0 0 0 2; }
    ThoughtView MessageView { color: $text-muted; text-style: italic; margin: 0; }
    """

    def __init__(self, entry: MessageEntry, state: EntryViewState | None = None) -> None:
        super().__init__()
        self.entry = entry
        self.message = MessageView(entry)
        self.state = state if state is not None else EntryViewState()
        """What the user did to this thought (kept by the conversation across freezing)."""

    def compose(self) -> ComposeResult:
        with Collapsible(title="💭 thinking", collapsed=False):
            yield self.message

    def append_chunk(self, block_index: int, text: str) -> None:
        """Add streamed reasoning text to the folded message."""
        self.message.append_chunk(block_index, text)

    def sync_blocks(self) -> None:
        """Bring the inner message's block views up to date with the entry."""
        self.message.sync_blocks()

    def finish(self) -> None:
        """The thought is complete: finish the inner message and fold it to its title."""
        self.message.finish()
        self._fold()

    def on_collapsible_toggled(self, event: Collapsible.Toggled) -> None:
        """Remember the thought opened or closed against its default (open while it streams,
        folded once finished)."""
        event.stop()
        shown = not event.collapsible.collapsed
        if shown == (not self.message._finished):
            self.state.sections.pop(THOUGHT, None)
        else:
            self.state.sections[THOUGHT] = shown

    def on_mount(self) -> None:
        if self.message._finished:  # finished before it was mounted
            self._fold()

    def _fold(self) -> None:
        collapsibles = self.query(Collapsible)
        if collapsibles:
            collapsible = collapsibles.first()
            collapsible.title = "💭 thought"
            collapsible.collapsed = True

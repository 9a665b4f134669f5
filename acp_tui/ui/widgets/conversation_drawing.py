"""How the conversation draws an entry: its live widget (a streaming view while the agent
streams a message, a card for a tool call, else the entry drawn from its data), and the function
that draws it from its data, live and frozen alike, with the background-activity bar once the
entry is marked (v2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.strip import Strip
from textual.widget import Widget

from acp_tui.thread import entries as thread_entries
from acp_tui.thread.entries import Entry, PlanSnapshotEntry, ToolCallEntry
from acp_tui.thread.subagent_sessions import SessionMessageEntry, SubagentLaneEntry
from acp_tui.thread.thread import Thread
from acp_tui.ui.widgets import card_lines
from acp_tui.ui.widgets import entry_renderables as er
from acp_tui.ui.widgets.compaction_lines import compaction_render
from acp_tui.ui.widgets.conversation_shown import ShownEntries
from acp_tui.ui.widgets.entry_lines import EntryItem, Render
from acp_tui.ui.widgets.live_entry import LiveEntry
from acp_tui.ui.widgets.message_lines import StreamedText, message_render
from acp_tui.ui.widgets.message_view import AgentMessageView, MessageLines, ThoughtView
from acp_tui.ui.widgets.subagent_lane import SubagentLaneView, lane_render
from acp_tui.ui.widgets.subagent_lane_cards import session_message_render
from acp_tui.ui.widgets.tool_call_card import ToolCallCard

if TYPE_CHECKING:
    from acp_tui.client.session.facade import SessionFacade


class EntryDrawing:
    """The widgets and drawing functions of a conversation's entries."""

    def __init__(
        self,
        thread: Thread,
        session: SessionFacade | None,
        shown: ShownEntries,
        card_changed: Callable[[Entry], None],
    ) -> None:
        self._thread = thread
        self._session = session
        self._shown = shown
        self._card_changed = card_changed
        """Told of every card made (the running cards' clock)."""

    def view_for(
        self,
        entry: Entry,
        *,
        streaming: bool = False,
        item: EntryItem | None = None,
        streamed: StreamedText | None = None,
    ) -> Widget | None:
        """The live view of ``entry``: while the agent streams a message, its streaming view;
        else the entry drawn from its data (by ``item`` if given: a thawed one's lines)."""
        state = self._shown.state(entry.id)
        if isinstance(entry, thread_entries.MessageEntry):
            if streaming and entry.role == "thought":
                return ThoughtView(entry)
            if streaming and entry.role != "user":
                return AgentMessageView(entry)
            item = item or EntryItem(self.renderer(entry, streamed), entry)
            return MessageLines(item, entry, state)
        if isinstance(entry, thread_entries.ToolCallEntry):
            session = self._session
            lookup = session.terminal_lookup if session is not None else None
            self._card_changed(entry)  # (its clock)
            return ToolCallCard(entry, lookup, state, session.cwd if session is not None else None)
        if isinstance(entry, SubagentLaneEntry):
            return SubagentLaneView(item or EntryItem(self.renderer(entry), entry), state)
        return LiveEntry(item or EntryItem(self.renderer(entry), entry), state)

    def card_item(self, entry: ToolCallEntry, *, lazy: bool = False) -> EntryItem:
        """A card drawn from its data (frozen)."""
        state = self._shown.state(entry.id)  # the card draws its view state, live and frozen
        render: Render = lambda look, width: card_lines.tool_call_lines(  # noqa: E731
            entry, look, width, state
        )
        return EntryItem(self._marked(entry, render), entry, lazy=lazy)

    def renderer(self, entry: Entry, streamed: StreamedText | None = None) -> Render:
        """How ``entry`` is drawn from its data, live and frozen alike (not a card: a card
        draws itself while live, see `ToolCallCard`)."""
        render: Render
        if isinstance(entry, thread_entries.MessageEntry):
            render = message_render(entry, self._shown.state(entry.id), streamed)
        elif isinstance(entry, PlanSnapshotEntry):
            render = er.plan_render(entry)
        elif isinstance(entry, thread_entries.UnknownEntry):
            render = er.unknown_render(entry)
        elif isinstance(entry, thread_entries.CompactionEntry):
            render = compaction_render(entry, self._shown.state(entry.id))
        elif isinstance(entry, SubagentLaneEntry):
            terminals = self._session.terminal_lookup if self._session is not None else None
            render = lane_render(entry, self._shown.state(entry.id), terminals)
        elif isinstance(entry, SessionMessageEntry):
            render = session_message_render(entry, self._thread.sessions)
        else:
            raise TypeError(f"no renderer for {type(entry).__name__}")
        return self._marked(entry, render)

    def _marked(self, entry: Entry, render: Render) -> Render:
        """``render``, with the background-activity bar once the entry is marked (v2)."""
        background = self._thread.background

        def draw(look: er.Look, width: int) -> list[Strip]:
            if entry.id in background:
                return er.background_marked(render, look, width)
            return render(look, width)

        return draw

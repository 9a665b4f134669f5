"""The conversation: observes the session `Thread` and mounts/updates one widget per entry.

Only what changed is touched: a text chunk is appended to its message's streaming view, a tool
call update refreshes its card. The view follows the bottom while streaming and stops following
when the user scrolls up (Textual's scroll anchor), resuming when they scroll back down.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from acp_tui.session import changes as thread_changes
from acp_tui.session import entries as thread_entries
from acp_tui.ui.widgets.message_view import (
    AgentMessageView,
    MessageView,
    ThoughtView,
    UserMessageView,
)
from acp_tui.ui.widgets.plan_view import PlanView
from acp_tui.ui.widgets.tool_call_card import ToolCallCard, format_raw

STOP_REASON_TEXT = {
    "max_tokens": "the agent stopped: it reached its token limit",
    "max_turn_requests": "the agent stopped: it reached its limit of requests in one turn",
    "refusal": "the agent refused to continue",
    "cancelled": "cancelled",
    "error": "the turn ended with an error",
}


class ConversationView(VerticalScroll):
    DEFAULT_CSS = """
    ConversationView { height: 1fr; padding: 0 1; scrollbar-gutter: stable; }
    ConversationView .stop-reason { color: $warning; margin: 0 0 1 0; }
    ConversationView .unknown-entry {
        border: round $secondary 40%; color: $text-muted; padding: 0 1; margin: 0 0 1 0;
    }
    ConversationView .notice { color: $text-muted; text-style: italic; margin: 0 0 1 0; }
    """

    def __init__(self, thread: Any, session: Any = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.thread = thread
        self.session = session
        self.views: dict[int, Widget] = {}
        self._streaming: set[int] = set()
        self._unsubscribe: Any = None

    def on_mount(self) -> None:
        self.anchor()
        for entry in list(self.thread.entries):
            self._add_entry(entry)
        self._unsubscribe = self.thread.subscribe(self._on_change)
        if self.session is not None:
            self.session.notices.subscribe(self._on_notice)

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()

    def follow(self) -> None:
        """Jump to the bottom and follow again (after the user sends a prompt)."""
        self.anchor()

    # ------------------------------------------------------------ thread changes

    def _on_change(self, change: object) -> None:
        if isinstance(change, thread_changes.MessageChunkAppended):
            view = self.views.get(change.entry.id)
            if isinstance(view, MessageView | ThoughtView):
                view.append_chunk(change.block_index, change.text)
            elif view is None:
                self._add_entry(change.entry)
        elif isinstance(change, thread_changes.EntryAdded):
            self._finish_streaming(except_id=change.entry.id)
            self._add_entry(change.entry)
        elif isinstance(change, thread_changes.EntryChanged):
            self._update_entry(change.entry)
        elif isinstance(change, thread_changes.TurnStateChanged) and not change.running:
            self._finish_streaming()
            self._show_stop_reason(change.stop_reason)

    def _add_entry(self, entry: Any) -> None:
        view = self._view_for(entry)
        if view is None:
            return
        self.views[entry.id] = view
        if isinstance(view, MessageView | ThoughtView):
            self._streaming.add(entry.id)
        self.mount(view)

    def _view_for(self, entry: Any) -> Widget | None:
        if isinstance(entry, thread_entries.MessageEntry):
            if entry.role == "user":
                return UserMessageView(entry)
            if entry.role == "thought":
                return ThoughtView(entry)
            return AgentMessageView(entry)
        if isinstance(entry, thread_entries.ToolCallEntry):
            lookup = self.session.terminals.get if self.session is not None else None
            return ToolCallCard(entry, lookup)
        if isinstance(entry, thread_entries.PlanSnapshotEntry):
            view = PlanView()
            _show_plan_snapshot(view, entry)
            return view
        raw = getattr(entry, "raw", entry)
        kind = raw.get("sessionUpdate") if isinstance(raw, dict) else None
        return Static(
            Text(f"{kind or 'unknown update'}\n{format_raw(raw)[:4000]}"),
            classes="unknown-entry",
            markup=False,
        )

    def _update_entry(self, entry: Any) -> None:
        view = self.views.get(entry.id)
        if view is None:
            self._add_entry(entry)
        elif isinstance(view, ToolCallCard):
            view.update_from_entry()
        elif isinstance(view, MessageView | ThoughtView):
            view.sync_blocks()
        elif isinstance(view, PlanView):
            _show_plan_snapshot(view, entry)

    def _finish_streaming(self, except_id: int | None = None) -> None:
        for entry_id in list(self._streaming):
            if entry_id == except_id:
                continue
            view = self.views.get(entry_id)
            if isinstance(view, MessageView | ThoughtView):
                view.finish()
            self._streaming.discard(entry_id)

    def _show_stop_reason(self, stop_reason: str | None) -> None:
        if stop_reason in (None, "end_turn"):
            return
        text = STOP_REASON_TEXT.get(str(stop_reason), f"the turn stopped: {stop_reason}")
        self.mount(Static(Text(f"■ {text}"), classes="stop-reason"))
        if stop_reason == "refusal":
            user_views = [v for v in self.views.values() if isinstance(v, UserMessageView)]
            if user_views:
                user_views[-1].mark_not_kept("the agent refused this prompt; it was not kept")

    def show_permission(self, prompt: Widget, tool_call_id: str | None) -> None:
        """Mount a permission prompt at the tool call it concerns (or at the end)."""
        entry = self.thread.tool_calls.get(tool_call_id) if tool_call_id else None
        card = self.views.get(entry.id) if entry is not None else None
        if isinstance(card, ToolCallCard):
            card.attach_permission(prompt)
        else:
            self.mount(prompt)

    def _on_notice(self, notice: Any) -> None:
        self.mount(Static(Text(f"— {notice.text} —"), classes="notice"))


def _show_plan_snapshot(view: PlanView, entry: Any) -> None:
    plan_id = getattr(entry, "plan_id", None)
    title = f"Plan {plan_id}" if plan_id else "Plan"
    if getattr(entry, "removed", False):
        title += " (removed)"
    view.show_plan(entry.plan, title)

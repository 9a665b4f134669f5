"""The tool calls of a thread: created and merged from `tool_call`/`tool_call_update` (v1) and
patched by id (v2), nested under their parent call (a subagent's), stamped with the thread's
clock, and the permission questions asked about them, queued oldest first.

A part `Thread` owns (`Thread.tool_call_part`): it sees the thread through `ToolCallHost`, adds
its entries and emits on the thread's signal through it; the thread reads its state and keeps
the public methods.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from acp_tui.protocol.models import FINISHED_STATUSES, ToolCall, ToolCallUpdate
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.entries import ToolCallEntry
from acp_tui.thread.part_host import EntryPlacing
from acp_tui.thread.permission import PermissionAsk, PermissionQueue
from acp_tui.thread.subagent_sessions import SubagentSessions
from acp_tui.thread.subagents import SubagentNesting, parent_tool_call_id
from acp_tui.thread.tool_calls import copy_tool_fields, fallback_title, stamp_times


class ToolCallHost(EntryPlacing, Protocol):
    """What the tool calls need of their `Thread`: entries placed, and its subagent sessions."""

    @property
    def sessions(self) -> SubagentSessions:
        """The subagent sessions of the root session."""


class ThreadToolCalls:
    """The tool calls of one thread and their permission questions (see the module docstring)."""

    def __init__(self, thread: ToolCallHost, clock: Callable[[], float]) -> None:
        self._thread = thread
        self._clock = clock
        self.by_id: dict[str, ToolCallEntry] = {}
        self._nesting = SubagentNesting()
        self.permission_queue = PermissionQueue[ToolCallEntry]()
        """The permission questions waiting for the user, oldest (the one asked) first."""

    def reset(self) -> None:
        """Forget every call and question (another session opens in the thread)."""
        self.by_id = {}
        self._nesting = SubagentNesting()
        self.permission_queue = PermissionQueue[ToolCallEntry]()

    # ---- v1 updates -----------------------------------------------------------------------------

    def on_tool_call(self, update: ToolCall) -> None:
        entry = self.by_id.get(update.tool_call_id)
        if entry is None:
            self.create(update, update.model_fields_set)
        else:
            self._merge(entry, update, update.model_fields_set)

    def upsert(self, tool_call: ToolCallUpdate) -> ToolCallEntry:
        """Merge `tool_call` into the entry with its id, or add it as a new entry."""
        fields = tool_call.model_fields_set
        entry = self.by_id.get(tool_call.tool_call_id)
        if entry is None:
            return self.create(tool_call, fields)
        self._merge(entry, tool_call, fields)
        return entry

    def create(self, update: ToolCall | ToolCallUpdate, fields: set[str]) -> ToolCallEntry:
        """A call first seen in `update` (its `fields` sent): an entry, or nested in its parent."""
        now = self._clock()
        entry = ToolCallEntry(
            tool_call_id=update.tool_call_id,
            title=update.title or "",
            id=self._thread.next_entry_id(),
            created_at=now,
        )
        copy_tool_fields(entry, update, fields - {"title"})
        if not entry.title:
            entry.title, entry.title_derived = fallback_title(entry), True
        stamp_times(entry, now)
        self.by_id[entry.tool_call_id] = entry
        if self._thread.sessions.root is self._thread:  # a subagent session's own: its lane's
            entry.parent_tool_call_id = parent_tool_call_id(entry.meta)
        if self._nesting.place(entry, self.by_id):
            self.emit_changed(entry)  # (its parent's card counts it)
        else:
            self._thread.place_entry(entry)
        if self._nesting.adopt(entry):
            self.emit_changed(entry)
        return entry

    def get_or_create(self, tool_call_id: str) -> ToolCallEntry:
        """The call with this id; one never announced becomes a new entry."""
        entry = self.by_id.get(tool_call_id)
        if entry is None:
            entry = self.create(ToolCallUpdate(tool_call_id=tool_call_id), {"tool_call_id"})
        return entry

    def emit_changed(self, entry: ToolCallEntry) -> None:
        """A tool call changed: redraw its card, or the card it is nested in (none while it,
        or the call it is nested in, waits for its parent)."""
        root = self._nesting.root(entry)
        if not self._nesting.is_waiting(root):  # (a call under one still waiting: not shown yet)
            self._thread.changed.emit(ch.EntryChanged(root))

    def _merge(
        self, entry: ToolCallEntry, update: ToolCall | ToolCallUpdate, fields: set[str]
    ) -> None:
        old_status = entry.status
        if copy_tool_fields(entry, update, fields):
            if "title" in fields and entry.title:
                entry.title_derived = False  # the agent's own title from now on
            elif entry.title_derived or not entry.title:
                entry.title = fallback_title(entry)  # (more may be known of it now)
                entry.title_derived = True
            if entry.status != old_status:
                stamp_times(entry, self._clock())
            self.emit_changed(entry)

    # ---- v2 patches -----------------------------------------------------------------------------

    def patch(self, entry: ToolCallEntry, values: dict[str, Any], can_cancel: bool | None) -> None:
        """`values` set as they are, `can_cancel` unless None; a status change stamps times."""
        if can_cancel is not None:
            entry.can_cancel = can_cancel
        old_status = entry.status
        for name, value in values.items():
            setattr(entry, name, value)
        if entry.status != old_status:
            stamp_times(entry, self._clock())
        self._thread.changed.emit(ch.EntryChanged(entry))

    def append_content(self, entry: ToolCallEntry, item: Any) -> None:
        entry.content = [*entry.content, item]
        self._thread.changed.emit(ch.EntryChanged(entry))

    # ---- the client's side ----------------------------------------------------------------------

    def set_disk_notes(self, tool_call_id: str, notes: list[str]) -> None:
        entry = self.by_id.get(tool_call_id)
        if entry is not None and entry.disk_notes != notes:
            entry.disk_notes = list(notes)
            self.emit_changed(entry)

    def cancel_unfinished(self) -> list[ToolCallEntry]:
        now = self._clock()
        cancelled = [e for e in self.by_id.values() if e.status not in FINISHED_STATUSES]
        for entry in cancelled:
            entry.status = "cancelled"
            stamp_times(entry, now)
            self.emit_changed(entry)
        return cancelled

    def place_orphans(self) -> None:
        """The turn ended: calls still waiting for a parent that never came go to the top."""
        for orphan in self._nesting.orphans():
            self._thread.place_entry(orphan)

    # ---- permission questions -------------------------------------------------------------------

    def ask_permission(self, tool_call_id: str, ask: PermissionAsk) -> ToolCallEntry:
        entry = self.get_or_create(tool_call_id)
        if ask.asked_at is None:
            ask.asked_at = self._clock()
        self._unnest(entry)
        entry.permissions.append(ask)
        if ask.asked and ask.open:
            self.permission_queue.add(ask, entry)
        self._thread.changed.emit(ch.PermissionChanged(entry, ask))
        return entry

    def _unnest(self, entry: ToolCallEntry) -> None:
        """A nested call the user must see on its own (a permission request): top level."""
        if entry.nested_in is None and not self._nesting.is_waiting(entry):
            return
        parent = self._nesting.detach(entry)
        if parent is not None:
            self.emit_changed(parent)
        self._thread.place_entry(entry)

    def settle_permission(self, tool_call_id: str, request_id: int, answer: str) -> None:
        entry = self.by_id.get(tool_call_id)
        asks = entry.permissions if entry is not None else []
        ask = next((a for a in asks if a.request_id == request_id), None)
        if entry is None or ask is None or not ask.open:
            return
        ask.answer = answer
        ask.answered_at = self._clock()
        ask.respond = None
        promoted = self.permission_queue.remove(request_id)
        emit = self._thread.changed.emit
        emit(ch.PermissionChanged(entry, ask))
        if promoted is not None:  # the next question in line is asked now
            head = next(a for a in promoted.permissions if a.current)
            emit(ch.PermissionChanged(promoted, head, moved=True))
        waiting = [entry for _, entry in self.permission_queue.waiting()[1:]]
        if waiting:  # they moved up: their cards say how many questions are before them
            emit(ch.PermissionQueueMoved(waiting))

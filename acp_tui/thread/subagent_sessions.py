"""Subagent sessions (unstable, SDK 2.4.0) as state of the session that owns them: one module.

A client that offers `clientCapabilities.subagents` gets `subagent_update` on a parent session
(the root, or a child: children nest): a child announced, then patched (omitted keeps a field,
`null` clears it). The child's own `session/update` traffic comes under the child's session id;
`SubagentSessions` (one per root `Thread`, shared by its children's threads) routes it to the
child's own `Thread`, drawn in the parent as a `SubagentLaneEntry` (a folded lane: title,
description, state, how much it holds). `session_message` / `session_message_chunk` carry what
the sessions send each other (`SessionMessageEntry`, upserted by `messageId`).

Ownership never changes after the announcement, and a parent link never forms a cycle: a child
that names itself, its parent or any ancestor (the root included), a second parent, nesting past
`MAX_DEPTH` or more than `MAX_CHILDREN` children are refused (`refused`: their traffic is
dropped, not drawn as the parent's; the inspector marks the frames, `protocol/conformance.py`).
A `subagent_update`, `session_message` or `session_message_chunk` that does not read (the
inspector marks its frame) is never drawn as an unknown entry: it is counted on the lane of the
child it names or whose traffic it is ("⚠ 2 malformed updates ignored"), else on the sessions
(`on_malformed`: the thread says it once, as a notice). Memory stays bounded whatever the agent
sends. The claudeCode `_meta` nesting of tool calls
(`subagents.py`) stays the fallback for agents that do not send subagent sessions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from acp_tui.protocol.models import (
    MAX_CHILDREN,
    MAX_DEPTH,
    ContentBlock,
    SessionMessage,
    SessionMessageChunk,
    SubagentUpdate,
    ToolCallUpdate,
    WorkState,
)
from acp_tui.protocol.session_updates import (
    retargeted_tool_call_update,
    tool_call_of_notification,
)
from acp_tui.safe_text import safe_line
from acp_tui.signal import Signal


def short_error(error: str | None) -> str:
    """Why an update did not read, on one line, cut and made safe (a pydantic error's first
    lines without its link)."""
    lines = [line.strip() for line in (error or "it does not read").splitlines()]
    kept = [line for line in lines if line and not line.startswith("For further information")]
    return safe_line(" · ".join(kept[:3])[:MAX_ERROR_CHARS])


class SessionThread(Protocol):
    """What this module needs of a `thread.Thread` (said here: `thread.py` imports this module,
    which imports nothing of it)."""

    @property
    def changed(self) -> Signal[Any]:
        """Every change of the thread."""

    @property
    def entries(self) -> Sequence[Any]:
        """The thread's entries, in order."""

    @property
    def tool_calls(self) -> dict[str, Any]:
        """The thread's tool calls by id."""

    @property
    def sessions(self) -> SubagentSessions:
        """The subagent sessions of the root session."""

    def next_entry_id(self) -> int:
        """A new entry id of the thread."""

    def place_entry(self, entry: Any) -> None:
        """Add an entry at the end."""

    def entry_changed(self, entry: Any) -> None:
        """An entry placed changed."""

    def upsert_tool_call(self, tool_call: ToolCallUpdate) -> Any:
        """Merge a tool call update (a new entry if unknown)."""

    def waiting_permission(self) -> bool:
        """A permission question of the thread waits for the user."""

    def apply_notification(self, params: Any) -> None:
        """Apply a `session/update`'s params."""


MAX_REFUSED = 4096
"""Refused child ids remembered (their traffic dropped); past that, only counted."""
MAX_ASKED_CALLS = 1024
"""Child tool calls that asked permission, followed in the parent's tab (more are not)."""
MAX_MESSAGE_BLOCKS = 512
"""Content blocks kept per session message (chunks past it are dropped)."""

MAX_ERROR_CHARS = 300
"""Characters kept of why a malformed update did not read."""
SUBAGENT_KINDS = frozenset({"subagent_update", "session_message", "session_message_chunk"})
"""The update kinds of subagent sessions (a malformed one is `on_malformed`'s)."""

RUNNING_STATES = frozenset({"running", "requires_action"})
"""States in which a child counts as running (its work goes on, or waits for the user)."""


@dataclass(eq=False)
class ChildSession:
    """A child session as its parent described it, and its own conversation."""

    session_id: str
    parent_id: str | None
    """The session it was announced on (None: the root)."""
    depth: int
    thread: SessionThread
    title: str | None = None
    description: str | None = None
    state: WorkState | None = None
    can_cancel: bool = False
    cwd: str | None = None
    additional_directories: list[str] | None = None
    task: SessionMessageEntry | None = None
    """The message its parent sent it (the parent's outgoing view), drawn in its lane: the lane
    sits under the message that started the child."""
    malformed: int = 0
    """Its updates (or its parent's about it) that did not read, ignored."""
    malformed_error: str | None = None
    """Why the last of them did not read (cut, made safe)."""
    revision: int = 0
    """Bumped by each change of its thread."""
    entry_revisions: dict[int, int] = field(default_factory=dict)
    """The revision of each entry's last change (by entry id), and `general_revision` that of
    the last change about no entry in particular: what its lane has drawn is drawn again only
    when these moved (`ui/widgets/subagent_lane.py`)."""
    general_revision: int = 0

    def note_change(self, change: Any) -> None:
        """A change of its thread (`thread_changes`, read by its `entry` or `entries`)."""
        self.revision += 1
        about = getattr(change, "entry", None)
        entries = [about] if about is not None else list(getattr(change, "entries", None) or ())
        if not entries:
            self.general_revision = self.revision
        for entry in entries:
            self.entry_revisions[entry.id] = self.revision

    @property
    def running(self) -> bool:
        """Its foreground work runs or waits for the user."""
        return self.state is not None and self.state.state in RUNNING_STATES

    @property
    def label(self) -> str:
        """What to call it: its title, else "subagent"."""
        return self.title or "subagent"

    def patch(self, update: SubagentUpdate) -> None:
        """Apply a `subagent_update` patch: a field sent (even as null) replaces, else kept."""
        if update.sent("title"):
            self.title = update.title
        if update.sent("description"):
            self.description = update.description
        if update.sent("state"):
            self.state = update.state
        if update.sent("capabilities"):
            capabilities = update.capabilities
            self.can_cancel = capabilities is not None and capabilities.cancel is not None
        if update.sent("cwd"):
            self.cwd = update.cwd
        if update.sent("additional_directories"):
            self.additional_directories = update.additional_directories


@dataclass(eq=False)
class SubagentLaneEntry:
    """Where a child session appears in its parent's conversation: a folded lane."""

    child: ChildSession
    id: int = 0


@dataclass(eq=False)
class SessionMessageEntry:
    """A message between sessions, in the transcript it was sent on."""

    message_id: str
    sender: str | None = None
    recipient: str | None = None
    content: list[ContentBlock] = field(default_factory=list)
    outgoing: bool = False
    """Sent by the session whose transcript holds it (else received by it)."""
    id: int = 0

    @property
    def text(self) -> str:
        """The message's text blocks, joined."""
        return "".join(getattr(block, "text", "") for block in self.content)


class SubagentSessions:
    """The child sessions of one root session (all depths), and where their traffic goes."""

    def __init__(
        self, root: SessionThread, make_thread: Callable[[SubagentSessions], SessionThread]
    ) -> None:
        self.root = root
        self._make_thread = make_thread
        self.root_id: str | None = None
        """The root session's id, once opened (so that no child may name it)."""
        self.children: dict[str, ChildSession] = {}
        self.refused: set[str] = set()
        self.refused_count = 0
        """Announcements refused (see the module docstring), all told."""
        self.dropped_updates = 0
        """Updates of refused children, dropped."""
        self.malformed = 0
        """Subagent updates that did not read (`on_malformed`), all told."""
        self.unmarked_malformed = 0
        """Those of them that named no child to mark (the root's own)."""
        self._session_of: dict[int, str | None] = {id(root): None}
        self._messages: dict[tuple[int, str], SessionMessageEntry] = {}
        self._lanes: dict[str, SubagentLaneEntry] = {}
        self._parent_threads: dict[str, SessionThread] = {}
        self.asked_calls: dict[tuple[str, str], str] = {}
        """(child id, its tool call id) → the id of the call in the root's tab, for a child's
        tool call that asked the user (the question is asked in the parent's tab)."""

    # ---- queries ------------------------------------------------------------------------------

    def route(self, session_id: Any) -> SessionThread | None:
        """The child thread `session_id`'s updates go to (None: not a child)."""
        child = self.children.get(session_id) if type(session_id) is str else None
        return child.thread if child is not None else None

    def drops(self, session_id: Any) -> bool:
        """Whether updates under `session_id` are dropped, once the agent uses subagent
        sessions: a refused child's, and any session's that is neither the root (when its id
        is known) nor an announced child: never drawn as the root's own. (Agents that announce
        no child are not concerned: the thread does not ask.)"""
        if type(session_id) is not str or session_id in self.children:
            return False
        if session_id in self.refused:
            return True
        return self.root_id is not None and session_id != self.root_id

    def divert(
        self,
        thread: SessionThread,
        session_id: Any,
        params: Any,
        apply_child: Callable[[SessionThread], None],
    ) -> bool:
        """Whether an update under `session_id` that `thread` received is not its own: a child
        session's (given to `apply_child` with the child's thread; followed in the parent's tab
        when that call asked the user), or dropped (`drops`, counted)."""
        child = self.route(session_id)
        if child is not None and child is not thread:
            apply_child(child)
            if self.asked_calls:
                self.follow_asked_call(str(session_id), params)
            return True
        if child is None and self.drops(session_id):
            self.dropped_updates += 1
            return True
        return False

    def running(self) -> int:
        """How many children run (or wait for the user) now."""
        return sum(1 for child in self.children.values() if child.running)

    def waiting_for_user(self) -> int:
        """How many children said their work waits for the user (`requires_action`)."""
        return sum(
            1
            for child in self.children.values()
            if child.state is not None and child.state.state == "requires_action"
        )

    def session_id_of(self, thread: SessionThread) -> str | None:
        """The session a thread shows (None: the root)."""
        return self._session_of.get(id(thread))

    def lane_of(self, session_id: str) -> SubagentLaneEntry | None:
        """The lane a child is drawn as in its parent."""
        return self._lanes.get(session_id)

    def title_of(self, session_id: str | None) -> str:
        """What a session is called in a message's line."""
        if session_id is None or session_id == self.root_id:
            return "the main session"
        child = self.children.get(session_id)
        return child.label if child is not None else "another session"

    def reset(self) -> None:
        """Another session opened in the root thread: no children any more."""
        self.children.clear()
        self.refused.clear()
        self._messages.clear()
        self._lanes.clear()
        self._parent_threads.clear()
        self.asked_calls.clear()
        self._session_of = {id(self.root): None}
        self.root_id = None
        self.refused_count = 0
        self.dropped_updates = 0
        self.malformed = 0
        self.unmarked_malformed = 0

    # ---- updates --------------------------------------------------------------------------------

    def on_subagent_update(self, on: SessionThread, update: SubagentUpdate) -> None:
        """A `subagent_update` sent on `on`'s session: announce or patch a child of it."""
        parent_id = self.session_id_of(on)
        child_id = update.session_id
        child = self.children.get(child_id)
        if child is not None:
            if child.parent_id != parent_id:
                self._refuse(None)  # ownership never changes (nor is it claimed by another)
                return
            child.patch(update)
            self._lane_changed(child_id)
            return
        if not self._may_announce(parent_id, child_id):
            self._refuse(child_id)
            return
        depth = 1 if parent_id is None else self.children[parent_id].depth + 1
        thread = self._make_thread(self)
        child = ChildSession(child_id, parent_id, depth, thread)
        child.patch(update)
        self.children[child_id] = child
        self._session_of[id(thread)] = child_id
        self._parent_threads[child_id] = on
        lane = SubagentLaneEntry(child, on.next_entry_id())
        self._lanes[child_id] = lane
        thread.changed.subscribe(lambda change: self._child_changed(child, change))
        on.place_entry(lane)

    def _may_announce(self, parent_id: str | None, child_id: str) -> bool:
        if child_id in self.refused or child_id == self.root_id or child_id == parent_id:
            return False  # a child that names itself (or the root) as its own child
        if len(self.children) >= MAX_CHILDREN:
            return False
        ancestor = parent_id
        for _ in range(MAX_DEPTH + 1):  # a child of its own descendant would be a cycle
            if ancestor is None:
                return True
            if ancestor == child_id:
                return False
            parent = self.children.get(ancestor)
            if parent is None:
                return False
            if parent.depth >= MAX_DEPTH:
                return False
            ancestor = parent.parent_id
        return False

    def _refuse(self, child_id: str | None) -> None:
        """Count a refused announcement; remember the id (its traffic dropped) unless it is a
        session that exists: the root's or a child's own traffic is never dropped."""
        self.refused_count += 1
        if child_id is None or child_id == self.root_id or child_id in self.children:
            return
        if len(self.refused) < MAX_REFUSED:
            self.refused.add(child_id)

    def _child_changed(self, child: ChildSession, change: Any) -> None:
        child.note_change(change)
        self._lane_changed(child.session_id)

    def _lane_changed(self, child_id: str) -> None:
        lane = self._lanes.get(child_id)
        parent = self._parent_threads.get(child_id)
        if lane is not None and parent is not None:
            parent.entry_changed(lane)

    def on_malformed(self, on: SessionThread, named: str | None, error: str | None) -> bool:
        """A subagent update sent on `on`'s session that does not read: counted on the lane of
        the child it names (a `subagent_update` about one of `on`'s children) or, sent on a
        child's session, on that child's lane. Whether it is the first that marks no lane (the
        thread then says so once; the inspector marks every frame)."""
        self.malformed += 1
        why = short_error(error)
        own = self.session_id_of(on)
        child = self.children.get(named) if named is not None else None
        if child is None or child.parent_id != own:
            child = self.children.get(own) if own is not None else None
        if child is None:
            self.unmarked_malformed += 1
            return self.unmarked_malformed == 1
        child.malformed += 1
        child.malformed_error = why
        self._lane_changed(child.session_id)
        return False

    def on_session_message(self, on: SessionThread, update: SessionMessage) -> None:
        """`session_message` on `on`'s transcript: create or patch the message by id."""
        entry = self._message(on, update.message_id)
        if update.sent("sender_session_id"):
            entry.sender = update.sender_session_id
        if update.sent("recipient_session_id"):
            entry.recipient = update.recipient_session_id
        if update.sent("content"):
            entry.content = list(update.content or [])[:MAX_MESSAGE_BLOCKS]
        own = self.session_id_of(on)
        entry.outgoing = entry.sender is not None and entry.sender == (own or self.root_id)
        self._show_message(on, entry)

    def on_session_message_chunk(self, on: SessionThread, update: SessionMessageChunk) -> None:
        """`session_message_chunk`: one block appended to the message."""
        entry = self._message(on, update.message_id)
        if len(entry.content) < MAX_MESSAGE_BLOCKS:
            entry.content.append(update.content)
        self._show_message(on, entry)

    def _message(self, on: SessionThread, message_id: str) -> SessionMessageEntry:
        key = (id(on), message_id)
        entry = self._messages.get(key)
        if entry is None:
            entry = SessionMessageEntry(message_id)
            self._messages[key] = entry
        return entry

    def _show_message(self, on: SessionThread, entry: SessionMessageEntry) -> None:
        child = self.children.get(entry.recipient) if entry.recipient is not None else None
        mine = child is not None and child.parent_id == self.session_id_of(on)
        if entry.id == 0 and entry.outgoing and child is not None and mine:
            child.task = entry  # the message that started it: drawn in its lane
            self._lane_changed(child.session_id)
            return
        if entry.id == 0:
            entry.id = on.next_entry_id()
            on.place_entry(entry)
        else:
            on.entry_changed(entry)

    # ---- a child's permission requests, asked in the root's tab --------------------------------

    def asked_call(self, child_id: str, tool_call: ToolCallUpdate) -> ToolCallUpdate:
        """A child's permission request about `tool_call`: the call is shown in the child's lane
        and, under an id of its own (no clash with the root's calls), in the root's tab, named
        after the child, where the question is asked and answered like any other."""
        child = self.children[child_id]
        entry = child.thread.upsert_tool_call(tool_call)
        key = (child_id, tool_call.tool_call_id)
        shown_id = self.asked_calls.get(key)
        if shown_id is None:
            shown_id = f"{child_id} ▸ {tool_call.tool_call_id}"
            if len(self.asked_calls) < MAX_ASKED_CALLS:
                self.asked_calls[key] = shown_id
        title = f"{child.label} ▸ {entry.title or 'tool call'}"
        return tool_call.model_copy(update={"tool_call_id": shown_id, "title": title})

    def follow_asked_call(self, child_id: str, params: Any) -> None:
        """A child's update of a tool call that asked the user: its card in the root's tab
        follows (status, content)."""
        about = tool_call_of_notification(params)
        if about is None:
            return
        tool_call_id, update = about
        shown_id = self.asked_calls.get((child_id, tool_call_id))
        if shown_id is None:
            return
        retargeted = retargeted_tool_call_update(update, shown_id)
        if retargeted is not None:
            self.root.upsert_tool_call(retargeted)

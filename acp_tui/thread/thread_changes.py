"""Fine-grained change events a `Thread` emits, so a UI updates only what changed."""

from __future__ import annotations

from dataclasses import dataclass, field

from acp_tui.protocol.models import Notice
from acp_tui.thread.entries import Entry, MessageEntry, ToolCallEntry
from acp_tui.thread.permission import PermissionAsk


@dataclass(slots=True)
class EntryAdded:
    """A new entry at the end of `thread.entries` (it may already hold content)."""

    entry: Entry


@dataclass(slots=True)
class MessageChunkAppended:
    """`text` (the delta only) was appended to text block `block_index` of a message.

    `block_index` may be one past the blocks seen so far: a new text block starts there.
    """

    entry: MessageEntry
    block_index: int
    text: str


@dataclass(slots=True)
class EntryChanged:
    """Something other than appended text changed in an existing entry (re-render it)."""

    entry: Entry


@dataclass(slots=True)
class PermissionChanged:
    """A permission request about `entry` was added to it, or answered (`ask.open` says)."""

    entry: ToolCallEntry
    ask: PermissionAsk
    moved: bool = False
    """The request moved to the front of the queue of open questions (an earlier one was
    answered): it is the one asked now (`ask.current`)."""


@dataclass(slots=True)
class PlanChanged:
    """`thread.plan` (plan_id None) or `thread.plans[plan_id]` was replaced."""

    plan_id: str | None


@dataclass(slots=True)
class PermissionQueueMoved:
    """An open permission request was answered: the ones waiting behind it (`entries`, their
    tool calls) moved up the queue."""

    entries: list[ToolCallEntry]


@dataclass(slots=True)
class PlanRemoved:
    """`thread.plans[plan_id]` was removed."""

    plan_id: str


@dataclass(slots=True)
class ModesChanged:
    """`thread.modes` (the available modes) changed."""


@dataclass(slots=True)
class CurrentModeChanged:
    mode_id: str | None


@dataclass(slots=True)
class CommandsChanged:
    """`thread.commands` changed."""


@dataclass(slots=True)
class ConfigOptionsChanged:
    """`thread.config_options` changed."""


@dataclass(slots=True)
class ModelsChanged:
    """`thread.models` (the unstable `models` list and current model) changed."""


@dataclass(slots=True)
class UsageChanged:
    """`thread.usage` changed."""


@dataclass(slots=True)
class InfoChanged:
    """`thread.title` / `thread.updated_at` changed."""


@dataclass(slots=True)
class NoticeReceived:
    """The agent sent a `notice` (kept in `thread.notices`, not a conversation entry)."""

    notice: Notice


@dataclass(slots=True)
class TurnStateChanged:
    running: bool
    stop_reason: str | None
    state: str = field(default="", compare=False)
    """"running", "idle", "requires_action" or newer (v2 `state_update`)."""
    error: str | None = field(default=None, compare=False)
    """The failure in words, when the turn stopped with an `error` stop reason."""


@dataclass(slots=True)
class BackgroundWorkChanged:
    """v2: the background work a state snapshot lists changed (`Thread.background_work`)."""


Change = (
    EntryAdded
    | MessageChunkAppended
    | EntryChanged
    | PermissionChanged
    | PermissionQueueMoved
    | PlanChanged
    | PlanRemoved
    | ModesChanged
    | CurrentModeChanged
    | CommandsChanged
    | ConfigOptionsChanged
    | ModelsChanged
    | UsageChanged
    | InfoChanged
    | TurnStateChanged
    | BackgroundWorkChanged
    | NoticeReceived
)

"""What a conversation is made of: messages, tool calls, plan snapshots, compactions, unknown
updates.

Entries are mutable dataclasses owned by `Thread`; each has a stable int `id` (unique within its
thread) so a UI can key widgets by it. Read them freely; change them only through the `Thread`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from acp_tui.protocol.models import (
    FINISHED_STATUSES,
    ContentBlock,
    PlanEntry,
    TextContent,
    ToolCallContent,
    ToolCallLocation,
)
from acp_tui.safe_text import continued_safely
from acp_tui.thread.permission import PermissionAsk
from acp_tui.thread.subagent_sessions import SessionMessageEntry, SubagentLaneEntry

MessageRole = Literal["user", "agent", "thought"]


class TextRun:
    """One text block being streamed: appending is O(chunk); the text is joined on demand."""

    __slots__ = ("_pieces", "_text", "first", "length")

    def __init__(self, first: TextContent) -> None:
        self.first = first
        """The block that opened the run (its annotations, `_meta` and extras are kept)."""
        self._pieces: list[str] = [first.text]
        self._text: str | None = first.text
        self.length = len(first.text)
        """How many characters the run holds (known without joining it)."""

    def append(self, text: str) -> str:
        """Append `text`; what was appended (see `continued_safely`)."""
        text = continued_safely(self._pieces[-1], text)
        self._pieces.append(text)
        self._text = None
        self.length += len(text)
        return text

    def head(self, limit: int) -> str:
        """The first `limit` characters, without joining the whole run (a view shows a bounded
        part of a long text: joining 10 MB for each chunk that streams in is what froze)."""
        if self._text is not None or self.length <= limit:
            return self.text[:limit]
        taken: list[str] = []
        size = 0
        for piece in self._pieces:
            if size + len(piece) >= limit:
                taken.append(piece[: limit - size])
                break
            taken.append(piece)
            size += len(piece)
        return "".join(taken)

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = "".join(self._pieces)
            self._pieces = [self._text]
        return self._text

    def __repr__(self) -> str:
        return f"TextRun({self.text!r})"

    def to_block(self) -> TextContent:
        if len(self._pieces) == 1 and self._pieces[0] is self.first.text:
            return self.first
        return self.first.model_copy(update={"text": self.text})


@dataclass(eq=False, init=False)
class MessageEntry:
    """A user, agent or thought message; consecutive chunks of the same role coalesce into it.

    `blocks` are the message's content blocks, with adjacent text chunks merged into one
    `TextContent`; `text` is all text blocks joined. Both are built on demand (cached).
    """

    id: int
    role: MessageRole
    message_id: str | None
    parts: list[TextRun | ContentBlock]

    def __init__(
        self,
        role: MessageRole,
        blocks: list[ContentBlock] | None = None,
        message_id: str | None = None,
        *,
        id: int = 0,
    ) -> None:
        self.id = id
        self.role = role
        self.message_id = message_id
        self.parts = []
        self._blocks: list[ContentBlock] | None = None
        for block in blocks or ():
            self.append_block(block)

    def append_text(self, text: str) -> tuple[int, str]:
        """Append streamed text (merging into a trailing text block); returns the block index
        and the text as appended (a joiner after a joiner shown as U+FFFD, `continued_safely`)."""
        self._blocks = None
        parts = self.parts
        if parts:
            last = parts[-1]
            if type(last) is TextRun:
                return len(parts) - 1, last.append(text)
        parts.append(TextRun(TextContent(text=text)))
        return len(parts) - 1, text

    def append_block(self, block: ContentBlock) -> tuple[int, str | None]:
        """Append any block; returns its index and, for text, the text appended."""
        self._blocks = None
        parts = self.parts
        if isinstance(block, TextContent):
            if parts and type(parts[-1]) is TextRun:
                return len(parts) - 1, parts[-1].append(block.text)
            parts.append(TextRun(block))
            return len(parts) - 1, block.text
        parts.append(block)
        return len(parts) - 1, None

    def replace_blocks(self, blocks: list[ContentBlock]) -> None:
        """The message's content is now `blocks` (what was appended so far is dropped)."""
        self.parts = []
        self._blocks = None
        for block in blocks:
            self.append_block(block)

    @property
    def blocks(self) -> list[ContentBlock]:
        if self._blocks is None:
            self._blocks = [p.to_block() if isinstance(p, TextRun) else p for p in self.parts]
        return self._blocks

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, TextRun))


@dataclass(eq=False)
class ToolCallEntry:
    """A tool call as currently known, merged from `tool_call`/`tool_call_update`/permissions.

    Times are from the thread's clock (`time.monotonic` unless injected): `created_at` when first
    seen, `started_at` when it became in_progress (or finished without being seen running),
    `finished_at` when it reached completed/failed/cancelled. The time a call took counts from
    `created_at` (agents that ask permission before running often send no in_progress at all);
    the time its permission questions waited for the user is told apart (`waited`).
    """

    tool_call_id: str
    title: str = ""
    name: str | None = None
    """The tool's programmatic name (`ToolCall.name`), if the agent sent it."""
    kind: str = "other"
    status: str = "pending"
    content: list[ToolCallContent] = field(default_factory=list)
    locations: list[ToolCallLocation] = field(default_factory=list)
    raw_input: Any = None
    raw_output: Any = None
    meta: dict[str, Any] | None = None
    id: int = 0
    created_at: float = 0.0
    started_at: float | None = None
    finished_at: float | None = None
    permissions: list[PermissionAsk] = field(default_factory=list)
    """Permission requests about this call, in order (see `session.permission`)."""
    disk_notes: list[str] = field(default_factory=list)
    """What the change monitor saw differ from the call's diffs (a file that ended up unlike
    what the diff showed); set with `Thread.set_disk_notes`."""
    can_cancel: bool = False
    """v2: the agent lets the client stop this call (`capabilities.cancel`: `tool_call/cancel`)."""
    parent_tool_call_id: str | None = None
    """The tool call whose subagent runs this one, as the agent said (`session.subagents`)."""
    dropped_parent: str | None = None
    """The parent the agent named that was not followed: nesting under it would have closed a
    ring (the call is drawn at top level, marked)."""
    title_derived: bool = False
    """The agent gave no title: `title` is made from what is known of the call (its tool,
    kind, file) and is made again as more is known."""
    nested_in: ToolCallEntry | None = field(default=None, repr=False)
    """The parent it is drawn under (None: a top-level entry, or still waiting for it)."""
    children: list[ToolCallEntry] = field(default_factory=list, repr=False)
    """The tool calls its subagent ran, in order (not entries of the thread themselves)."""

    @property
    def finished(self) -> bool:
        return self.status in FINISHED_STATUSES

    @property
    def open_permission(self) -> PermissionAsk | None:
        """The permission request about this call still waiting for the user, if any."""
        return next((ask for ask in self.permissions if ask.open), None)

    @property
    def duration(self) -> float | None:
        """Seconds from the `tool_call` to its finish, once finished."""
        if self.finished_at is None:
            return None
        return self.finished_at - self.created_at

    def waited(self, now: float) -> float:
        """Seconds its permission questions waited for the user (until `now` for an open one)."""
        return sum(ask.waited(now) for ask in self.permissions)


@dataclass(eq=False)
class PlanState:
    """A plan: the v1 `plan` (plan_id None, kind "items") or an unstable plan by id.

    kind is "items" (entries), "file" (uri), "markdown" (markdown) or an unknown type (raw).
    """

    plan_id: str | None
    kind: str = "items"
    entries: list[PlanEntry] = field(default_factory=list)
    uri: str | None = None
    markdown: str | None = None
    meta: dict[str, Any] | None = None
    raw: dict[str, Any] | None = None

    @property
    def content(self) -> str | None:
        """The plan as text when it is not itemized: markdown, or the file uri; else None."""
        return self.markdown if self.kind == "markdown" else self.uri


@dataclass(eq=False)
class PlanSnapshotEntry:
    """Where a plan update appears inline in the conversation.

    The updates of one plan in one turn update one snapshot in place (a plan repeated on every
    step filled the conversation with "Plan n/4" blocks); the next turn starts a new snapshot.
    `removed` is set when the plan is removed (plan_removed).
    """

    plan: PlanState
    id: int = 0
    removed: bool = False

    @property
    def plan_id(self) -> str | None:
        return self.plan.plan_id

    @property
    def plan_entries(self) -> list[PlanEntry]:
        return self.plan.entries

    @property
    def content(self) -> str | None:
        return self.plan.content


@dataclass(eq=False)
class UnknownEntry:
    """A session update acp-tui does not understand (or that did not validate), kept raw."""

    raw: Any
    error: str | None = None
    id: int = 0


@dataclass(eq=False)
class CompactionEntry:
    """A context compaction (unstable `compaction_update`), where its first update arrived.

    `status` is "in_progress", "completed", "failed", "cancelled" (or newer); `summary` the
    content blocks the agent retained (adjacent text chunks joined), `error` why it failed.
    """

    compaction_id: str
    status: str = "in_progress"
    summary: list[ContentBlock] = field(default_factory=list)
    error: str | None = None
    meta: dict[str, Any] | None = None
    id: int = 0


Entry = (
    MessageEntry
    | ToolCallEntry
    | PlanSnapshotEntry
    | UnknownEntry
    | CompactionEntry
    | SubagentLaneEntry
    | SessionMessageEntry
)

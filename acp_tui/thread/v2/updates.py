"""ACP v2 session updates applied to a `Thread`: everything is an upsert keyed by id.

- Messages are keyed by `messageId` (per role): `user_message`/`agent_message`/`agent_thought`
  create or patch one (`content` omitted = unchanged, `null` = cleared, array = replaced);
  a chunk with the same id appends to it wherever it is, so a late chunk never breaks order.
- `tool_call_update` creates or patches a tool call (`null` clears a field to its default,
  arrays replace); `tool_call_content_chunk` appends one content item.
- `terminal_update`/`terminal_output_chunk` keep agent-owned terminals (`AgentTerminal`).
- `state_update` is the turn: `Thread.set_state`; its `background` list is
  `Thread.background_work`. A tool call's or terminal's `capabilities.cancel` says the client
  may stop it (`ToolCallEntry.can_cancel`, `AgentTerminal.can_cancel`). Entries that arrive or
  change while idle are marked as background activity (`Thread.background`).
- Prompts the client sent wait in `pending` until the agent's `user_message` places them (same
  text): a prompt shown locally is adopted by that message; a queued one is placed there.

Kinds v1 and v2 share (plans, usage, commands, config options, session info) go to the thread.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from acp_tui.protocol.models import (
    ContentBlock,
    TextContent,
    ToolCallUpdate,
    UnknownUpdate,
)
from acp_tui.protocol.models.v2 import (
    CancelCapabilities,
    MessageChunkV2,
    MessageUpsert,
    StateUpdate,
    TerminalOutputChunk,
    TerminalUpdate,
    ToolCallContentChunk,
)
from acp_tui.protocol.session_updates import parse_v2_update_notification
from acp_tui.thread.entries import MessageEntry, MessageRole, ToolCallEntry
from acp_tui.thread.thread import Thread
from acp_tui.thread.tool_calls import TOOL_FIELDS
from acp_tui.thread.v2.agent_terminals import AgentExitStatus, AgentTerminal

BACKGROUND_LIMIT = 256
"""Background work items kept of one state snapshot (the rest are not listed)."""

_ROLES: dict[str, MessageRole] = {
    "user_message": "user",
    "user_message_chunk": "user",
    "agent_message": "agent",
    "agent_message_chunk": "agent",
    "agent_thought": "thought",
    "agent_thought_chunk": "thought",
}

_TOOL_DEFAULTS: dict[str, Any] = {
    "kind": "other",
    "status": "pending",
    "raw_input": None,
    "raw_output": None,
    "meta": None,
}


@dataclass
class PendingPrompt:
    """A prompt the client sent that no `user_message` has placed yet."""

    key: int
    text: str
    entry: MessageEntry | None = None
    """The user message already shown for it (a prompt sent while idle), if any."""


@dataclass
class V2Reducer:
    """Applies v2 `session/update` params to `thread` (see the module docstring)."""

    thread: Thread
    messages: dict[tuple[MessageRole, str], MessageEntry] = field(default_factory=dict)
    terminals: dict[str, AgentTerminal] = field(default_factory=dict)
    pending: list[PendingPrompt] = field(default_factory=list)
    children: dict[int, V2Reducer] = field(default_factory=dict)
    """The reducers of subagent sessions' threads (by the thread's identity)."""
    on_placed: Callable[[PendingPrompt, MessageEntry], None] | None = None
    """Called when a user_message placed a pending prompt (the client drops it from its queue)."""
    on_terminal_cancel: Callable[[str], None] | None = None
    """How a terminal that offers cancel is stopped (`terminal/cancel`), given to each one."""

    def __post_init__(self) -> None:
        self.thread.track_background()

    # ---- client side --------------------------------------------------------------------

    def expect_prompt(self, key: int, text: str, entry: MessageEntry | None = None) -> None:
        """A prompt was sent; the agent's user_message with the same text will place it."""
        self.pending.append(PendingPrompt(key, text, entry))

    def forget_prompt(self, key: int) -> None:
        """Drop a prompt waiting to be placed (it was withdrawn)."""
        self.pending = [p for p in self.pending if p.key != key]

    def terminal(self, terminal_id: str) -> AgentTerminal | None:
        """The agent-run terminal with this id, if the agent reported one."""
        return self.terminals.get(terminal_id)

    # ---- agent side ---------------------------------------------------------------------

    def apply_notification(self, params: Any) -> None:
        """Apply the raw params of a `session/update` notification (read in protocol/). A
        subagent session's own updates (under its session id) go to its thread, through a
        reducer of its own (`thread/subagent_sessions.py`); a refused child's are dropped."""
        sessions = self.thread.sessions
        if (
            (sessions.children or sessions.refused_count)
            and type(params) is dict
            and sessions.divert(
                self.thread,
                params.get("sessionId"),
                params,
                lambda child: self._child_reducer(child).apply_notification(params),
            )
        ):
            return
        self.apply(parse_v2_update_notification(params))

    def _child_reducer(self, child: Any) -> V2Reducer:
        """The reducer of a subagent session's thread (made at its first update)."""
        reducer = self.children.get(id(child))
        if reducer is None or reducer.thread is not child:  # (an id reused after a reset)
            reducer = self.children[id(child)] = V2Reducer(child)
        return reducer

    def apply(self, update: Any) -> None:
        """Apply one typed v2 update (message chunks and upserts, state, terminals, ...) to the
        thread.
        """
        if isinstance(update, MessageChunkV2):
            self._on_chunk(update)
        elif isinstance(update, MessageUpsert):
            self._on_message(update)
        elif isinstance(update, StateUpdate):
            self._on_state(update)
        elif isinstance(update, ToolCallUpdate):
            self._on_tool_call(update)
        elif isinstance(update, ToolCallContentChunk):
            self._on_tool_content(update)
        elif isinstance(update, TerminalUpdate):
            self._on_terminal(update)
        elif isinstance(update, TerminalOutputChunk):
            self._on_terminal_output(update)
        else:
            self.thread.apply(update)

    # ---- messages -------------------------------------------------------------------------

    def _touched(self, entry: Any) -> None:
        if not self.thread.turn_running and self.thread.had_turn:
            self.thread.mark_background_entry(entry)

    def _new_message(
        self, role: MessageRole, message_id: str, first: list[ContentBlock]
    ) -> MessageEntry:
        if role == "user":
            pending = self._match_pending(first)
            if pending is not None:
                self.pending.remove(pending)
                entry = pending.entry
                if entry is not None:  # shown already: the agent's message is that one
                    self.messages[(role, message_id)] = entry
                    self.thread.replace_message(entry, first, message_id)
                else:
                    entry = self._add_message(role, message_id, first)
                if self.on_placed is not None:
                    self.on_placed(pending, entry)
                return entry
        return self._add_message(role, message_id, first)

    def _add_message(
        self, role: MessageRole, message_id: str, blocks: list[ContentBlock]
    ) -> MessageEntry:
        entry = self.thread.add_message(role, blocks, message_id)
        self.messages[(role, message_id)] = entry
        return entry

    def _match_pending(self, blocks: list[ContentBlock]) -> PendingPrompt | None:
        text = "".join(b.text for b in blocks if isinstance(b, TextContent)).strip()
        exact = next((p for p in self.pending if p.text.strip() == text), None)
        if exact is not None or not text:
            return exact
        # a user message streamed in chunks: its first chunk starts the prompt's text
        return next((p for p in self.pending if p.text.strip().startswith(text)), None)

    def _on_chunk(self, update: MessageChunkV2) -> None:
        role = _ROLES[update.session_update]
        entry = self.messages.get((role, update.message_id))
        if entry is None:
            self._new_message(role, update.message_id, [update.content])
            return
        self.thread.append_to_message(entry, update.content)
        self._touched(entry)

    def _on_message(self, update: MessageUpsert) -> None:
        role = _ROLES[update.session_update]
        sent = "content" in update.model_fields_set
        blocks = list(update.content or []) if sent else []
        entry = self.messages.get((role, update.message_id))
        if entry is None:
            self._new_message(role, update.message_id, blocks)
            return
        if sent:  # null clears, an array replaces (chunks accumulated so far included)
            self.thread.replace_message(entry, blocks)
        self._touched(entry)

    # ---- state and background work ---------------------------------------------------------

    def _on_state(self, update: StateUpdate) -> None:
        """A state snapshot: the turn, and the background work as a whole list (kept bounded)."""
        work = update.background
        listed = (
            None
            if work is None
            else tuple(
                f"{item.type} {item.terminal_id or item.tool_call_id or item.session_id or ''}"
                for item in work[:BACKGROUND_LIMIT]
            )
        )
        thread = self.thread
        thread.set_background_work(listed)
        if update.state == "idle" == thread.state and (
            update.stop_reason == thread.last_stop_reason
        ):
            return  # the same idle again (its background work changed): not another turn end
        thread.set_state(update.state, update.stop_reason, update.error_text)

    # ---- tool calls ----------------------------------------------------------------------

    def _on_tool_call(self, update: ToolCallUpdate) -> None:
        fields = update.model_fields_set
        entry = self.thread.tool_calls.get(update.tool_call_id)
        extra = update.model_extra or {}
        if entry is None:
            entry = self.thread.add_tool_call(update, fields)
            if "capabilities" in extra and cancel_offered(extra["capabilities"]):
                self.thread.patch_tool_call(entry, {}, can_cancel=True)
            return
        # capabilities patched: omitted keeps it, null or malformed clears it
        can_cancel = cancel_offered(extra["capabilities"]) if "capabilities" in extra else None
        values: dict[str, Any] = {}
        for name in TOOL_FIELDS:
            if name not in fields:
                continue
            value = getattr(update, name)
            if name == "status" and entry.status == "cancelled" and value != "completed":
                continue  # the user cancelled it; only a real completion overrides that
            if value is None:  # v2: null clears
                value = _cleared(name, entry)
            values[name] = list(value) if isinstance(value, list) else value
        self.thread.patch_tool_call(entry, values, can_cancel=can_cancel)
        self._touched(entry)

    def _on_tool_content(self, update: ToolCallContentChunk) -> None:
        entry = self.thread.tool_call(update.tool_call_id)
        self.thread.append_tool_content(entry, update.content)
        self._touched(entry)

    # ---- agent-owned terminals --------------------------------------------------------------

    def _new_terminal(self, terminal_id: str) -> AgentTerminal:
        terminal = AgentTerminal(terminal_id)
        terminal.on_cancel = self.on_terminal_cancel
        return terminal

    def _on_terminal(self, update: TerminalUpdate) -> None:
        terminal = self.terminals.get(update.terminal_id)
        new = terminal is None
        if terminal is None:
            terminal = self.terminals[update.terminal_id] = self._new_terminal(update.terminal_id)
        sent = update.model_fields_set
        if "command" in sent:
            terminal.command = update.command or ""
        if "cwd" in sent:
            terminal.cwd = update.cwd
        if "output" in sent:
            data = update.output.decoded() if update.output is not None else b""
            terminal.replace(data if data is not None else b"")
        if "capabilities" in sent:
            caps = update.capabilities
            terminal.can_cancel = caps is not None and caps.cancel is not None
        if "exit_status" in sent:
            status = update.exit_status
            terminal.set_exit(
                None if status is None else AgentExitStatus(status.exit_code, status.signal)
            )
        self._refresh_cards(update.terminal_id, all_changes=not new)

    def _on_terminal_output(self, update: TerminalOutputChunk) -> None:
        data = update.decoded()
        if data is None:
            self.thread.apply(
                UnknownUpdate(
                    raw=update.model_dump(by_alias=True), error="terminal output is not base64"
                )
            )
            return
        terminal = self.terminals.get(update.terminal_id)
        if terminal is None:
            terminal = self.terminals[update.terminal_id] = self._new_terminal(update.terminal_id)
            terminal.append(data)
            self._refresh_cards(update.terminal_id, all_changes=False)
            return
        terminal.append(data)

    def _refresh_cards(self, terminal_id: str, *, all_changes: bool) -> None:
        """Cards showing this terminal re-render (a new one replaces "not found"; a changed
        command or exit status changes the card's title line)."""
        for entry in self.thread.tool_calls.values():
            if any(getattr(c, "terminal_id", None) == terminal_id for c in entry.content):
                self.thread.entry_changed(entry)
                if all_changes:
                    self._touched(entry)


def cancel_offered(capabilities: Any) -> bool:
    """Whether a `capabilities` object offers `cancel` (a malformed one offers nothing)."""
    try:
        read = CancelCapabilities.model_validate(capabilities)
    except ValidationError:
        return False
    return read.cancel is not None


def _cleared(name: str, entry: ToolCallEntry) -> Any:
    if name in ("content", "locations"):
        return []
    if name == "title":
        return entry.tool_call_id
    return _TOOL_DEFAULTS[name]


def encode_bytes(data: bytes) -> str:
    """Bytes as v2 sends them (base64), for tests and the demo agent."""
    return base64.b64encode(data).decode("ascii")

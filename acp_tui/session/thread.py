"""The session as data: a reducer from `session/update` to conversation state.

Not pure: it updates its state in place and reads a clock (for tool-call timings), but does no
I/O, no asyncio, no UI. Feed it updates (`apply`, or `apply_notification` with the raw params
of a `session/update` notification) and client-side events (`add_user_prompt`, `begin_turn`, ...);
observe it with `subscribe`, which delivers fine-grained `Change` events synchronously, after the
state they describe has been updated.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from acp_tui.protocol.models import (
    FINISHED_STATUSES,
    AgentMessageChunk,
    AgentThoughtChunk,
    AvailableCommand,
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    ContentBlock,
    Cost,
    CurrentModeUpdate,
    Plan,
    PlanEntry,
    PlanRemoved,
    PlanUpdate,
    SessionConfigOption,
    SessionInfoUpdate,
    SessionMode,
    SessionModeState,
    SessionUpdate,
    TextContent,
    ToolCall,
    ToolCallUpdate,
    UnknownUpdate,
    UsageUpdate,
    UserMessageChunk,
    parse_session_update,
    to_wire,
)
from acp_tui.safe_text import safe_text
from acp_tui.signal import Signal, Unsubscribe

from . import thread_changes as ch
from .config_options import (
    MODE,
    ModelState,
    mode_option_at,
    option_by_category,
    parse_config_options,
)
from .echo import PromptEcho
from .entries import (
    Entry,
    MessageEntry,
    MessageRole,
    PlanSnapshotEntry,
    PlanState,
    ToolCallEntry,
    UnknownEntry,
)
from .permission import PermissionAsk, PermissionQueue
from .plans import plan_state
from .tool_calls import copy_tool_fields, stamp_times

log = logging.getLogger(__name__)

Listener = Callable[[ch.Change], None]

_CHUNK_ROLES: dict[str, MessageRole] = {
    "agent_message_chunk": "agent",
    "agent_thought_chunk": "thought",
    "user_message_chunk": "user",
}
# What a session/load replays that a thread showing the conversation already has (a restart).
_REPLAYED_KINDS = frozenset({*_CHUNK_ROLES, "tool_call", "tool_call_update", "plan"})


def _is_user(entry: Entry) -> bool:
    return type(entry) is MessageEntry and entry.role == "user"


def _is_plain_text(block: TextContent) -> bool:
    return block.annotations is None and block.meta is None and not block.model_extra


@dataclass
class UsageState:
    """Context window usage: `used` of `size` tokens, and the session's cost if reported."""

    used: int
    size: int
    cost: Cost | None = None


class Thread:
    """Conversation state of one session, updated in place by its reducer methods, observed
    via changes."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.changed: Signal[ch.Change] = Signal("thread change")
        """Every change, synchronously, after it is applied."""
        self._next_id = 0
        self._break_coalescing = False
        self._echo: PromptEcho | None = None  # the prompt of the running turn, if it may echo
        self.generation = 0
        """Bumped by `reset` (another session opened in this thread)."""
        self.entries: list[Entry] = []
        self.tool_calls: dict[str, ToolCallEntry] = {}
        self.permission_queue = PermissionQueue()
        """The permission questions waiting for the user, oldest (the one asked) first."""
        self.plan: list[PlanEntry] | None = None
        self.plans: dict[str, PlanState] = {}
        self.modes: list[SessionMode] = []
        self.current_mode_id: str | None = None
        self.commands: list[AvailableCommand] = []
        self.config_options: list[SessionConfigOption] = []
        self.models: ModelState | None = None
        self.usage: UsageState | None = None
        self.title: str | None = None
        self.updated_at: str | None = None
        self.turn_running = False
        self.last_stop_reason: str | None = None
        self.state = "idle"
        """The agent's foreground work: "idle", "running", "requires_action" (or newer, v2)."""
        self.background: set[int] = set()
        """Ids of entries that arrived or changed while idle (v2 background activity)."""
        self.mark_background = False
        """Set for v2 sessions: entries added while idle are background activity."""
        self.had_turn = False
        """A turn has run (what arrives idle before the first one is not background)."""
        self.skip_replayed = False
        """Set while a `session/load` replays a conversation this thread already shows (after a
        restart): the replayed messages, tool calls and plans are dropped."""
        self._handlers: dict[type[Any], Callable[[Any], None]] = {
            AgentMessageChunk: self._on_chunk,
            AgentThoughtChunk: self._on_chunk,
            UserMessageChunk: self._on_chunk,
            ToolCall: self._on_tool_call,
            ToolCallUpdate: self._on_tool_call_update,
            Plan: self._on_plan,
            PlanUpdate: self._on_plan_update,
            PlanRemoved: self._on_plan_removed,
            AvailableCommandsUpdate: self._on_commands,
            CurrentModeUpdate: self._on_current_mode,
            ConfigOptionUpdate: self._on_config_options,
            SessionInfoUpdate: self._on_info,
            UsageUpdate: self._on_usage,
            UnknownUpdate: self._on_unknown,
        }

    # ---- observing ------------------------------------------------------------------------------

    def subscribe(self, callback: Listener) -> Unsubscribe:
        """Call `callback(change)` after every change; returns a function that unsubscribes.
        A listener that raises is logged and reported (see `acp_tui.signal`)."""
        return self.changed.subscribe(callback)

    # ---- agent updates --------------------------------------------------------------------------

    def apply(self, update: SessionUpdate) -> None:
        """Apply one session update (any variant; unknown ones become an `UnknownEntry`)."""
        handler = self._handlers.get(type(update))
        if handler is None:
            self._on_unknown(UnknownUpdate(raw=update, error=f"not a session update: {update!r}"))
        else:
            handler(update)

    def apply_notification(self, params: Any) -> None:
        """Apply the raw params of a `session/update` notification.

        Plain text chunks take a fast path that skips model validation (the streaming hot path).
        """
        if type(params) is not dict:
            self._on_unknown(UnknownUpdate(raw=params, error="params is not an object"))
            return
        update = params.get("update")
        if type(update) is not dict:
            self._on_unknown(UnknownUpdate(raw=params, error="params has no update object"))
            return
        kind = update.get("sessionUpdate")
        if self.skip_replayed and kind in _REPLAYED_KINDS:
            return
        role = _CHUNK_ROLES.get(kind)  # type: ignore[arg-type]
        if role is not None:
            content = update.get("content")
            if type(content) is dict and len(content) == 2 and content.get("type") == "text":
                text = content.get("text")
                if type(text) is str:
                    text = safe_text(text)  # what the model's DisplayStr would do
                    size = len(update)
                    if size == 2:
                        self._append_text(role, text, None)
                        return
                    if size == 3 and "messageId" in update:
                        message_id = update["messageId"]
                        if message_id is None or type(message_id) is str:
                            self._append_text(role, text, message_id)
                            return
        self.apply(parse_session_update(update))

    def _message_for(self, role: MessageRole, message_id: str | None) -> MessageEntry | None:
        """The message a chunk of this role/id coalesces into, if it is the last entry."""
        if self._break_coalescing or not self.entries:
            return None
        last = self.entries[-1]
        if type(last) is not MessageEntry or last.role != role:
            return None
        if message_id is not None and last.message_id != message_id:
            if last.message_id is not None:
                return None
            last.message_id = message_id
        return last

    def _append_text(self, role: MessageRole, text: str, message_id: str | None) -> None:
        if role == "user" and self._echo is not None:
            if self._echo.absorb(text):
                return
            text = self._end_echo() + text
        entry = self._message_for(role, message_id)
        if entry is None:
            entry = MessageEntry(role, message_id=message_id, id=self._new_id())
            entry.append_text(text)
            self._add_entry(entry)
            return
        index = entry.append_text(text)
        self.changed.emit(ch.MessageChunkAppended(entry, index, text))

    def _on_chunk(self, update: UserMessageChunk | AgentMessageChunk | AgentThoughtChunk) -> None:
        role = _CHUNK_ROLES[update.session_update]
        block = update.content
        if type(block) is TextContent and _is_plain_text(block):
            self._append_text(role, block.text, update.message_id)
            return
        if role == "user" and self._echo is not None:
            held = self._end_echo()
            if held:
                self._append_text(role, held, update.message_id)
        entry = self._message_for(role, update.message_id)
        if entry is None:
            entry = MessageEntry(role, [block], update.message_id, id=self._new_id())
            self._add_entry(entry)
            return
        index, text = entry.append_block(block)
        if text is None:
            self.changed.emit(ch.EntryChanged(entry))
        else:
            self.changed.emit(ch.MessageChunkAppended(entry, index, text))

    def _on_tool_call(self, update: ToolCall) -> None:
        entry = self.tool_calls.get(update.tool_call_id)
        if entry is None:
            self._create_tool_call(update, update.model_fields_set)
        else:
            self._merge_tool_call(entry, update, update.model_fields_set)

    def _on_tool_call_update(self, update: ToolCallUpdate) -> None:
        self.upsert_tool_call(update)

    def _create_tool_call(
        self, update: ToolCall | ToolCallUpdate, fields: set[str]
    ) -> ToolCallEntry:
        now = self._clock()
        entry = ToolCallEntry(
            tool_call_id=update.tool_call_id,
            title=update.title or safe_text(update.tool_call_id),
            id=self._new_id(),
            created_at=now,
        )
        copy_tool_fields(entry, update, fields - {"title"})
        stamp_times(entry, now)
        self.tool_calls[entry.tool_call_id] = entry
        self._add_entry(entry)
        return entry

    def _merge_tool_call(
        self, entry: ToolCallEntry, update: ToolCall | ToolCallUpdate, fields: set[str]
    ) -> None:
        old_status = entry.status
        if copy_tool_fields(entry, update, fields):
            if entry.status != old_status:
                stamp_times(entry, self._clock())
            self.changed.emit(ch.EntryChanged(entry))

    def _on_plan(self, update: Plan) -> None:
        self.plan = list(update.entries)
        state = PlanState(plan_id=None, entries=list(update.entries), meta=update.meta)
        self.changed.emit(ch.PlanChanged(None))
        self._snapshot(state)

    def _on_plan_update(self, update: PlanUpdate) -> None:
        state = plan_state(update)
        if state is None or state.plan_id is None:
            self._on_unknown(UnknownUpdate(raw=to_wire(update), error="plan without an id"))
            return
        self.plans[state.plan_id] = state
        self.changed.emit(ch.PlanChanged(state.plan_id))
        self._snapshot(state)

    def _snapshot(self, state: PlanState) -> None:
        last = self.entries[-1] if self.entries else None
        if type(last) is PlanSnapshotEntry and last.plan.plan_id == state.plan_id:
            last.plan = state
            last.removed = False
            self.changed.emit(ch.EntryChanged(last))
        else:
            self._add_entry(PlanSnapshotEntry(state, id=self._new_id()))

    def _on_plan_removed(self, update: PlanRemoved) -> None:
        if self.plans.pop(update.plan_id, None) is None:
            return
        self.changed.emit(ch.PlanRemoved(update.plan_id))
        for entry in self.entries:
            if (
                type(entry) is PlanSnapshotEntry
                and entry.plan_id == update.plan_id
                and not entry.removed
            ):
                entry.removed = True
                self.changed.emit(ch.EntryChanged(entry))

    def _on_commands(self, update: AvailableCommandsUpdate) -> None:
        self.commands = list(update.available_commands)
        self.changed.emit(ch.CommandsChanged())

    def _on_current_mode(self, update: CurrentModeUpdate) -> None:
        self.set_current_mode(update.current_mode_id)

    def _on_config_options(self, update: ConfigOptionUpdate) -> None:
        self.set_config_options(update.config_options)

    def _on_info(self, update: SessionInfoUpdate) -> None:
        sent = update.model_fields_set
        if "title" in sent:
            self.title = update.title
        if "updated_at" in sent:
            self.updated_at = update.updated_at
        self.changed.emit(ch.InfoChanged())

    def _on_usage(self, update: UsageUpdate) -> None:
        self.usage = UsageState(update.used, update.size, update.cost)
        self.changed.emit(ch.UsageChanged())

    def _on_unknown(self, update: UnknownUpdate) -> None:
        self._add_entry(UnknownEntry(update.raw, update.error, id=self._new_id()))

    # ---- client-driven changes ------------------------------------------------------------------

    def add_user_prompt(self, blocks: list[ContentBlock]) -> MessageEntry:
        """The prompt the user sent, as a new user message (never merged into a previous one)."""
        entry = MessageEntry("user", list(blocks), id=self._new_id())
        self._add_entry(entry)
        self._echo = PromptEcho(blocks)
        return entry

    def begin_turn(self) -> None:
        """A prompt turn started; the next chunk starts a new message."""
        self.set_state("running")

    def end_turn(self, stop_reason: str | None) -> None:
        """The prompt turn ended (`stop_reason` from the PromptResponse, None on error)."""
        self.set_state("idle", stop_reason)

    def set_state(self, state: str, stop_reason: str | None = None) -> None:
        """The turn as state: v1 derives it from the prompt request, v2 from `state_update`.

        Anything but "idle" is a running turn; going idle records `stop_reason`.
        """
        running = state != "idle"
        if state == self.state and running:
            return  # (idle → idle is reported: a v1 turn that failed before it ran)
        self._break_coalescing = True
        self.state = state
        self.turn_running = running
        self.had_turn = self.had_turn or running
        if not running:
            self._echo = None  # an echo cut short is still only an echo
            self.last_stop_reason = stop_reason
        self.changed.emit(ch.TurnStateChanged(running, None if running else stop_reason, state))

    def mark_background_entry(self, entry: Entry) -> None:
        """`entry` changed while idle: it is background activity (emits if newly marked)."""
        if entry.id not in self.background:
            self.background.add(entry.id)
            self.changed.emit(ch.EntryChanged(entry))

    def cancel_unfinished_tool_calls(self) -> list[ToolCallEntry]:
        """Mark every tool call not yet finished as "cancelled" (client-side); returns them."""
        now = self._clock()
        cancelled = [e for e in self.tool_calls.values() if e.status not in FINISHED_STATUSES]
        for entry in cancelled:
            entry.status = "cancelled"
            stamp_times(entry, now)
            self.changed.emit(ch.EntryChanged(entry))
        return cancelled

    def set_current_mode(self, mode_id: str) -> None:
        """The current mode (after session/set_mode or a current_mode_update); emits if changed."""
        if mode_id != self.current_mode_id:
            self.current_mode_id = mode_id
            self.changed.emit(ch.CurrentModeChanged(mode_id))
        # an agent with both (Vibe) may tell only one of them: its `mode` option follows
        synced = mode_option_at(self.config_options, mode_id)
        if synced is not None:
            self.set_config_options(synced)

    def set_modes(self, state: SessionModeState | None) -> None:
        """The modes from a session/new or session/load response (None: no modes)."""
        self.modes = list(state.available_modes) if state is not None else []
        self.changed.emit(ch.ModesChanged())
        current = state.current_mode_id if state is not None else None
        if current != self.current_mode_id:
            self.current_mode_id = current
            self.changed.emit(ch.CurrentModeChanged(current))

    def set_config_options(self, options: Sequence[SessionConfigOption | Any] | None) -> None:
        """The config options from a session response or config_option_update (None: none).

        Raw dicts are accepted too (parsed here; invalid ones are skipped, as the schema says).
        """
        self.config_options = parse_config_options(options or [])
        self.changed.emit(ch.ConfigOptionsChanged())
        # ... and the modes follow the `mode` option the agent answered with
        mode = option_by_category(self.config_options, MODE)
        if mode is not None and any(m.id == mode.current_value for m in self.modes):
            self.set_current_mode(mode.current_value)

    def reset(self) -> None:
        """Forget the conversation and the session's state, to open another session in this
        thread (listeners stay subscribed; entry ids keep counting up)."""
        self.generation += 1
        self._break_coalescing = False
        self._echo = None
        self.entries = []
        self.tool_calls = {}
        self.permission_queue = PermissionQueue()
        self.plan = None
        self.plans = {}
        self.modes = []
        self.current_mode_id = None
        self.commands = []
        self.config_options = []
        self.models = None
        self.usage = None
        self.title = None
        self.updated_at = None
        self.turn_running = False
        self.last_stop_reason = None

    def set_models(self, models: ModelState | None) -> None:
        """The unstable `models` state from a session response (None: the agent has none)."""
        if models != self.models:
            self.models = models
            self.changed.emit(ch.ModelsChanged())

    def set_current_model(self, model_id: str) -> None:
        """The current model after `session/set_model` succeeded."""
        if self.models is not None and model_id != self.models.current_id:
            self.models = ModelState(model_id, self.models.available)
            self.changed.emit(ch.ModelsChanged())

    def upsert_tool_call(self, tool_call: ToolCallUpdate) -> ToolCallEntry:
        """Merge `tool_call` into the entry with its id, or add it as a new entry (a permission
        request may name a tool call never announced, or carry fields newer than its updates)."""
        fields = tool_call.model_fields_set
        entry = self.tool_calls.get(tool_call.tool_call_id)
        if entry is None:
            return self._create_tool_call(tool_call, fields)
        self._merge_tool_call(entry, tool_call, fields)
        return entry

    def set_disk_notes(self, tool_call_id: str, notes: list[str]) -> None:
        """What landed on disk differs from the call's diffs (notes), or no longer does ([])."""
        entry = self.tool_calls.get(tool_call_id)
        if entry is not None and entry.disk_notes != notes:
            entry.disk_notes = list(notes)
            self.changed.emit(ch.EntryChanged(entry))

    def ask_permission(self, tool_call_id: str, ask: PermissionAsk) -> ToolCallEntry:
        """A permission request about a tool call (one never seen becomes a new entry)."""
        entry = self.tool_calls.get(tool_call_id)
        if entry is None:
            update = ToolCallUpdate(tool_call_id=tool_call_id)
            entry = self._create_tool_call(update, {"tool_call_id"})
        entry.permissions.append(ask)
        if ask.asked and ask.open:
            self.permission_queue.add(ask, entry)
        self.changed.emit(ch.PermissionChanged(entry, ask))
        return entry

    def settle_permission(self, tool_call_id: str, request_id: int, answer: str) -> None:
        """The permission request `request_id` about the tool call was answered."""
        entry = self.tool_calls.get(tool_call_id)
        asks = entry.permissions if entry is not None else []
        ask = next((a for a in asks if a.request_id == request_id), None)
        if entry is None or ask is None or not ask.open:
            return
        ask.answer = answer
        ask.respond = None
        promoted = self.permission_queue.remove(request_id)
        self.changed.emit(ch.PermissionChanged(entry, ask))
        if promoted is not None:  # the next question in line is asked now
            head = next(a for a in promoted.permissions if a.current)
            self.changed.emit(ch.PermissionChanged(promoted, head, moved=True))
        waiting = [entry for _, entry in self.permission_queue.waiting()[1:]]
        if waiting:  # they moved up: their cards say how many questions are before them
            self.changed.emit(ch.PermissionQueueMoved(waiting))

    # ---- helpers --------------------------------------------------------------------------------

    def _end_echo(self) -> str:
        """Stop treating user chunks as an echo; returns held text that was not one after all."""
        echo, self._echo = self._echo, None
        return echo.not_an_echo() if echo is not None else ""

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _add_entry(self, entry: Entry) -> None:
        self._break_coalescing = False
        if self.mark_background and self.had_turn and not self.turn_running and not _is_user(entry):
            self.background.add(entry.id)
        self.entries.append(entry)
        self.changed.emit(ch.EntryAdded(entry))

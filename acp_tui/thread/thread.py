"""The session as data: a reducer from `session/update` to conversation state.

Not pure: it updates its state in place and reads a clock (for tool-call timings), but does no
I/O, no asyncio, no UI. Feed it typed updates (`apply`, or `apply_update` with what
`protocol.session_updates` read from a `session/update` notification) and client-side events
(`add_user_prompt`, `begin_turn`, ...); observe it with `subscribe`, which delivers
fine-grained `Change` events synchronously, after the state they describe has been updated.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from acp_tui.protocol.models import (
    AgentMessageChunk,
    AgentThoughtChunk,
    AvailableCommand,
    AvailableCommandsUpdate,
    CompactionSummaryChunk,
    CompactionUpdate,
    ConfigOptionUpdate,
    ContentBlock,
    Cost,
    CurrentModeUpdate,
    Notice,
    Plan,
    PlanEntry,
    PlanRemoved,
    PlanUpdate,
    SessionConfigOption,
    SessionInfoUpdate,
    SessionMessage,
    SessionMessageChunk,
    SessionMode,
    SessionModeState,
    SessionUpdate,
    SubagentUpdate,
    ToolCall,
    ToolCallUpdate,
    UnknownUpdate,
    UsageUpdate,
    UserMessageChunk,
)
from acp_tui.protocol.session_updates import (
    ParsedUpdate,
    TextChunk,
    notification_session_id,
    parse_update_notification,
)
from acp_tui.safe_text import safe_text
from acp_tui.signal import Signal, Unsubscribe
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.config_options import ModelState
from acp_tui.thread.entries import (
    CompactionEntry,
    Entry,
    MessageEntry,
    MessageRole,
    PlanState,
    ToolCallEntry,
    UnknownEntry,
)
from acp_tui.thread.permission import PermissionAsk, PermissionQueue
from acp_tui.thread.subagent_sessions import SUBAGENT_KINDS, SubagentSessions, short_error
from acp_tui.thread.thread_compactions import ThreadCompactions
from acp_tui.thread.thread_messages import CHUNK_ROLES, ThreadMessages
from acp_tui.thread.thread_plans import ThreadPlans
from acp_tui.thread.thread_settings import ThreadSettings
from acp_tui.thread.thread_tool_calls import ThreadToolCalls

log = logging.getLogger(__name__)

Listener = Callable[[ch.Change], None]

# What a session/load replays that a thread showing the conversation already has (a restart).
_REPLAYED_KINDS = frozenset(
    {*CHUNK_ROLES, "tool_call", "tool_call_update", "plan", "compaction_update"}
    | {"compaction_summary_chunk"}
)


def _is_user(entry: Entry) -> bool:
    return type(entry) is MessageEntry and entry.role == "user"


@dataclass
class UsageState:
    """Context window usage: `used` of `size` tokens, and the session's cost if reported."""

    used: int
    size: int
    cost: Cost | None = None


NOTICES_KEPT = 200
"""The agent's most recent notices kept (a flood of them must not grow without bound)."""


class Thread:
    """Conversation state of one session, updated in place by its reducer methods, observed
    via changes. Its messages, tool calls, compactions, plans and the agent's settings are parts
    it owns (`message_part`, `tool_call_part`, `compaction_part`, `agent_plans`,
    `agent_settings`), read through it."""

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        sessions: SubagentSessions | None = None,
    ) -> None:
        self._clock = clock
        self.sessions = SubagentSessions(self, self._child_thread) if sessions is None else sessions
        """The subagent sessions of the root session (shared by its children's threads)."""
        self.changed: Signal[ch.Change] = Signal("thread change")
        """Every change, synchronously, after it is applied."""
        self._next_id = 0
        self.generation = 0
        """Bumped by `reset` (another session opened in this thread)."""
        self.entries: list[Entry] = []
        self.message_part = ThreadMessages(self)
        """The messages: chunks coalesced, the prompt's echo held back, v2 upserts."""
        self.tool_call_part = ThreadToolCalls(self, clock)
        """The tool calls and the permission questions about them."""
        self.agent_plans = ThreadPlans(self)
        """The agent's plans (`plan`, `plans`), and their snapshot entries."""
        self.compaction_part = ThreadCompactions(self)
        """The agent's context compactions, one entry each."""
        self.notices: list[Notice] = []
        """The agent's most recent notices, in order (shown apart: not conversation entries);
        at most `NOTICES_KEPT` (twice that between trims)."""
        self.notice_count = 0
        """How many notices the agent sent (the oldest are forgotten past `NOTICES_KEPT`)."""
        self.agent_settings = ThreadSettings(self.changed)
        """The agent's modes, config options, models and commands."""
        self.usage: UsageState | None = None
        self.title: str | None = None
        self.updated_at: str | None = None
        self.turn_running = False
        self.last_stop_reason: str | None = None
        self.state = "idle"
        self.background_work: tuple[str, ...] | None = None
        """v2: what the agent's last state snapshot listed as running in the background (each
        as "kind id"); None when it reports none."""
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
        self._handlers: dict[type[Any], Callable[[Any], object]] = {
            AgentMessageChunk: self.message_part.on_chunk,
            AgentThoughtChunk: self.message_part.on_chunk,
            UserMessageChunk: self.message_part.on_chunk,
            ToolCall: self.tool_call_part.on_tool_call,
            ToolCallUpdate: self.tool_call_part.upsert,
            Plan: self.agent_plans.on_plan,
            PlanUpdate: self.agent_plans.on_plan_update,
            PlanRemoved: self.agent_plans.on_plan_removed,
            AvailableCommandsUpdate: self.agent_settings.on_commands,
            CurrentModeUpdate: self.agent_settings.on_current_mode,
            ConfigOptionUpdate: self.agent_settings.on_config_options,
            SessionInfoUpdate: self._on_info,
            UsageUpdate: self._on_usage,
            Notice: self._on_notice,
            CompactionUpdate: self.compaction_part.on_update,
            CompactionSummaryChunk: self.compaction_part.on_summary_chunk,
            SubagentUpdate: lambda u: self.sessions.on_subagent_update(self, u),
            SessionMessage: lambda u: self.sessions.on_session_message(self, u),
            SessionMessageChunk: lambda u: self.sessions.on_session_message_chunk(self, u),
            UnknownUpdate: self._on_unknown,
        }

    def _child_thread(self, sessions: SubagentSessions) -> Thread:
        """A child session's own thread (same clock, the root's subagent sessions)."""
        return Thread(clock=self._clock, sessions=sessions)

    # ---- the parts' state, read through the thread (written by the parts only) ------------------

    @property
    def tool_calls(self) -> dict[str, ToolCallEntry]:
        """The tool calls by id (nested ones included)."""
        return self.tool_call_part.by_id

    @property
    def permission_queue(self) -> PermissionQueue[ToolCallEntry]:
        """The permission questions waiting for the user, oldest (the one asked) first."""
        return self.tool_call_part.permission_queue

    @property
    def compactions(self) -> dict[str, CompactionEntry]:
        """The agent's context compactions by id."""
        return self.compaction_part.by_id

    @property
    def plan(self) -> list[PlanEntry] | None:
        """The session's plan (v1 `plan`), if the agent sent one."""
        return self.agent_plans.plan

    @property
    def plans(self) -> dict[str, PlanState]:
        """The plans by id (unstable `plan_update`)."""
        return self.agent_plans.plans

    @property
    def modes(self) -> list[SessionMode]:
        return self.agent_settings.modes

    @property
    def current_mode_id(self) -> str | None:
        return self.agent_settings.current_mode_id

    @property
    def commands(self) -> list[AvailableCommand]:
        return self.agent_settings.commands

    @property
    def config_options(self) -> list[SessionConfigOption]:
        return self.agent_settings.config_options

    @property
    def models(self) -> ModelState | None:
        return self.agent_settings.models

    def set_current_mode(self, mode_id: str) -> None:
        """The current mode (after session/set_mode or a current_mode_update); emits if changed."""
        self.agent_settings.set_current_mode(mode_id)

    def set_modes(self, state: SessionModeState | None) -> None:
        """The modes from a session/new or session/load response (None: no modes)."""
        self.agent_settings.set_modes(state)

    def set_config_options(self, options: Sequence[SessionConfigOption | Any] | None) -> None:
        """The config options from a session response or config_option_update (None: none)."""
        self.agent_settings.set_config_options(options)

    def set_models(self, models: ModelState | None) -> None:
        """The unstable `models` state from a session response (None: the agent has none)."""
        self.agent_settings.set_models(models)

    def set_current_model(self, model_id: str) -> None:
        """The current model after `session/set_model` succeeded."""
        self.agent_settings.set_current_model(model_id)

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
        """Apply the raw params of a `session/update` notification (read in protocol/:
        `parse_update_notification`)."""
        sessions = self.sessions
        if (sessions.children or sessions.refused_count) and sessions.divert(
            self, notification_session_id(params), params, lambda c: c.apply_notification(params)
        ):
            return  # a subagent session's own traffic, or a refused child's
        update = parse_update_notification(params)
        if type(update) is TextChunk and not self.skip_replayed:  # the hot path, inlined
            self.message_part.append_text(
                CHUNK_ROLES[update.session_update], update.text, update.message_id
            )
        else:
            self.apply_update(update)

    def apply_update(self, update: ParsedUpdate) -> None:
        """Apply a parsed `session/update`: a plain `TextChunk` straight to its message (the
        streaming hot path), anything else through `apply`. While `skip_replayed` is set, what
        a `session/load` replays is dropped."""
        if self.skip_replayed and update.session_update in _REPLAYED_KINDS:
            return
        if isinstance(update, TextChunk):
            self.message_part.append_text(
                CHUNK_ROLES[update.session_update], update.text, update.message_id
            )
        else:
            self.apply(update)

    def _on_info(self, update: SessionInfoUpdate) -> None:
        sent = update.model_fields_set
        if "title" in sent:
            self.title = update.title
        if "updated_at" in sent:
            self.updated_at = update.updated_at
        self.changed.emit(ch.InfoChanged())

    def rename(self, title: str) -> None:
        """The session has a new title (the user renamed it; `session/set_title`)."""
        self.title = safe_text(title)
        self.changed.emit(ch.InfoChanged())

    def _on_usage(self, update: UsageUpdate) -> None:
        self.usage = UsageState(update.used, update.size, update.cost)
        self.changed.emit(ch.UsageChanged())

    def _on_notice(self, update: Notice) -> None:
        self.notices.append(update)
        self.notice_count += 1
        if len(self.notices) >= 2 * NOTICES_KEPT:  # trimmed now and then: amortised O(1)
            del self.notices[:-NOTICES_KEPT]
        self.changed.emit(ch.NoticeReceived(update))

    def _on_unknown(self, update: UnknownUpdate) -> None:
        if update.session_update in SUBAGENT_KINDS:
            # a subagent update that does not read: never an unknown entry (its lane is marked)
            if self.sessions.on_malformed(self, update.named_session, update.error):
                self._on_notice(malformed_subagent_notice(update.error))
            return
        self._add_entry(UnknownEntry(update.raw, update.error, id=self._new_id()))

    # ---- client-driven changes ------------------------------------------------------------------

    def add_user_prompt(self, blocks: list[ContentBlock]) -> MessageEntry:
        """The prompt the user sent, as a new user message (never merged into a previous one)."""
        return self.message_part.add_user_prompt(blocks)

    def begin_turn(self) -> None:
        """A prompt turn started; the next chunk starts a new message."""
        self.set_state("running")

    def end_turn(self, stop_reason: str | None) -> None:
        """The prompt turn ended (`stop_reason` from the PromptResponse, None on error)."""
        self.set_state("idle", stop_reason)

    def set_state(
        self, state: str, stop_reason: str | None = None, error: str | None = None
    ) -> None:
        """The turn as state: v1 derives it from the prompt request, v2 from `state_update`.

        Anything but "idle" is a running turn; going idle records `stop_reason` (and, for an
        `error` stop, `error`: what failed, in words).
        """
        running = state != "idle"
        if state == self.state and running:
            return  # (idle → idle is reported: a v1 turn that failed before it ran)
        self.message_part.turn_changed(running)
        self.state = state
        self.turn_running = running
        self.had_turn = self.had_turn or running
        if not running:
            self.last_stop_reason = stop_reason
            self.tool_call_part.place_orphans()  # their parent never came
        ended = None if running else stop_reason
        failure = None if running else error
        self.changed.emit(ch.TurnStateChanged(running, ended, state, failure))

    def mark_background_entry(self, entry: Entry) -> None:
        """`entry` changed while idle: it is background activity (emits if newly marked)."""
        if entry.id not in self.background:
            self.background.add(entry.id)
            self.changed.emit(ch.EntryChanged(entry))

    def needs_user(self) -> bool:
        """The agent said its work waits for the user (a `requires_action` state snapshot: v2's
        `state_update`, or a subagent session's), beyond the questions it asked."""
        return self.state == "requires_action" or self.sessions.waiting_for_user() > 0

    def works(self) -> bool:
        """A turn runs, or a subagent session's work does (its state snapshot says so)."""
        return self.turn_running or self.sessions.running() > 0

    def waiting_permission(self) -> bool:
        """A tool call of the thread has a permission request waiting for an answer (every
        question asked and not answered is in `permission_queue`: no walk over the calls)."""
        return len(self.permission_queue) > 0

    def cancel_unfinished_tool_calls(self) -> list[ToolCallEntry]:
        """Mark every tool call not yet finished as "cancelled" (client-side); returns them."""
        return self.tool_call_part.cancel_unfinished()

    def reset(self) -> None:
        """Forget the conversation and the session's state, to open another session in this
        thread (listeners stay subscribed; entry ids keep counting up)."""
        self.generation += 1
        if self.sessions.root is self:
            self.sessions.reset()
        self.message_part.reset()
        self.entries = []
        self.tool_call_part.reset()
        self.agent_plans.reset()
        self.compaction_part.reset()
        self.notices = []
        self.notice_count = 0
        self.agent_settings.reset()
        self.usage = None
        self.title = None
        self.updated_at = None
        self.turn_running = False
        self.last_stop_reason = None

    def carry_title(self, title: str | None) -> None:
        """Keep the title of the session this one branched from, until the agent names it (a
        new branch by rewind or a fork from a message goes on with the same work)."""
        if title and self.title is None:
            self.title = title
            self.changed.emit(ch.InfoChanged())

    def upsert_tool_call(self, tool_call: ToolCallUpdate) -> ToolCallEntry:
        """Merge `tool_call` into the entry with its id, or add it as a new entry (a permission
        request may name a tool call never announced, or carry fields newer than its updates)."""
        return self.tool_call_part.upsert(tool_call)

    def set_disk_notes(self, tool_call_id: str, notes: list[str]) -> None:
        """What landed on disk differs from the call's diffs (notes), or no longer does ([])."""
        self.tool_call_part.set_disk_notes(tool_call_id, notes)

    def ask_permission(self, tool_call_id: str, ask: PermissionAsk) -> ToolCallEntry:
        """A permission request about a tool call (one never seen becomes a new entry)."""
        return self.tool_call_part.ask_permission(tool_call_id, ask)

    def settle_permission(self, tool_call_id: str, request_id: int, answer: str) -> None:
        """The permission request `request_id` about the tool call was answered."""
        self.tool_call_part.settle_permission(tool_call_id, request_id, answer)

    # ---- upserts by id (the v2 reducer, `thread/v2/updates.py`) ----------------------------------

    def track_background(self) -> None:
        """From now on, entries that arrive or change while idle are background activity (v2)."""
        self.mark_background = True

    def set_background_work(self, work: tuple[str, ...] | None) -> None:
        """What the agent's last state snapshot lists as running in the background (v2)."""
        if work != self.background_work:
            self.background_work = work
            self.changed.emit(ch.BackgroundWorkChanged())

    def add_message(
        self, role: MessageRole, blocks: list[ContentBlock], message_id: str | None
    ) -> MessageEntry:
        """A new message at the end of the conversation (never coalesced into the last one)."""
        return self.message_part.add(role, blocks, message_id)

    def append_to_message(self, entry: MessageEntry, block: ContentBlock) -> None:
        """One more block of `entry`, wherever it is (text merges into a trailing text block)."""
        self.message_part.append_block(entry, block)

    def replace_message(
        self, entry: MessageEntry, blocks: list[ContentBlock], message_id: str | None = None
    ) -> None:
        """`entry`'s content is now `blocks` (v2: an array replaces, null clears); with
        `message_id`, the agent's id for a message shown before it had one."""
        self.message_part.replace(entry, blocks, message_id)

    def tool_call(self, tool_call_id: str) -> ToolCallEntry:
        """The tool call with this id; one never announced becomes a new entry."""
        return self.tool_call_part.get_or_create(tool_call_id)

    def add_tool_call(self, update: ToolCallUpdate, fields: set[str]) -> ToolCallEntry:
        """A tool call first seen in `update` (its `fields` sent), as a new entry."""
        return self.tool_call_part.create(update, fields)

    def patch_tool_call(
        self, entry: ToolCallEntry, values: dict[str, Any], *, can_cancel: bool | None = None
    ) -> None:
        """Set `values` on the call's fields as they are (v2 patch semantics decided by the
        caller), and whether the client may cancel it (None: unchanged); a status change
        stamps its times. Emits even when nothing changed (the reducer's `EntryChanged`)."""
        self.tool_call_part.patch(entry, values, can_cancel)

    def append_tool_content(self, entry: ToolCallEntry, item: Any) -> None:
        """One more content item of the call (v2 `tool_call_content_chunk`)."""
        self.tool_call_part.append_content(entry, item)

    # ---- helpers --------------------------------------------------------------------------------

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def next_entry_id(self) -> int:
        """A new entry id of this thread (for an entry placed with `place_entry`)."""
        return self._new_id()

    def place_entry(self, entry: Entry) -> None:
        """Add an entry made elsewhere in the thread package (a subagent lane, a session
        message) at the end of the conversation."""
        self._add_entry(entry)

    def entry_changed(self, entry: Entry) -> None:
        """An entry placed with `place_entry` changed: tell the listeners."""
        self.changed.emit(ch.EntryChanged(entry))

    def _add_entry(self, entry: Entry) -> None:
        self.message_part.entry_added()
        if self.mark_background and self.had_turn and not self.turn_running and not _is_user(entry):
            self.background.add(entry.id)
        self.entries.append(entry)
        self.changed.emit(ch.EntryAdded(entry))


def malformed_subagent_notice(error: str | None) -> Notice:
    """What the thread says (once) of a malformed subagent update that names no child."""
    why = short_error(error)
    return Notice.model_validate(
        {
            "severity": "warning",
            "title": "The agent sent a malformed subagent update (ignored)",
            "description": f"{why}\nThe inspector marks each one.",
        }
    )

"""The agent's plans as the thread keeps them: the session's plan (v1 `plan`) and plans by id
(unstable `plan_update`/`plan_removed`), each shown in the conversation as one snapshot entry
per turn, updated in place.

A part `Thread` owns (`Thread.plans_part`): it sees the thread through `PlanHost`, adds its
entries and emits on the thread's signal through it.
"""

from __future__ import annotations

from typing import Protocol

from acp_tui.protocol.models import Plan, PlanEntry, PlanRemoved, PlanUpdate, UnknownUpdate, to_wire
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.entries import MessageEntry, PlanSnapshotEntry, PlanState
from acp_tui.thread.part_host import EntryReading
from acp_tui.thread.plans import plan_state


class PlanHost(EntryReading, Protocol):
    """What the plans need of their `Thread`: entries read and placed, and unknown updates
    applied."""

    def apply(self, update: UnknownUpdate) -> None:
        """Apply an update the thread shows as unknown."""


class ThreadPlans:
    """The plans of one thread (see the module docstring)."""

    def __init__(self, thread: PlanHost) -> None:
        self._thread = thread
        self.plan: list[PlanEntry] | None = None
        """The session's plan (v1 `plan`), if the agent sent one."""
        self.plans: dict[str, PlanState] = {}
        """The plans by id (unstable `plan_update`), in the order they came."""

    def reset(self) -> None:
        """Forget every plan (another session opens in the thread)."""
        self.plan = None
        self.plans = {}

    def on_plan(self, update: Plan) -> None:
        self.plan = list(update.entries)
        state = PlanState(plan_id=None, entries=list(update.entries), meta=update.meta)
        self._thread.changed.emit(ch.PlanChanged(None))
        self._snapshot(state)

    def on_plan_update(self, update: PlanUpdate) -> None:
        state = plan_state(update)
        if state is None or state.plan_id is None:
            self._thread.apply(UnknownUpdate(raw=to_wire(update), error="plan without an id"))
            return
        self.plans[state.plan_id] = state
        self._thread.changed.emit(ch.PlanChanged(state.plan_id))
        self._snapshot(state)

    def _snapshot(self, state: PlanState) -> None:
        """One live snapshot of a plan per turn: an update changes the turn's snapshot of that
        plan in place (wherever it is), else it is added; a later turn starts its own, and the
        earlier keeps its last state (the history, the export)."""
        live = self._turns_snapshot(state.plan_id)
        if live is not None:
            live.plan = state
            live.removed = False
            self._thread.changed.emit(ch.EntryChanged(live))
        else:
            self._thread.place_entry(PlanSnapshotEntry(state, id=self._thread.next_entry_id()))

    def _turns_snapshot(self, plan_id: str | None) -> PlanSnapshotEntry | None:
        """The snapshot of `plan_id` since the user's last prompt, if any."""
        for entry in reversed(self._thread.entries):
            if type(entry) is PlanSnapshotEntry and entry.plan_id == plan_id:
                return entry
            if type(entry) is MessageEntry and entry.role == "user":
                return None
        return None

    def on_plan_removed(self, update: PlanRemoved) -> None:
        if self.plans.pop(update.plan_id, None) is None:
            return
        self._thread.changed.emit(ch.PlanRemoved(update.plan_id))
        for entry in self._thread.entries:
            if (
                type(entry) is PlanSnapshotEntry
                and entry.plan_id == update.plan_id
                and not entry.removed
            ):
                entry.removed = True
                self._thread.changed.emit(ch.EntryChanged(entry))

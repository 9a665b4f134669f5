"""The agent's plans as the thread keeps them: the session's plan (v1 `plan`) and plans by id
(unstable `plan_update`/`plan_removed`), each shown in the conversation as one snapshot entry
per turn, updated in place.

A part of `Thread` (its base class), emitting on the thread's signal.
"""

from __future__ import annotations

from acp_tui.protocol.models import Plan, PlanEntry, PlanRemoved, PlanUpdate, UnknownUpdate, to_wire
from acp_tui.signal import Signal
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.entries import Entry, MessageEntry, PlanSnapshotEntry, PlanState
from acp_tui.thread.plans import plan_state


class ThreadPlans:
    """The plan handlers of `Thread` (see the module docstring)."""

    changed: Signal[ch.Change]
    entries: list[Entry]
    plan: list[PlanEntry] | None
    plans: dict[str, PlanState]

    def _add_entry(self, entry: Entry) -> None:
        raise NotImplementedError

    def _new_id(self) -> int:
        raise NotImplementedError

    def _on_unknown(self, update: UnknownUpdate) -> None:
        raise NotImplementedError

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
        """One live snapshot of a plan per turn: an update changes the turn's snapshot of that
        plan in place (wherever it is), else it is added; a later turn starts its own, and the
        earlier keeps its last state (the history, the export)."""
        live = self._turns_snapshot(state.plan_id)
        if live is not None:
            live.plan = state
            live.removed = False
            self.changed.emit(ch.EntryChanged(live))
        else:
            self._add_entry(PlanSnapshotEntry(state, id=self._new_id()))

    def _turns_snapshot(self, plan_id: str | None) -> PlanSnapshotEntry | None:
        """The snapshot of `plan_id` since the user's last prompt, if any."""
        for entry in reversed(self.entries):
            if type(entry) is PlanSnapshotEntry and entry.plan_id == plan_id:
                return entry
            if type(entry) is MessageEntry and entry.role == "user":
                return None
        return None

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

"""Permission requests into the session model: each one becomes state of its tool call.

`show_permissions_in(thread, broker)` is the one place that follows the broker: a request the
user must answer becomes a `PermissionAsk` on its tool call (options, what "always" covers, and
the responder that answers the agent); its answer, whoever gives it (the user, a rule, a
cancel), is recorded on the same ask at once; a request answered without asking becomes an
answered ask. The UI renders the tool call; it never follows the broker or its futures.
"""

from __future__ import annotations

from collections.abc import Callable

from acp_tui.host.permissions import AutoAnswered, PendingPermission, PermissionBroker
from acp_tui.thread.permission import PermissionAsk
from acp_tui.thread.thread import Thread


def show_permissions_in(thread: Thread, broker: PermissionBroker) -> Callable[[], None]:
    """Follow `broker`'s requests into `thread`; returns a function that stops."""

    def presented(pending: PendingPermission) -> None:
        tool_call_id = pending.tool_call_id
        if tool_call_id is None:
            return
        ask = PermissionAsk(pending.id, pending.offered, pending.answer, pending.covers)
        thread.ask_permission(tool_call_id, ask)

    def settled(pending: PendingPermission) -> None:
        if pending.tool_call_id is not None:
            thread.settle_permission(pending.tool_call_id, pending.id, pending.describe_answer())

    def auto_answered(event: AutoAnswered) -> None:
        tool_call_id = event.pending.tool_call_id
        if tool_call_id is not None:
            ask = PermissionAsk(event.pending.id, answer=event.description, asked=False)
            thread.ask_permission(tool_call_id, ask)

    stops = [
        broker.subscribe(presented),
        broker.subscribe_settled(settled),
        broker.subscribe_auto_answers(auto_answered),
    ]

    def stop() -> None:
        for unsubscribe in stops:
            unsubscribe()

    return stop

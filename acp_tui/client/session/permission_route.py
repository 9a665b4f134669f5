"""Where the agent's permission request is asked (v1's and v2's): a subagent's in its root
session's tab, anyone else's on its own tool call's card. Apart from `routes.py` so that v2's
session, which `routes.py` names, can ask through it without a cycle."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acp_tui.host.permissions import PermissionBroker
from acp_tui.thread.thread import Thread

if TYPE_CHECKING:
    from acp_tui.protocol.models import RequestPermissionRequest


async def request_permission(
    thread: Thread, permissions: PermissionBroker, params: RequestPermissionRequest
) -> dict[str, Any]:
    """`session/request_permission` (v1's and v2's): the ask becomes state of its tool call; the
    broker answers (a rule, the policy, or the user on the card). A subagent session's request is
    asked here, in its root session's tab (`SubagentSessions.asked_call`); one from a child that
    was refused or never announced is answered cancelled, never left waiting.

    Args:
        thread: the session's thread (its tool calls, its subagent sessions).
        permissions: the session's permission broker.
        params: the agent's request.
    """
    sessions = thread.sessions
    if sessions.route(params.session_id) is not None:
        tool_call = sessions.asked_call(params.session_id, params.tool_call)
        params = params.model_copy(update={"tool_call": tool_call})
    elif sessions.drops(params.session_id) and (sessions.children or sessions.refused_count):
        return {"outcome": {"outcome": "cancelled"}}
    thread.upsert_tool_call(params.tool_call)
    return await permissions.request(params)

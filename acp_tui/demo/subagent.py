"""The demo's `/subagent`: what the current ACP schema adds, shown without a real agent.

To a client that asks for subagent sessions (`clientCapabilities.subagents`) the demo announces a
child (`subagent_update`: title, description, `running`, `cancel` offered), sends it its task
(`session_message`), lets it think, read and search under its own session id, asks permission
for one of its calls (the child waits: `requires_action`), then reports it `idle` and sends its
answer back to the parent. Then a `notice` (to a client that asks for notices) and a rename
(`session_info_update`). A client that does not ask is told so in words, as an agent must.
Stdlib only (the demo agent's rule).
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable
from typing import Any, Protocol

from acp_tui.demo.turn_api import JsonObject, RpcError, Session, text_block, tool_text
from acp_tui.protocol import methods
from acp_tui.protocol.permission_outcome import selected_option_id


class SubagentPeer(Protocol):
    """What the demo needs of the connection (the demo's `turn.Peer` has it)."""

    client_capabilities: JsonObject

    def update(self, session: Session, update: JsonObject) -> Awaitable[None]:
        """Send a session/update for `session`."""

    def request(self, method: str, params: JsonObject) -> Awaitable[Any]:
        """Ask the client and wait for its answer."""


class Turn(Protocol):
    """What the demo needs of the running turn (the demo's `turn.Turn` has it)."""

    @property
    def peer(self) -> SubagentPeer:
        """The connection."""

    @property
    def session(self) -> Session:
        """The parent session."""

    def send(self, update: JsonObject) -> Awaitable[None]:
        """Send an update of the parent session."""

    def say(self, text: str) -> Awaitable[None]:
        """Stream an agent message."""

    def pause(self) -> Awaitable[None]:
        """Wait a step's pause."""

    def path(self, relative: str) -> str:
        """An absolute path in the session directory."""


CHILD_TITLE = "Survey the code"
CHILD_TASK = "Find where tasks are rendered in src/app.py and say what could be simpler."
CHILD_ANSWER = (
    "render() in src/app.py builds each line by hand; a format string per task would do. "
    "TodoList.add() could return the new task's index instead."
)
RENAMED = "acp-tui demo: a subagent surveyed the code"
_children = itertools.count(1)


def _asked(capabilities: Any, *keys: str) -> bool:
    """Whether the client's capabilities hold an object at `keys` (the way to ask)."""
    for key in keys:
        if not isinstance(capabilities, dict):
            return False
        capabilities = capabilities.get(key)
    return isinstance(capabilities, dict)


async def subagent_demo(turn: Turn) -> None:
    """Play the subagent demo in `turn` (see the module docstring)."""
    capabilities = turn.peer.client_capabilities
    if not _asked(capabilities, "subagents"):
        await turn.say(
            "Your client did not ask for subagent sessions (`clientCapabilities.subagents`), so "
            "I will not send any: this is where a subagent would have worked."
        )
        return
    parent = turn.session
    child = Session(id=f"{parent.id}/subagent-{next(_children)}", cwd=parent.cwd)
    await turn.say("I'll ask a subagent to survey the code.\n\n")

    async def announce(**fields: Any) -> None:
        update = {"sessionUpdate": "subagent_update", "sessionId": child.id, **fields}
        await turn.send(update)

    async def in_child(update: dict[str, Any]) -> None:
        await turn.peer.update(child, update)

    await announce(
        title=CHILD_TITLE,
        description="reads src/app.py and reports back",
        state={"state": "running"},
        capabilities={"cancel": {}},
    )
    message_id = f"task-{child.id}"
    task = {
        "sessionUpdate": "session_message",
        "messageId": message_id,
        "senderSessionId": parent.id,
        "recipientSessionId": child.id,
        "content": [text_block(CHILD_TASK)],
    }
    await turn.send(task)
    await in_child({**task, "recipientMessageId": None})
    await turn.pause()
    thought = "Reading src/app.py first, then searching for render."
    await in_child({"sessionUpdate": "agent_thought_chunk", "content": text_block(thought)})
    path = turn.path("src/app.py")
    read = {"sessionUpdate": "tool_call", "toolCallId": "sub_1", "title": "Read src/app.py",
            "name": "Read", "kind": "read", "status": "completed",
            "locations": [{"path": path}]}  # fmt: skip
    await in_child(read)
    await turn.pause()
    search = {"sessionUpdate": "tool_call", "toolCallId": "sub_2", "title": "Search 'render'",
              "name": "Grep", "kind": "search", "status": "in_progress"}  # fmt: skip
    await in_child(search)
    await turn.pause()
    found = tool_text("src/app.py:31:def render")
    await in_child({"sessionUpdate": "tool_call_update", "toolCallId": "sub_2",
                    "status": "completed", "content": found})  # fmt: skip
    note = {"sessionUpdate": "tool_call", "toolCallId": "sub_3", "title": "Write notes/survey.md",
            "name": "Write", "kind": "edit", "status": "pending"}  # fmt: skip
    await in_child(note)
    await announce(state={"state": "requires_action"})
    allowed = await _ask(turn, child, note)
    await announce(state={"state": "running"})
    await in_child({"sessionUpdate": "tool_call_update", "toolCallId": "sub_3",
                    "status": "completed" if allowed else "failed",
                    "content": tool_text("(the demo writes nothing)" if allowed else
                                         "You said no: nothing written.")})  # fmt: skip
    await in_child({"sessionUpdate": "agent_message_chunk", "content": text_block(CHILD_ANSWER)})
    usage = {"totalTokens": 900, "inputTokens": 700, "outputTokens": 200}
    await announce(state={"state": "idle", "stopReason": "end_turn", "usage": usage})
    await turn.send({"sessionUpdate": "session_message", "messageId": f"{message_id}:reply",
                     "senderSessionId": child.id, "recipientSessionId": parent.id,
                     "content": [text_block(CHILD_ANSWER)]})  # fmt: skip
    if _asked(capabilities, "session", "notices"):
        await turn.send({"sessionUpdate": "notice", "severity": "info",
                         "title": "The subagent finished",
                         "description": "Its lane above holds everything it did."})  # fmt: skip
    await turn.send({"sessionUpdate": "session_info_update", "title": RENAMED})
    await turn.say("\n\nThe subagent is done: open its lane above (Enter) to see its work.")


async def _ask(turn: Turn, child: Session, tool_call: dict[str, Any]) -> bool:
    """The child's permission request (under its session id); False unless allowed."""
    options = [
        {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
        {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
    ]
    call = {key: value for key, value in tool_call.items() if key != "sessionUpdate"}
    params = {"sessionId": child.id, "toolCall": call, "options": options}
    try:
        answer = await turn.peer.request(methods.SESSION_REQUEST_PERMISSION, params)
    except RpcError:
        return False
    return selected_option_id(answer) == "allow"

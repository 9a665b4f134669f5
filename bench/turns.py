"""What an agent sends in one turn of a long session, for the benchmarks and the UI tests.

Each turn: a user prompt, a tool call that starts and completes, then ~2 KB of Markdown
(prose, a list, a code fence) as `agent_message_chunk`s.
"""

from __future__ import annotations

from typing import Any

from acp_tui.client.session.agent_session import AgentSession
from acp_tui.protocol.models import text_block

SESSION = "bench"


def turn_markdown(turn: int) -> str:
    prose = (
        f"Turn {turn}: the agent looked at the session, read the files it needed and "
        "explains what it found in a few sentences of plain prose so that the message "
        "has some body to wrap across the width of the conversation view. "
    ) * 5
    items = "\n".join(f"- item {i} of turn {turn} with `inline code`" for i in range(6))
    code = "\n".join(f"    value_{i} = compute({i}, turn={turn})" for i in range(12))
    return f"## Result {turn}\n\n{prose}\n\n{items}\n\n```python\ndef f():\n{code}\n```\n\nDone.\n"


def update(variant: str, /, **fields: Any) -> dict[str, Any]:
    """A `session/update` notification's params."""
    return {"sessionId": SESSION, "update": {"sessionUpdate": variant, **fields}}


def start_turn(session: AgentSession, turn: int) -> None:
    """The prompt, and a tool call that starts."""
    thread = session.thread
    thread.add_user_prompt([text_block(f"prompt {turn}: please do the thing")])
    thread.begin_turn()
    thread.apply_notification(
        update(
            "tool_call",
            toolCallId=f"call-{turn}",
            title=f"Read file {turn}",
            kind="read",
            status="in_progress",
            locations=[{"path": f"/src/f{turn}.py", "line": 3}],
        )
    )


def complete_tool_call(session: AgentSession, turn: int) -> None:
    session.thread.apply_notification(
        update(
            "tool_call_update",
            toolCallId=f"call-{turn}",
            status="completed",
            content=[{"type": "content", "content": {"type": "text", "text": "42 lines"}}],
        )
    )


def chunks(turn: int, size: int) -> list[dict[str, Any]]:
    """The turn's answer as `agent_message_chunk` notifications of ``size`` characters."""
    text = turn_markdown(turn)
    return [
        update("agent_message_chunk", content={"type": "text", "text": text[i : i + size]})
        for i in range(0, len(text), size)
    ]


def feed_turn(session: AgentSession, turn: int, chunk: int = 8) -> None:
    """A whole turn at once (no frame painted in between)."""
    start_turn(session, turn)
    complete_tool_call(session, turn)
    for notification in chunks(turn, chunk):
        session.thread.apply_notification(notification)
    session.thread.end_turn("end_turn")

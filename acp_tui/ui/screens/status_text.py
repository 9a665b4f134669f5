"""What the main screen's status bar says of a session: its usage and cost, its v2 activity."""

from __future__ import annotations

from acp_tui.thread.thread import Thread, UsageState
from acp_tui.ui.widgets.status_bar import format_tokens


def activity_text(thread: Thread) -> str:
    """The v2 turn state for the status bar (`requires_action` names what waits: f4 goes), and
    how much work the agent says runs in the background."""
    text = _state_text(thread)
    work = len(thread.background_work or ())
    if work:
        text = f"{text} · {work} in background" if text else f"{work} in background"
    return text


def _state_text(thread: Thread) -> str:
    state = thread.state
    if state == "idle":
        reason = thread.last_stop_reason
        return f"idle · {reason}" if reason else "idle"
    if state == "requires_action":
        waiting = next(
            (e for e in thread.tool_calls.values() if e.open_permission is not None), None
        )
        what = (waiting.title or "a tool call") if waiting is not None else "you"
        return f"requires action: {what} (f4)"
    return "" if state == "running" else state


def describe_usage(usage: UsageState | None) -> str:
    """The status bar's usage text, e.g. "12.3k/200.0k tokens (6%)  $0.42"; empty without usage."""
    if usage is None:
        return ""
    used, size = usage.used, usage.size
    text = f"{format_tokens(used)}"
    if size:
        text += f"/{format_tokens(size)} tokens ({used * 100 // size}%)"
    else:
        text += " tokens"
    cost = usage.cost
    if cost is not None:
        symbol = "$" if cost.currency == "USD" else f"{cost.currency} "
        text += f"  {symbol}{cost.amount:.2f}"
    return text

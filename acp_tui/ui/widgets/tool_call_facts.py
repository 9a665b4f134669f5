"""What a tool call shows, read from its entry: kind icons, status labels, raw values as text,
whether it ran a command and where its output is, whether it folds when done.

Plain functions of a `ToolCallEntry` (no widgets), used by the card's drawing (`card_lines`).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from rich.text import Text

from acp_tui.host.terminals import Terminal
from acp_tui.protocol import models as m
from acp_tui.safe_text import safe_line, safe_text
from acp_tui.thread.entries import ToolCallEntry
from acp_tui.thread.v2.agent_terminals import AgentTerminal
from acp_tui.ui.widgets.status_bar import format_elapsed

KIND_ICONS = {
    "read": "⇲",
    "edit": "✎",
    "delete": "✗",
    "move": "⇄",
    "search": "⌕",
    "execute": "▶",
    "think": "◆",
    "fetch": "⇣",
    "switch_mode": "⇆",
    "other": "•",
}
STATUS_LOOK = {
    "pending": ("○ pending", "dim"),
    "in_progress": ("◐ running", "bold yellow"),
    "paused": ("‖ paused", "yellow"),  # v2: background work waiting (not finished)
    "completed": ("✓ completed", "green"),
    "failed": ("✗ failed", "bold red"),
    "cancelled": ("⊘ cancelled", "magenta"),
}
RUNNING = frozenset({"pending", "in_progress"})

TerminalLookup = Callable[[str], Terminal | AgentTerminal | None]


# Where agents that return a command's output only in rawOutput put it (codex-acp, OpenCode).
_RAW_OUTPUT_KEYS = ("output", "aggregated_output", "formatted_output", "stdout")


def ran_command(entry: ToolCallEntry) -> bool:
    """An execute call, or one whose input names a command (codex-acp calls `ls` "search")."""
    raw_input = entry.raw_input
    return entry.kind == "execute" or (isinstance(raw_input, dict) and "command" in raw_input)


def _has_text(entry: ToolCallEntry) -> bool:
    return any(
        isinstance(item, m.Content) and isinstance(item.content, m.TextContent)
        for item in entry.content
    )


def raw_command_output(entry: ToolCallEntry) -> str | None:
    """A command's output that only its rawOutput carries (no text content shows it)."""
    if not ran_command(entry) or _has_text(entry):
        return None
    raw = entry.raw_output
    if isinstance(raw, dict):
        raw = next((raw[k] for k in _RAW_OUTPUT_KEYS if isinstance(raw.get(k), str)), None)
    return raw if isinstance(raw, str) and raw.strip() else None


def shows_output(entry: ToolCallEntry) -> bool:
    """A command that returned text: its output stays in view (by its last lines)."""
    return ran_command(entry) and (_has_text(entry) or raw_command_output(entry) is not None)


def folds_when_done(entry: ToolCallEntry) -> bool:
    """A completed call folds to its header, unless it has a diff, a terminal or output."""
    if entry.status != "completed" or shows_output(entry):
        return False
    return not any(isinstance(item, m.Diff | m.Terminal) for item in entry.content)


def elapsed(entry: ToolCallEntry, now: float) -> float | None:
    """Seconds since the agent announced the call: until ``now`` while it runs, to its end once
    finished (a call asked about and then finished with no in_progress took that long too);
    None while it is pending (no clock runs on a call not started) or if it finished without
    a recorded end."""
    finished = entry.finished_at
    if finished is None:
        return now - entry.created_at if entry.status == "in_progress" else None
    return finished - entry.created_at


def waited(entry: ToolCallEntry, now: float) -> float | None:
    """Seconds of `elapsed` spent waiting for the user's permission answers; None if none
    was asked (or answered at once)."""
    seconds = entry.waited(now)
    return seconds if seconds >= 0.05 else None


def _seconds(seconds: float) -> str:
    return format_elapsed(seconds) if seconds >= 1 else f"{seconds:.1f}s"


def status_text(status: str, seconds: float | None, waited_for: float | None = None) -> Text:
    """A tool call's status mark and label, with its elapsed time if known and the part of it
    that waited for the user (`✓ completed 12s (waited 11s for you)`)."""
    label, style = STATUS_LOOK.get(status, (f"? {status}", "magenta"))
    text = Text(label, style=style)
    if seconds is not None:
        text.append(f" {_seconds(seconds)}", "dim")
        if waited_for is not None:
            text.append(f" (waited {_seconds(waited_for)} for you)", "dim")
    return text


def header_text(entry: ToolCallEntry, now: float) -> Text:
    """The card's header: kind icon, title, the tool's name (when the agent sends it and the
    title does not already say it), status and elapsed time."""
    kind = str(entry.kind or "other")
    text = Text(f"{KIND_ICONS.get(kind, '•')} ", style="bold")
    title = str(entry.title or "tool call")
    text.append(title, style="bold")
    name = entry.name
    if name and name != title:
        text.append(f" · {name}", style="dim")
    text.append("  ")
    text.append_text(status_text(str(entry.status), elapsed(entry, now), waited(entry, now)))
    return text


def format_raw(value: object) -> str:
    """A raw value the agent sent (rawInput, rawOutput, an unknown variant) as display text.

    Raw values are kept exact in the model (rules and reviews read them), so they are made
    safe here, where they are turned into text to show.
    """
    if isinstance(value, str):
        return safe_text(value)
    try:
        return safe_text(json.dumps(value, indent=2, ensure_ascii=False))
    except (TypeError, ValueError):
        return safe_text(repr(value))


def v2_patch_text(raw: object) -> Text | None:
    """A v2 diff (`changes` + a git patch) as coloured text (the patch is shown, not parsed as
    markup); None if it carries no patch text."""
    patch = raw.get("patch") if isinstance(raw, dict) else None
    body = patch.get("text") if isinstance(patch, dict) else None
    if not isinstance(body, str):
        return None
    text = Text()
    for line in body.splitlines()[:400]:
        line = safe_line(line)  # agent text: controls shown, never markup
        style = "green" if line.startswith("+") else "red" if line.startswith("-") else ""
        if line.startswith(("+++", "---", "@@")):
            style = "bold cyan" if line.startswith("@@") else "bold"
        text.append(line + "\n", style=style)
    return text

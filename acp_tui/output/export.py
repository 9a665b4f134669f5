"""A conversation as Markdown: messages, thoughts folded in `<details>`, plans, tool calls with
their diffs and terminal output.

Agent text is written as the agent sent it (it is Markdown already); code, diffs and outputs go
into fences longer than any backtick run inside them, so nothing can close a fence early. The
default file is `<session dir>/.acp-tui/conversation-<timestamp>.md`; the file host writes it
(`host/own_writes.py`: no symlink followed blindly, atomic, asked about when outside).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from acp_tui.thread.entries import (
    Entry,
    MessageEntry,
    PlanSnapshotEntry,
    ToolCallEntry,
    UnknownEntry,
)
from acp_tui.thread.subagent_sessions import SessionMessageEntry, SubagentLaneEntry

TerminalText = Callable[[str], str | None]
_STATUS_MARK = {"completed": "x", "in_progress": "~", "pending": " "}


def default_export_path(cwd: Path, now: datetime | None = None) -> Path:
    """Where /export writes by default: `.acp-tui/conversation-<timestamp>.md` in the session
    directory.
    """
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    return cwd / ".acp-tui" / f"conversation-{stamp}.md"


def export_path(cwd: Path, given: str) -> Path:
    """Where `/export [PATH]` writes: the default, or PATH (relative to the session dir)."""
    if not given.strip():
        return default_export_path(cwd)
    path = Path(given.strip()).expanduser()
    path = path if path.is_absolute() else cwd / path
    if path.is_dir():
        path = path / default_export_path(path).name
    return path


def fence(text: str, info: str = "") -> str:
    """`text` in a code fence longer than any backtick run inside it, so the text cannot close
    it.
    """
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    marks = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{marks}{info}\n{body}{marks}\n"


def conversation_markdown(
    entries: list[Entry],
    *,
    title: str | None = None,
    agent_name: str = "agent",
    terminal_text: TerminalText | None = None,
) -> str:
    """The conversation as a Markdown document: messages, thoughts, plans and tool calls in
    order.
    """
    head = [f"# {title or 'Conversation'}\n", f"_Exported from acp-tui; agent: {agent_name}_\n"]
    body = entries_markdown(entries, agent_name, terminal_text)
    return "\n".join([*head, body] if body else head)


def entries_markdown(
    entries: Sequence[Entry], agent_name: str, terminal_text: TerminalText | None = None
) -> str:
    """The entries of a conversation as Markdown, in order."""
    parts: list[str] = []
    for entry in entries:
        if isinstance(entry, MessageEntry):
            parts.append(_message(entry, agent_name))
        elif isinstance(entry, ToolCallEntry):
            parts.append(tool_call_markdown(entry, terminal_text))
            parts += [tool_call_markdown(c, terminal_text) for c in _nested(entry)]
        elif isinstance(entry, PlanSnapshotEntry):
            parts.append(_plan(entry))
        elif isinstance(entry, UnknownEntry):
            raw = json.dumps(entry.raw, indent=2, ensure_ascii=False, default=str)
            parts.append("**Unknown update**\n\n" + fence(raw, "json"))
        elif isinstance(entry, SubagentLaneEntry):
            parts.append(_subagent(entry, agent_name, terminal_text))
        elif isinstance(entry, SessionMessageEntry):
            parts.append(_session_message(entry))
    return "\n".join(parts)


def _subagent(entry: SubagentLaneEntry, agent_name: str, terminal_text: TerminalText | None) -> str:
    """A subagent session: its title, description and state, then its own conversation, as a
    quoted section (children nest; `MAX_DEPTH` bounds it)."""
    child = entry.child
    state = child.state
    said = state.state if state is not None else "state not reported"
    if state is not None and state.error_text:
        said += f": {state.error_text}"
    head = f"### Subagent: {child.label}" + (f" — {child.description}" if child.description else "")
    inner = entries_markdown(child.thread.entries, child.label, terminal_text)
    if child.task is not None:
        inner = f"**Its task:** {child.task.text}\n\n{inner}"
    body = "\n".join(f"> {line}" if line else ">" for line in inner.splitlines())
    return f"{head}\n\n_{said}_\n\n{body}\n"


def _session_message(entry: SessionMessageEntry) -> str:
    direction = "to" if entry.outgoing else "from"
    other = entry.recipient if entry.outgoing else entry.sender
    return f"**Message {direction} session {other or '?'}**\n\n{entry.text}\n"


def _nested(entry: ToolCallEntry) -> list[ToolCallEntry]:
    """The tool calls its subagent ran (and theirs), in order (a loop: a chain may be deep)."""
    calls: list[ToolCallEntry] = []
    pending = list(reversed(entry.children))
    while pending:
        call = pending.pop()
        calls.append(call)
        pending += reversed(call.children)
    return calls


def _message(entry: MessageEntry, agent_name: str) -> str:
    body = "\n\n".join(_block(block) for block in entry.blocks).strip()
    if entry.role == "thought":
        return f"<details>\n<summary>Thought</summary>\n\n{body}\n\n</details>\n"
    who = "You" if entry.role == "user" else agent_name
    return f"## {who}\n\n{body}\n"


def _block(block: Any) -> str:
    kind = getattr(block, "type", None)
    if kind == "text":
        return str(getattr(block, "text", ""))
    if kind in ("image", "audio"):
        return f"_[{kind}: {getattr(block, 'mime_type', '?')}]_"
    if kind == "resource_link":
        name = getattr(block, "title", None) or getattr(block, "name", "")
        return f"[{name}]({getattr(block, 'uri', '')})"
    if kind == "resource":
        resource = getattr(block, "resource", None)
        uri = str(getattr(resource, "uri", ""))
        text = getattr(resource, "text", None)
        if isinstance(text, str):
            return f"📎 `{uri}`\n\n" + fence(text)
        return f"📎 `{uri}` (binary)"
    raw = getattr(block, "raw", None)
    return fence(json.dumps(raw, indent=2, ensure_ascii=False, default=str), "json")


def tool_call_markdown(entry: ToolCallEntry, terminal_text: TerminalText | None = None) -> str:
    """One tool call as Markdown: title, locations, content, diffs and terminal output."""
    lines = [f"### Tool: {entry.title or entry.kind} ({entry.kind}, {entry.status})\n"]
    for location in entry.locations:
        where = location.path + (f":{location.line}" if location.line else "")
        lines.append(f"- `{where}`")
    if entry.locations:
        lines.append("")
    if entry.raw_input is not None:
        raw = json.dumps(entry.raw_input, indent=2, ensure_ascii=False, default=str)
        lines.append("Input:\n\n" + fence(raw, "json"))
    for item in entry.content:
        kind = getattr(item, "type", None)
        if kind == "diff":
            diff = unified_diff(
                str(getattr(item, "path", "")),
                getattr(item, "old_text", None),
                str(getattr(item, "new_text", "")),
            )
            lines.append(fence(diff, "diff"))
        elif kind == "terminal":
            terminal_id = str(getattr(item, "terminal_id", ""))
            output = terminal_text(terminal_id) if terminal_text is not None else None
            lines.append(f"Terminal `{terminal_id}`:\n\n" + fence(output or "(no output kept)"))
        elif kind == "content":
            lines.append(_block(getattr(item, "content", None)) + "\n")
        else:
            unknown: Any = getattr(item, "raw", None)
            lines.append(
                fence(json.dumps(unknown, indent=2, ensure_ascii=False, default=str), "json")
            )
    return "\n".join(lines)


def _plan(entry: PlanSnapshotEntry) -> str:
    lines = ["### Plan" + (" (removed)" if entry.removed else "") + "\n"]
    if entry.plan.kind == "items":
        for item in entry.plan_entries:
            mark = _STATUS_MARK.get(item.status, " ")
            lines.append(f"- [{mark}] {item.content} _({item.priority})_")
    elif entry.content:
        lines.append(entry.content)
    return "\n".join(lines) + "\n"


def unified_diff(path: str, old_text: str | None, new_text: str) -> str:
    """A unified diff of one file from `old_text` (None: a new file) to `new_text`."""
    old = (old_text or "").splitlines(keepends=True)
    new = new_text.splitlines(keepends=True)
    name = path.lstrip("/")
    return "".join(
        line if line.endswith("\n") else line + "\n"
        for line in difflib.unified_diff(old, new, f"a/{name}", f"b/{name}")
    )

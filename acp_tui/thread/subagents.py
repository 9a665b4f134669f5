"""Tool calls an agent runs inside a subagent, nested under the tool call that started it.

Which call is the parent is not in the ACP schema; agents say it in `_meta`. `parent_tool_call_id`
reads it with one small reader per agent convention (claude-agent-acp:
`_meta.claudeCode.parentToolUseId`); add readers to `PARENT_READERS` for other agents.

`SubagentNesting` places a new tool call: under its parent when the parent is known, else
waiting for it (a child may arrive first); `adopt` hands a new call the children waiting for it,
and `orphans` gives up on parents that never came (at the turn's end, shown at top level). A
link that would close a ring (`parent_links.ParentLinks`) is dropped: the call is shown at top
level, marked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from acp_tui.thread.entries import ToolCallEntry
from acp_tui.thread.parent_links import ParentLinks

ParentReader = Callable[[dict[str, Any]], Any]


def _claude_code(meta: dict[str, Any]) -> Any:
    vendor = meta.get("claudeCode")
    return vendor.get("parentToolUseId") if isinstance(vendor, dict) else None


PARENT_READERS: tuple[ParentReader, ...] = (_claude_code,)
"""Each reads a parent tool call id from a tool call's `_meta` (None: not there)."""


def parent_tool_call_id(meta: dict[str, Any] | None) -> str | None:
    """The id of the tool call whose subagent runs this one, if the agent says so."""
    if not isinstance(meta, dict):
        return None
    for reader in PARENT_READERS:
        found = reader(meta)
        if isinstance(found, str) and found:
            return found
    return None


class SubagentNesting:
    """Where each subagent tool call goes (see the module docstring).

    Parent links never form a ring (`ParentLinks`): a call naming itself, or a parent that
    already runs under it (directly or through calls still waiting for their parent), is drawn
    at top level with its `dropped_parent` set. The top-level call each nested call is drawn in
    is cached (`root`), so an update of a call deep in a long chain does not walk it each time.
    """

    def __init__(self) -> None:
        self.waiting: dict[str, dict[ToolCallEntry, None]] = {}
        """Children (in arrival order) by the parent id they wait for."""
        self.links = ParentLinks[str]()
        """The links followed: every nested or waiting call's, by tool call id."""
        self._roots: dict[ToolCallEntry, ToolCallEntry] = {}

    def place(self, entry: ToolCallEntry, known: dict[str, ToolCallEntry]) -> bool:
        """Nest ``entry`` under its parent or make it wait; False: it is a top-level call."""
        parent_id = entry.parent_tool_call_id
        if parent_id is None:
            return False
        if not self.links.link(entry.tool_call_id, parent_id):
            entry.dropped_parent = parent_id  # it would close a ring: shown on its own
            return False
        parent = known.get(parent_id)
        if parent is None:
            self.waiting.setdefault(parent_id, {})[entry] = None
            return True
        entry.nested_in = parent
        parent.children.append(entry)
        return True

    def adopt(self, parent: ToolCallEntry) -> bool:
        """Nest the children waiting for ``parent``; whether there were any."""
        children = list(self.waiting.pop(parent.tool_call_id, ()))
        for child in children:
            child.nested_in = parent
        parent.children += children
        if children:
            self._roots.clear()  # whole subtrees moved
        return bool(children)

    def is_waiting(self, entry: ToolCallEntry) -> bool:
        parent_id = entry.parent_tool_call_id
        return parent_id is not None and entry in self.waiting.get(parent_id, ())

    def root(self, entry: ToolCallEntry) -> ToolCallEntry:
        """The top-level tool call ``entry`` is drawn in (itself when not nested)."""
        path: list[ToolCallEntry] = []
        current = entry
        while (parent := current.nested_in) is not None:
            cached = self._roots.get(current)
            if cached is not None:
                current = cached
                break
            path.append(current)
            current = parent
        for step in path:
            self._roots[step] = current
        return current

    def detach(self, entry: ToolCallEntry) -> ToolCallEntry | None:
        """Take ``entry`` out of its parent (or the waiting list); returns the old parent."""
        self.links.unlink(entry.tool_call_id)
        self._roots.clear()
        parent = entry.nested_in
        if parent is not None:
            parent.children.remove(entry)
            entry.nested_in = None
            return parent
        self.waiting.get(entry.parent_tool_call_id or "", {}).pop(entry, None)
        return None

    def orphans(self) -> list[ToolCallEntry]:
        """Every child still waiting (its parent never came), in arrival order, forgotten here."""
        waiting = [child for children in self.waiting.values() for child in children]
        for child in waiting:
            self.links.unlink(child.tool_call_id)
        self.waiting = {}
        self._roots.clear()
        return waiting

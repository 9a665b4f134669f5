"""Parent links that can never form a ring (a subagent's tool calls, a subagent's sessions).

An agent says which item runs under which (a tool call's `parentToolUseId`, a subagent
session's parent); whatever order the links arrive in, and whatever they say, following them
upwards must end. `ParentLinks` holds the links accepted so far and refuses one that would close
a ring (a key its own parent, or a parent that already descends from the child). The accepted
links never form a ring, so every walk up ends; a walk is also bounded by the number of links.

Checking costs nothing for a child nothing links to yet (the usual case: a new item); for one
with descendants it walks up from the parent, iteratively (a chain 10,000 deep is a loop, not a
recursion).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)


class ParentLinks(Generic[K]):
    """Child → parent links, kept free of rings (see the module docstring)."""

    def __init__(self) -> None:
        self._parent: dict[K, K] = {}
        self._children: dict[K, int] = {}
        """How many links point at each key (a key nothing points at has no descendants)."""

    def parent_of(self, child: K) -> K | None:
        return self._parent.get(child)

    def would_close_ring(self, child: K, parent: K) -> bool:
        """Whether linking `child` under `parent` would make a ring (itself included)."""
        if child == parent:
            return True
        if not self._children.get(child):
            return False  # nothing descends from it: nothing above it can be its descendant
        current: K | None = parent
        for _ in range(len(self._parent) + 1):
            if current is None:
                return False
            if current == child:
                return True
            current = self._parent.get(current)
        return True  # (cannot happen: the accepted links have no ring) refuse rather than loop

    def link(self, child: K, parent: K) -> bool:
        """Link `child` under `parent` (replacing its old link); False, and nothing changed,
        when that would close a ring."""
        if self.would_close_ring(child, parent):
            return False
        self.unlink(child)
        self._parent[child] = parent
        self._children[parent] = self._children.get(parent, 0) + 1
        return True

    def unlink(self, child: K) -> None:
        """Forget `child`'s link to its parent, if it has one."""
        parent = self._parent.pop(child, None)
        if parent is None:
            return
        left = self._children[parent] - 1
        if left:
            self._children[parent] = left
        else:
            del self._children[parent]

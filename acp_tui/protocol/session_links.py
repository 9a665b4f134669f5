"""The sessions of a connection as the conformance checker follows them: those the client opened
(or named) and the subagent sessions the agent announced, with their parent links.

What it finds wrong becomes an inspector mark (`conformance.py`): traffic under a session id
that is neither opened nor announced, and a `subagent_update` that names the session it is sent
on, the root or an ancestor (a cycle), claims a child of another parent, nests past
`MAX_DEPTH` or announces more than `MAX_CHILDREN` children. The client refuses the same ones
(`thread/subagent_sessions.py`). Memory is bounded: at most `MAX_CHILDREN` children and
`MAX_OPENED` opened sessions are kept.
"""

from __future__ import annotations

from typing import Any

from acp_tui.protocol.models import MAX_CHILDREN, MAX_DEPTH

MAX_OPENED = 1024
"""Sessions the client opened or named, kept (past it, new ones are not checked)."""


class SessionLinks:
    """Opened sessions and announced children (child → parent), for the checker."""

    def __init__(self) -> None:
        self.opened: set[str] = set()
        self.parents: dict[str, str] = {}
        """An announced child's parent session."""
        self.depths: dict[str, int] = {}

    def opened_session(self, session_id: Any) -> None:
        """The client opened or named `session_id` (a request's params, a new session's id)."""
        if type(session_id) is str and len(self.opened) < MAX_OPENED:
            self.opened.add(session_id)

    def knows(self, session_id: Any) -> bool:
        """Whether updates under `session_id` are expected: an opened session or an announced
        child (also when the client never said any id: nothing to compare with)."""
        if not self.opened:
            return True
        return type(session_id) is str and (session_id in self.opened or session_id in self.parents)

    def announce(self, parent: Any, child: Any) -> str | None:
        """A `subagent_update` about `child` sent on `parent`: what is wrong with it (None: a
        new child or a patch of one of `parent`'s)."""
        if type(parent) is not str or type(child) is not str:
            return None  # (the models mark a wrong type)
        if child == parent:
            return f"session {child!r} names itself as its own child"
        known = self.parents.get(child)
        if known is not None:
            return None if known == parent else f"{child!r} is already a child of {known!r}"
        if child in self.opened:
            return f"{child!r} is a session the client opened, not a child"
        ancestor: str | None = parent
        for _ in range(MAX_DEPTH + 1):
            if ancestor is None:
                break
            if ancestor == child:
                return f"{child!r} under {parent!r} would be its own ancestor"
            ancestor = self.parents.get(ancestor)
        depth = self.depths.get(parent, 0) + 1
        if depth > MAX_DEPTH:
            return f"{child!r} nested {depth} deep (more than {MAX_DEPTH})"
        if len(self.parents) >= MAX_CHILDREN:
            return f"more than {MAX_CHILDREN} subagent sessions"
        if parent not in self.parents and not self.knows(parent):
            return f"{child!r} announced on unknown session {parent!r}"
        self.parents[child] = parent
        self.depths[child] = depth
        return None

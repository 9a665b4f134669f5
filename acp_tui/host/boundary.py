"""The session directory bounds the agent's file access; anything outside needs the user's consent.

`PathPolicy.check(path, action)` validates a path the agent sent (absolute, no NUL byte), resolves
it (symlinks followed, `..` collapsed, also for a file or directories that do not exist yet) and
returns the real path when it lies inside the session cwd or one of the extra roots. Otherwise it
asks the user (Question kind ``"outside_cwd"``): allow once, allow this path for the session
(remembered per resolved path *and* action, so allowing a read does not allow a write), or deny.

Errors (all `RpcError` with code -32602, invalid params, because the `path` param is what is
refused; ``data`` carries ``{"path": ..., "reason": ...}``):

- reason ``"nul_byte"``: the path contains a NUL byte;
- reason ``"invalid_unicode"``: the path cannot be encoded for the file system (lone surrogate);
- reason ``"not_absolute"``: the path is relative (never resolved against acp-tui's own cwd);
- reason ``"outside_cwd_denied"``: the user denied access outside the session directory (or to a
  hard-linked file: a regular file with several names counts as outside, see `check_resolved`);
- reason ``"target_changed"``: the path led somewhere else when it was used than when it was
  checked, and the user cancelled (`confirm_retarget`, Question kind ``"target_changed"``).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from acp_tui.host import beneath
from acp_tui.host.asker import Asker, Choice, Question
from acp_tui.protocol.errors import INVALID_PARAMS, RpcError

Action = Literal["read", "write", "run"]

OUTSIDE_CWD = "outside_cwd"
TARGET_CHANGED = "target_changed"
ALLOW_ONCE = "allow_once"
ALLOW_SESSION = "allow_session"
DENY = "deny"

OUTSIDE_CWD_CHOICES = (
    Choice(ALLOW_ONCE, "Allow once", "o"),
    Choice(ALLOW_SESSION, "Allow this path for the session", "a"),
    Choice(DENY, "Deny", "d"),
)

ONCE_CHOICES = (Choice(ALLOW_ONCE, "Allow once", "o"), Choice(DENY, "Deny", "d"))
"""For the user's own actions (a revert, an export): nothing is remembered."""

TARGET_CHANGED_CHOICES = (
    Choice(ALLOW_ONCE, "Use the new target", "u"),
    Choice(DENY, "Cancel", "c"),
)

_VERBS: dict[str, str] = {
    "read": "read",
    "write": "write",
    "run": "run a command in",
}


def resolve_path(path: Path) -> Path:
    """The real absolute path: symlinks followed (dangling ones too), `..` collapsed, no I/O error.

    Components that do not exist are kept as written after the existing prefix is resolved, so a
    not-yet-existing file below a symlinked directory resolves through that symlink. Resolved by
    the same directory-descriptor walk the file host opens files with (`beneath.locate`); a path
    that walk cannot follow (a file used as a directory, a loop) falls back to `os.path.realpath`.
    """
    try:
        with beneath.locate(path) as location:
            return location.real
    except (OSError, ValueError):
        pass
    try:
        return Path(os.path.realpath(path, strict=False))
    except OSError:  # a component changed while realpath looked at it
        return Path(os.path.normpath(path))


def is_within(path: Path, root: Path) -> bool:
    """Whether `path` is `root` or beneath it (both already resolved)."""
    return path == root or path.is_relative_to(root)


class PathPolicy:
    """Checks the agent's paths against the session roots, asking the user about outside ones."""

    def __init__(self, cwd: Path, asker: Asker, *, extra_roots: Sequence[Path] = ()) -> None:
        self.cwd = resolve_path(Path(cwd).absolute())
        self.roots: tuple[Path, ...] = (
            self.cwd,
            *(resolve_path(Path(r).absolute()) for r in extra_roots),
        )
        self._asker = asker
        self._allowed: set[tuple[Path, str]] = set()
        self._asking: dict[tuple[Path, str], asyncio.Lock] = {}

    def inside(self, resolved: Path) -> bool:
        """Whether an already resolved path lies in the session cwd or an extra root."""
        return any(is_within(resolved, root) for root in self.roots)

    def allowed_for_session(self, resolved: Path, action: Action) -> bool:
        """Whether the user allowed this path outside the session directory for the rest of the
        session.
        """
        return (resolved, action) in self._allowed

    def validate(self, path: Path | str) -> Path:
        """Reject a NUL byte or a relative path (-32602); return the path as a `Path`."""
        text = os.fspath(path)
        if "\0" in text:
            raise RpcError(
                INVALID_PARAMS,
                f"path contains a NUL byte: {text!r}",
                {"path": text, "reason": "nul_byte"},
            )
        try:
            os.fsencode(text)
        except UnicodeEncodeError:
            raise RpcError(
                INVALID_PARAMS,
                f"path is not valid Unicode (it has a lone surrogate): {text!r}",
                {"path": text, "reason": "invalid_unicode"},
            ) from None
        if not os.path.isabs(text):
            raise RpcError(
                INVALID_PARAMS,
                f"path must be absolute, got a relative path: {text}",
                {"path": text, "reason": "not_absolute"},
            )
        return Path(text)

    async def check(self, path: Path | str, action: Action) -> Path:
        """Return the resolved path the agent may `action`; ask the user if it is outside.

        Raises `RpcError` (-32602) for a bad path or a denial. Propagates `CancelledError` if the
        question is abandoned.
        """
        requested = self.validate(path)
        resolved = resolve_path(requested)
        await self.check_resolved(requested, resolved, action)
        return resolved

    async def check_resolved(
        self,
        requested: Path,
        resolved: Path,
        action: Action,
        *,
        links: int = 1,
        who: str | None = None,
    ) -> None:
        """Pass when `resolved` (what `requested` leads to now) may be `action`ed, else ask.

        `links` is the target's hard link count: a regular file with more than one name cannot
        be shown to live only inside the session directory, so it counts as outside. `who`
        names an action of the user's own (a revert, an export) instead of the agent's: it is
        asked about every time (only "allow once"), and the agent's "for the session" answers
        neither cover it nor come from it.
        """
        own = who is not None
        hard_link = links > 1
        if self.inside(resolved) and not hard_link:
            return
        if not own and self.allowed_for_session(resolved, action):
            return
        key = (resolved, action)
        lock = self._asking.setdefault(key, asyncio.Lock())
        async with lock:  # concurrent requests for the same path share one question
            if not own and self.allowed_for_session(resolved, action):
                return
            question = self._question(requested, resolved, action, links, who)
            answer = await self._asker.ask(question)
        if answer == ALLOW_SESSION and not own:
            self._allowed.add(key)
            return
        if answer == ALLOW_ONCE:
            return
        where = (
            f"is a hard link ({links} names) the session directory {self.cwd} cannot vouch for"
            if hard_link and self.inside(resolved)
            else f"is outside the session directory {self.cwd}"
        )
        raise RpcError(
            INVALID_PARAMS,
            f"{requested} {where} and the user denied permission to {_VERBS[action]} it",
            {"path": str(requested), "reason": "outside_cwd_denied"},
        )

    async def confirm_retarget(
        self, requested: Path, was: Path, now: Path, action: Action, *, who: str = "The agent"
    ) -> None:
        """Ask before acting on `requested` now that it leads to `now`, not `was` (as checked).

        A yes is consent for this one use of `now`, also when it is outside; a no raises
        `RpcError` (-32602, reason ``"target_changed"``).
        """
        outside = not self.inside(now)
        note = f"\n\n{now} is OUTSIDE the session directory {self.cwd}." if outside else ""
        question = Question(
            kind=TARGET_CHANGED,
            title=f"{requested.name} now leads somewhere else",
            detail=(
                f"{who} asked to {_VERBS[action]} {requested}.\nWhen checked it led to "
                f"{was};\nnow it leads to {now}\n(a directory or link on the way changed)."
                f"{note}\n\n{_VERBS[action].capitalize()} {now}?"
            ),
            choices=TARGET_CHANGED_CHOICES,
            data={
                "path": str(requested),
                "was": str(was),
                "resolved": str(now),
                "outside": outside,
                "action": action,
            },
        )
        if await self._asker.ask(question) != ALLOW_ONCE:
            raise RpcError(
                INVALID_PARAMS,
                f"{requested} changed from {was} to {now} before it could be {action} "
                "and the user cancelled",
                {"path": str(requested), "reason": "target_changed"},
            )

    def _question(
        self, requested: Path, resolved: Path, action: Action, links: int, who: str | None
    ) -> Question:
        where = str(requested)
        if resolved != requested:
            where += f"\n(resolves to {resolved})"
        title = (
            f"{who or 'The agent'} wants to {_VERBS[action]} a path outside the session directory"
        )
        if links > 1 and self.inside(resolved):
            title = f"{who or 'The agent'} wants to {_VERBS[action]} a hard-linked file"
            where += (
                f"\n\nThis file has {links} names (hard links); the others may be outside the "
                "session directory, so it counts as outside."
            )
        return Question(
            kind=OUTSIDE_CWD,
            title=title,
            detail=f"{where}\n\nSession directory: {self.cwd}",
            choices=OUTSIDE_CWD_CHOICES if who is None else ONCE_CHOICES,
            data={
                "path": str(requested),
                "resolved": str(resolved),
                "action": action,
                "roots": [str(r) for r in self.roots],
                "links": links,
            },
        )

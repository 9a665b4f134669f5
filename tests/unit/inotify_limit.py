"""The inotify watch limit, simulated through the module's libc seam (`inotify._libc`): after
`allowed` watches, `inotify_add_watch` fails with ENOSPC, as when `fs.inotify.max_user_watches`
is reached."""

from __future__ import annotations

import errno
from typing import Any

import pytest

from acp_tui.host import inotify


class LimitedLibc:
    """libc's inotify functions, with at most `allowed` watches added in all."""

    def __init__(self, real: Any, allowed: int) -> None:
        self.real = real
        self.allowed = allowed
        self.added = 0
        self.refused = 0

    def inotify_init1(self, flags: int) -> int:
        return int(self.real.inotify_init1(flags))

    def inotify_add_watch(self, fd: int, path: bytes, mask: int) -> int:
        if self.added >= self.allowed:
            self.refused += 1
            return -1
        self.added += 1
        return int(self.real.inotify_add_watch(fd, path, mask))

    def inotify_rm_watch(self, fd: int, wd: int) -> int:
        return int(self.real.inotify_rm_watch(fd, wd))


def limit_watches(monkeypatch: pytest.MonkeyPatch, allowed: int) -> LimitedLibc:
    """From now on (until the test ends) at most `allowed` inotify watches can be added."""
    real = inotify._libc()
    assert real is not None
    limited = LimitedLibc(real, allowed)
    monkeypatch.setattr(inotify, "_libc", lambda: limited)
    monkeypatch.setattr(inotify, "_errno", lambda: errno.ENOSPC)
    return limited

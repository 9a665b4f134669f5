"""Whether a path an agent sent is absolute, as ACP requires of every path (POSIX or Windows).

Read by both conformance checkers (`conformance.py` for v1, `conformance_v2.py` for v2)."""

from __future__ import annotations

import re

_WINDOWS_ABSOLUTE = re.compile(r"^(?:[A-Za-z]:[\\/]|\\\\)")


def is_absolute_path(path: str) -> bool:
    """Absolute on POSIX (`/…`) or Windows (`C:\\…`, `\\\\server\\…`)."""
    return path.startswith("/") or _WINDOWS_ABSOLUTE.match(path) is not None

"""The versions of each file's text the change log keeps, each stored as a change of the last.

A file the agent appends to every turn would otherwise be kept whole before and after every
write: memory quadratic in the session's length (a 2 KB-a-turn log: 90 MB by turn 300). Here a
new version of a path is kept as the part that differs from the path's previous version (the
common start and end are shared, not copied), a whole copy every `WHOLE_EVERY` versions so that
reading an old version applies at most that many changes. A record's text equal to the path's
newest version (the next write's `before` is the last write's `after`) is that same version,
not a copy. The newest version of each path keeps its whole text too (the next write starts
from it). Stdlib only, no cycles: a version points only at the one it changes.
"""

from __future__ import annotations

from pathlib import Path

WHOLE_EVERY = 32
"""A version changing this many versions in a row is kept whole instead."""


class TextVersion:
    """One version of a file's text: whole, or the text of `base` with a middle part replaced."""

    __slots__ = ("_base", "_keep_end", "_keep_start", "_middle", "_whole", "depth")

    depth: int

    def __init__(
        self,
        whole: str | None,
        *,
        base: TextVersion | None = None,
        keep_start: int = 0,
        middle: str = "",
        keep_end: int = 0,
    ) -> None:
        self._whole = whole
        self._base = base
        self._keep_start = keep_start
        self._middle = middle
        self._keep_end = keep_end
        self.depth = 0 if base is None else base.depth + 1
        """Changes applied on the way from the last whole version (0: whole)."""

    def text(self) -> str:
        """The whole text (rebuilt from the nearest whole version when only a change is kept)."""
        if self._whole is not None:
            return self._whole
        chain: list[TextVersion] = []
        version: TextVersion = self
        while version._whole is None:
            chain.append(version)
            assert version._base is not None  # (a version without text has a base)
            version = version._base
        text = version._whole
        for change in reversed(chain):
            text = (
                text[: change._keep_start] + change._middle + text[len(text) - change._keep_end :]
            )
        return text

    def kept_chars(self) -> int:
        """Characters this version holds itself (its whole text, or its changed part)."""
        return len(self._whole) if self._whole is not None else len(self._middle)

    def _drop_whole(self) -> None:
        if self._base is not None:
            self._whole = None


class TextVersions:
    """The versions of each path's text, in the order kept."""

    def __init__(self, whole_every: int = WHOLE_EVERY) -> None:
        self.whole_every = whole_every
        self._newest: dict[Path, TextVersion] = {}

    def keep(self, path: Path, text: str) -> TextVersion:
        """The version of `path` whose text is `text`: the newest one if equal, else a new
        version made the newest (kept as its change from the newest, or whole)."""
        newest = self._newest.get(path)
        if newest is None:
            version = TextVersion(text)
        else:
            current = newest.text()
            if current == text:
                return newest
            version = (
                TextVersion(text)
                if newest.depth + 1 >= self.whole_every
                else _change_of(newest, current, text)
            )
            newest._drop_whole()
        self._newest[path] = version
        return version


def _change_of(base: TextVersion, old: str, new: str) -> TextVersion:
    start = _common_start(old, new)
    end = _common_end(old[start:], new[start:])
    return TextVersion(
        new,  # (the newest: whole until a newer one comes)
        base=base,
        keep_start=start,
        middle=new[start : len(new) - end],
        keep_end=end,
    )


def _common_start(a: str, b: str) -> int:
    """The length of the longest common prefix (by halving: string compares run in C)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[low:mid] == b[low:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def _common_end(a: str, b: str) -> int:
    """The length of the longest common suffix."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[len(a) - mid : len(a) - low] == b[len(b) - mid : len(b) - low]:
            low = mid
        else:
            high = mid - 1
    return low

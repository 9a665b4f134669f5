"""Ranked search over a fixed list of paths, for the @-mention picker.

A `PathSearch` is an immutable snapshot: the paths sorted by (length, path), which is the order
of the ranking within a tier, and two newline-joined lower-cased texts in that order, one of
whole paths and one of file names. A query's results are, best first:

  0. the query starts the file name,
  1. the query is in the file name,
  2. the query is in the path (as one run),
  3. the query's characters are in the path in order (scattered);

each tier shortest path first. Because the texts are in ranking order, every tier is read from
the front and stops as soon as enough results are found: tiers 0-2 with `str.find`, tier 3
with a regular expression that never backtracks. Only a query with few matches reads a whole
text; tier 3 does it in chunks of lines (`Search.step`) so a caller with a frame to keep can
show what it has and go on later (`Search.run(budget)`); `query` runs to the end.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import re
import time
from collections.abc import Iterable

SLICE = 0.008
"""Seconds of a frame a search may take before the picker shows what it has found (it goes on
after the next refresh; only a query with few matches in a big tree takes longer)."""
CHUNK_LINES = 8_192
"""Lines read per step of the scattered tier."""
SHALLOW = 200
"""How many of the shallowest paths are kept for the empty query."""
SAMPLES, SAMPLE_SIZE = 16, 8_192
"""Characters are counted in 16 stretches of 8,192 characters spread over the text (to choose
where tier 3's pattern is anchored)."""


class PathSearch:
    """Fuzzy search over paths, shortest first: name matches before folder matches, each folder
    and name lower-cased once.
    """

    def __init__(self, paths: Iterable[str]) -> None:
        lines = sorted(paths, key=lambda p: (len(p), p))
        self.lines = lines
        lowered = [p.lower() for p in lines]
        heads = [p.rstrip("/").rpartition("/") for p in lowered]  # (folder, "/", name)
        names = [head[2] for head in heads]
        folders = [head[0] for head in heads]
        self.starts = _starts(lowered)
        """Offset of line i in `paths` (after its newline); one more entry: the text's end."""
        self.name_starts = _starts(names)
        self.folder_starts = _starts(folders)
        self.paths = "\n" + "\n".join(lowered) + "\n"
        self.names = "\n" + "\n".join(names) + "\n"
        self.folders = "\n" + "\n".join(folders) + "\n"
        self.reversed = self.paths[::-1]
        """`paths` back to front: line i's characters reversed, lines in reverse order."""
        self.shallow = heapq.nsmallest(SHALLOW, lines, key=lambda p: (p.count("/"), len(p), p))
        step = max(len(self.paths) // SAMPLES, SAMPLE_SIZE)
        self._sample = "".join(
            self.paths[start : start + SAMPLE_SIZE] for start in range(0, len(self.paths), step)
        )
        self._counts: dict[str, int] = {}
        self.complete: tuple[str, tuple[int, ...]] | None = None
        """The last needle whose matches were all found (fewer than its limit), and those
        lines: a needle holding it in order matches only among them."""

    def __len__(self) -> int:
        return len(self.lines)

    def search(self, text: str, limit: int = 50) -> Search:
        """A search for `text`, its cheap tiers done (see `Search`)."""
        return Search(self, text, limit)

    def query(self, text: str, limit: int = 50) -> list[str]:
        """Up to `limit` paths matching `text` (case-insensitive), best first; all of them."""
        found = self.search(text, limit)
        found.run(None)
        return found.results

    def count(self, char: str) -> int:
        """About how often `char` occurs in the paths (from `SAMPLES` stretches of the text)."""
        if char not in self._counts:
            found = self._sample.count(char)
            self._counts[char] = found * len(self.paths) // max(len(self._sample), 1)
        return self._counts[char]


class Search:
    """One query over a `PathSearch`. Tiers 0-2 are read when it is made; tier 3, when needed,
    by `step` (one chunk of lines) until `done`. `results` is always the best of what was read,
    in order, and once `done` it is the answer."""

    def __init__(self, index: PathSearch, text: str, limit: int) -> None:
        self.index = index
        self.limit = limit
        self.needle = text.replace("\n", "").lower().lstrip("/")
        self._found: dict[int, None] = {}  # line numbers in rank order, without repeats
        self._shallow: list[str] | None = None
        self._next = 0  # the first line tier 3 has not read
        self.done = False
        if not self.needle:
            self._shallow = index.shallow[:limit]
            self.done = True
            return
        known = index.complete
        if known is not None and _in_order(known[0], self.needle):
            self._narrow(known[1])
            self._finish()
            return
        self._contiguous()
        if len(self._found) >= limit:
            self._finish()
            return
        self._scattered = _Scattered(index, self.needle)

    @property
    def results(self) -> list[str]:
        """The matches found so far, at most `limit`."""
        if self._shallow is not None:
            return list(self._shallow)
        return [self.index.lines[i] for i in itertools.islice(self._found, self.limit)]

    def _contiguous(self) -> None:
        index, needle = self.index, self.needle
        if "/" in needle:  # not in a name: tier 2 only
            self._find(index.paths, index.starts, needle)
            return
        self._in_names()
        if len(self._found) < self.limit:  # tier 2: in a folder's name (not across a slash)
            self._find(index.folders, index.folder_starts, needle)

    def _in_names(self) -> None:
        """Tiers 0 and 1 in one pass over the names; once tier 1 is full, tier 0 alone."""
        text, starts, needle, limit = (
            self.index.names,
            self.index.name_starts,
            self.needle,
            self.limit,
        )
        first: list[int] = []
        inside: list[int] = []
        position = text.find(needle)
        while position != -1 and len(first) < limit and len(inside) < limit:
            line = bisect.bisect_right(starts, position) - 1
            (first if position == starts[line] else inside).append(line)
            position = text.find(needle, starts[line + 1] - 1)
        self._found.update(dict.fromkeys(first))
        if len(inside) >= limit and position != -1:
            self._find(text, starts, "\n" + needle, position - 1)
        self._found.update(dict.fromkeys(inside))

    def _narrow(self, lines: Iterable[int]) -> None:
        """Rank the lines that can match (those of a needle this one holds in order)."""
        needle = self.needle
        regex = re.compile(_gaps(needle, anchored=True))
        ranked = []
        for line in lines:
            lower = self.index.lines[line].lower()
            if regex.match("\n" + lower):
                ranked.append((_tier(lower, needle), line))
        for _, line in sorted(ranked)[: self.limit]:
            self._found[line] = None

    def _finish(self) -> None:
        self.done = True
        if len(self._found) < self.limit:  # every match was found: later needles narrow it
            self.index.complete = (self.needle, tuple(self._found))

    def _find(self, text: str, starts: list[int], needle: str, begin: int = 0) -> None:
        found, limit = self._found, self.limit
        position = text.find(needle, begin)
        while position != -1 and len(found) < limit:
            line = bisect.bisect_right(starts, position + (needle[0] == "\n")) - 1
            found.setdefault(line, None)
            position = text.find(needle, starts[line + 1] - 1)

    def step(self, lines: int | None = None) -> bool:
        """Read the next `lines` (`CHUNK_LINES`) lines for tier 3; whether the search is done."""
        if self.done:
            return True
        end = min(self._next + (lines or CHUNK_LINES), len(self.index.lines))
        self._scattered.read(self._next, end, self._found, self.limit)
        self._next = end
        if end >= len(self.index.lines) or len(self._found) >= self.limit:
            self._finish()
        return self.done

    def run(self, budget: float | None) -> bool:
        """Step until done, or (when `budget` is seconds) until that much time has passed;
        whether the search is done."""
        deadline = None if budget is None else time.perf_counter() + budget
        while not self.step():
            if deadline is not None and time.perf_counter() >= deadline:
                return False
        return True


class _Scattered:
    """Tier 3: the lines holding the needle's characters in order.

    Between two characters the gap is a possessive `[^\\n<next>]*+`: the leftmost match is
    the only one tried, so an attempt is linear in the rest of its line and never backtracks.
    Each attempt costs about the same, so the pattern is anchored where attempts are fewest:
    at the needle's first character, at its last (matching the reversed needle in the reversed
    text), or at each line's start."""

    def __init__(self, index: PathSearch, needle: str) -> None:
        self.index = index
        first, last, lines = index.count(needle[0]), index.count(needle[-1]), len(index)
        if first <= last and first <= lines:
            self.mode = "first"
            self.text = index.paths
            self.regex = re.compile(_gaps(needle, anchored=False))
        elif last <= lines:
            self.mode = "last"
            self.text = index.reversed
            self.regex = re.compile(_gaps(needle[::-1], anchored=False))
        else:
            self.mode = "line"
            self.text = index.paths
            self.regex = re.compile(_gaps(needle, anchored=True))

    def read(self, begin: int, end: int, found: dict[int, None], limit: int) -> None:
        """Add the matching lines of lines [begin, end) to `found`, best first, up to `limit`."""
        starts = self.index.starts
        if self.mode == "last":  # the same lines, back to front: gather, then in order
            size = len(self.text)
            matches = self.regex.finditer(self.text, size - starts[end] + 1, size - starts[begin])
            hits = sorted(bisect.bisect_right(starts, size - 1 - m.start()) - 1 for m in matches)
            for line in itertools.islice((h for h in hits if h not in found), limit - len(found)):
                found[line] = None
            return
        anchored = self.mode == "line"
        start = starts[begin] - anchored
        for match in self.regex.finditer(self.text, start, starts[end] - 1):
            found.setdefault(bisect.bisect_right(starts, match.start() + anchored) - 1, None)
            if len(found) >= limit:
                return


def _gaps(needle: str, *, anchored: bool) -> str:
    """The needle's characters in order within one line, each gap possessive; the rest of the
    line is taken too, so the next search starts on the next line. Anchored: from a line's
    start (its newline)."""
    parts = ["\n"] if anchored else []
    for index, char in enumerate(needle):
        escaped = re.escape(char)
        parts.append(escaped if index == 0 and not anchored else f"[^\n{escaped}]*+{escaped}")
    return "".join(parts) + "[^\n]*+"


def _starts(lines: list[str]) -> list[int]:
    return list(itertools.accumulate((len(line) + 1 for line in lines), initial=1))


def _tier(lower: str, needle: str) -> int:
    name = lower.rstrip("/").rpartition("/")[2]
    if name.startswith(needle):
        return 0
    if needle in name:
        return 1
    return 2 if needle in lower else 3


def _in_order(part: str, whole: str) -> bool:
    rest = iter(whole)
    return all(char in rest for char in part)

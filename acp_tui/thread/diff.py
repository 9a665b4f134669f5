"""A file diff as data: hunks of context/added/removed lines, partial application, word spans.

Pure Python (difflib); used by the diff viewer and by the host's write review. Line endings are
kept on the raw lines so that applying or reverting any subset of hunks round-trips the original
bytes exactly (CRLF files, a missing final newline); `DiffLine.text` is the line without its ending.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

LineKind = Literal["context", "add", "remove"]
Opcode = tuple[str, int, int, int, int]

_WORD_RE = re.compile(r"\w+|\s+|[^\w\s]")


@dataclass(frozen=True)
class DiffLine:
    """One line of a hunk; `old_no`/`new_no` are 1-based and None on the side it is absent from.
    `eol` is the line's ending ("\n", "\r\n", "\r"; "" for a last line without a newline)."""

    kind: LineKind
    old_no: int | None
    new_no: int | None
    text: str
    eol: str = "\n"


@dataclass(frozen=True)
class Hunk:
    """A group of changes with surrounding context; starts/counts follow unified-diff notation
    (a count of 0 means the start is the line *before* the insertion point, 0 for an empty side)."""

    index: int
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    lines: tuple[DiffLine, ...]
    header: str


@dataclass(frozen=True)
class FileDiff:
    """The difference between `old_text` (None: the file did not exist) and `new_text`."""

    path: str
    old_text: str | None
    new_text: str
    hunks: tuple[Hunk, ...]
    is_new_file: bool
    is_deletion: bool
    added: int
    removed: int


def path_warning(path: str) -> str | None:
    """Why a diff's path is not a trustworthy absolute location (show it; never touch it)."""
    if not path.strip():
        return "⚠ missing path"
    if not os.path.isabs(path):
        return "⚠ relative path"
    return None


def split_lines(text: str | None) -> list[str]:
    """Lines with their endings kept ("a\\r\\nb" -> ["a\\r\\n", "b"])."""
    return text.splitlines(keepends=True) if text else []


def line_ending(line: str) -> str:
    if line.endswith("\r\n"):
        return "\r\n"
    if line.endswith(("\n", "\r")):
        return line[-1]
    return ""


def strip_eol(line: str) -> str:
    return line[: len(line) - len(line_ending(line))]


def _line(kind: LineKind, old_no: int | None, new_no: int | None, raw: str) -> DiffLine:
    return DiffLine(kind, old_no, new_no, strip_eol(raw), line_ending(raw))


def _line_opcodes(old: Sequence[str], new: Sequence[str]) -> list[Opcode]:
    """Opcodes over whole lines; the common prefix and suffix are matched without difflib."""
    limit = min(len(old), len(new))
    prefix = 0
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    old_mid = old[prefix : len(old) - suffix]
    new_mid = new[prefix : len(new) - suffix]
    codes: list[Opcode] = []
    if prefix:
        codes.append(("equal", 0, prefix, 0, prefix))
    if old_mid or new_mid:
        for tag, i1, i2, j1, j2 in _opcodes_from_blocks(
            _matching_blocks(old_mid, new_mid), len(old_mid), len(new_mid)
        ):
            codes.append((tag, i1 + prefix, i2 + prefix, j1 + prefix, j2 + prefix))
    if suffix:
        codes.append(("equal", len(old) - suffix, len(old), len(new) - suffix, len(new)))
    return codes


def _unique_anchors(old: Sequence[str], new: Sequence[str]) -> list[tuple[int, int]]:
    """Lines that occur exactly once in each text, kept in an order increasing on both sides
    (the longest such chain, as in patience diff)."""
    old_counts, new_counts = Counter(old), Counter(new)
    new_index = {line: j for j, line in enumerate(new) if new_counts[line] == 1}
    pairs = [
        (i, new_index[line])
        for i, line in enumerate(old)
        if old_counts[line] == 1 and line in new_index
    ]
    # longest increasing subsequence of the new-side positions (patience sorting)
    tails: list[int] = []  # tails[k]: new position ending the best chain of length k+1
    tail_at: list[int] = []  # index into pairs of that chain end
    previous: list[int] = [-1] * len(pairs)
    for index, (_, j) in enumerate(pairs):
        k = bisect_left(tails, j)
        if k == len(tails):
            tails.append(j)
            tail_at.append(index)
        else:
            tails[k] = j
            tail_at[k] = index
        previous[index] = tail_at[k - 1] if k else -1
    chain: list[tuple[int, int]] = []
    index = tail_at[-1] if tail_at else -1
    while index >= 0:
        chain.append(pairs[index])
        index = previous[index]
    return chain[::-1]


def _matching_blocks(old: Sequence[str], new: Sequence[str]) -> list[tuple[int, int, int]]:
    """(i, j, size) runs of equal lines: unique lines anchor the alignment, difflib fills the
    gaps between anchors (so popular lines such as blank ones stay cheap)."""
    blocks: list[tuple[int, int, int]] = []
    prev_i = prev_j = 0
    for i, j in [*_unique_anchors(old, new), (len(old), len(new))]:
        if i > prev_i and j > prev_j:
            gap_old, gap_new = old[prev_i:i], new[prev_j:j]
            matcher = SequenceMatcher(None, gap_old, gap_new, autojunk=len(gap_new) > 2000)
            for bi, bj, size in matcher.get_matching_blocks():
                if size:
                    blocks.append((prev_i + bi, prev_j + bj, size))
        if i < len(old):
            if blocks and blocks[-1][0] + blocks[-1][2] == i and blocks[-1][1] + blocks[-1][2] == j:
                blocks[-1] = (blocks[-1][0], blocks[-1][1], blocks[-1][2] + 1)
            else:
                blocks.append((i, j, 1))
        prev_i, prev_j = i + 1, j + 1
    return blocks


def _opcodes_from_blocks(
    blocks: list[tuple[int, int, int]], old_len: int, new_len: int
) -> list[Opcode]:
    codes: list[Opcode] = []
    i = j = 0
    for bi, bj, size in [*blocks, (old_len, new_len, 0)]:
        codes.extend(_change(i, bi, j, bj))
        if size and codes and codes[-1][0] == "equal" and codes[-1][2] == bi:
            codes[-1] = ("equal", codes[-1][1], bi + size, codes[-1][3], bj + size)
        elif size:
            codes.append(("equal", bi, bi + size, bj, bj + size))
        i, j = bi + size, bj + size
    return codes


def _change(i1: int, i2: int, j1: int, j2: int) -> list[Opcode]:
    if i1 < i2 and j1 < j2:
        return [("replace", i1, i2, j1, j2)]
    if i1 < i2:
        return [("delete", i1, i2, j1, j2)]
    if j1 < j2:
        return [("insert", i1, i2, j1, j2)]
    return []


def _grouped(codes: list[Opcode], context: int) -> Iterator[list[Opcode]]:
    """Changes grouped with at most `context` equal lines around them (like difflib's
    get_grouped_opcodes, but with no group at all when nothing changed)."""
    if not any(tag != "equal" for tag, *_ in codes):
        return
    codes = list(codes)
    if codes[0][0] == "equal":
        _, i1, i2, j1, j2 = codes[0]
        codes[0] = ("equal", max(i1, i2 - context), i2, max(j1, j2 - context), j2)
    if codes[-1][0] == "equal":
        _, i1, i2, j1, j2 = codes[-1]
        codes[-1] = ("equal", i1, min(i2, i1 + context), j1, min(j2, j1 + context))
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * context and group:
            group.append((tag, i1, i1 + context, j1, j1 + context))
            if any(code[0] != "equal" for code in group):
                yield group
            group = []
            i1, j1 = max(i1, i2 - context), max(j1, j2 - context)
        group.append((tag, i1, i2, j1, j2))
    if any(code[0] != "equal" for code in group):
        yield group


def _unified_start(start0: int, count: int) -> int:
    return start0 + 1 if count else start0


def _hunk(index: int, group: list[Opcode], old: Sequence[str], new: Sequence[str]) -> Hunk:
    lines: list[DiffLine] = []
    for tag, i1, i2, j1, j2 in group:
        if tag == "equal":
            for k in range(i2 - i1):
                lines.append(_line("context", i1 + k + 1, j1 + k + 1, old[i1 + k]))
            continue
        for i in range(i1, i2):
            lines.append(_line("remove", i + 1, None, old[i]))
        for j in range(j1, j2):
            lines.append(_line("add", None, j + 1, new[j]))
    o1, o2 = group[0][1], group[-1][2]
    n1, n2 = group[0][3], group[-1][4]
    old_start, new_start = _unified_start(o1, o2 - o1), _unified_start(n1, n2 - n1)
    header = f"@@ -{old_start},{o2 - o1} +{new_start},{n2 - n1} @@"
    return Hunk(index, old_start, o2 - o1, new_start, n2 - n1, tuple(lines), header)


def compute_diff(path: str, old_text: str | None, new_text: str, context: int = 3) -> FileDiff:
    """Diff `old_text` (None or "" for a new file) against `new_text`, `context` lines around
    each change; hunks closer than 2*context equal lines are merged."""
    old, new = split_lines(old_text), split_lines(new_text)
    groups = _grouped(_line_opcodes(old, new), max(0, context))
    hunks = tuple(_hunk(i, group, old, new) for i, group in enumerate(groups))
    added = sum(1 for h in hunks for line in h.lines if line.kind == "add")
    removed = sum(1 for h in hunks for line in h.lines if line.kind == "remove")
    return FileDiff(
        path=path,
        old_text=old_text,
        new_text=new_text,
        hunks=hunks,
        is_new_file=not old_text,
        is_deletion=bool(old_text) and not new_text,
        added=added,
        removed=removed,
    )


def _old_range(hunk: Hunk) -> tuple[int, int]:
    start = hunk.old_start - 1 if hunk.old_count else hunk.old_start
    return start, start + hunk.old_count


def _new_range(hunk: Hunk) -> tuple[int, int]:
    start = hunk.new_start - 1 if hunk.new_count else hunk.new_start
    return start, start + hunk.new_count


def _merge(diff: FileDiff, take_new: set[int], base_is_new: bool) -> str:
    """Walk the hunks in order, taking each hunk's new or old lines and the base side between."""
    old, new = split_lines(diff.old_text), split_lines(diff.new_text)
    base = new if base_is_new else old
    out: list[str] = []
    pos = 0
    for hunk in diff.hunks:
        (o1, o2), (n1, n2) = _old_range(hunk), _new_range(hunk)
        b1, b2 = (n1, n2) if base_is_new else (o1, o2)
        out.extend(base[pos:b1])
        out.extend(new[n1:n2] if hunk.index in take_new else old[o1:o2])
        pos = b2
    out.extend(base[pos:])
    return "".join(out)


def apply_hunks(diff: FileDiff, accepted: set[int]) -> str:
    """`old_text` with only the `accepted` hunks applied (all -> new_text, none -> old_text)."""
    return _merge(diff, accepted, base_is_new=False)


def revert_hunks(diff: FileDiff, reverted: set[int]) -> str:
    """`new_text` with the `reverted` hunks undone (none -> new_text, all -> old_text)."""
    keep = {h.index for h in diff.hunks} - reverted
    return _merge(diff, keep, base_is_new=True)


def split_rows(hunk: Hunk) -> list[tuple[DiffLine | None, DiffLine | None]]:
    """Side-by-side rows (old, new) of a hunk: context on both sides, a run of removals paired
    line by line with the run of additions that follows it, the leftover side left empty."""
    rows: list[tuple[DiffLine | None, DiffLine | None]] = []
    removed: list[DiffLine] = []
    added: list[DiffLine] = []

    def flush() -> None:
        for k in range(max(len(removed), len(added))):
            rows.append(
                (removed[k] if k < len(removed) else None, added[k] if k < len(added) else None)
            )
        removed.clear()
        added.clear()

    for line in hunk.lines:
        if line.kind == "context":
            flush()
            rows.append((line, line))
        elif line.kind == "remove":
            if added:
                flush()
            removed.append(line)
        else:
            added.append(line)
    flush()
    return rows


def _merge_spans(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if start == end:
            continue
        if merged and merged[-1][1] == start:
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def word_spans(old_line: str, new_line: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Character ranges [start, end) that changed in `old_line` and in `new_line`, compared
    word by word (a word, a run of whitespace or one punctuation character is a token)."""
    old_tokens = _WORD_RE.findall(old_line)
    new_tokens = _WORD_RE.findall(new_line)
    old_offsets = _offsets(old_tokens)
    new_offsets = _offsets(new_tokens)
    old_spans: list[tuple[int, int]] = []
    new_spans: list[tuple[int, int]] = []
    matcher = SequenceMatcher(None, old_tokens, new_tokens, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        old_spans.append((old_offsets[i1], old_offsets[i2]))
        new_spans.append((new_offsets[j1], new_offsets[j2]))
    return _merge_spans(old_spans), _merge_spans(new_spans)


def _offsets(tokens: list[str]) -> list[int]:
    offsets = [0]
    for token in tokens:
        offsets.append(offsets[-1] + len(token))
    return offsets

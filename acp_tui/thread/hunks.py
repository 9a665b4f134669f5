"""Decisions over a diff's hunks, as values: what a set of accept/reject decisions writes
(`decide`), carrying decisions over to a newer diff of the same file (`carry_decisions`), and
which hunks of a newer diff make a change not seen before (`changed_hunks`). Pure; the review
screen drives these and the write gate passes their `ReviewedWrite` on to the file host."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from acp_tui.thread.diff import FileDiff, Hunk, apply_hunks


@dataclass(frozen=True)
class ReviewedWrite:
    """What the user decided in review: the (possibly merged) content and how many hunks of
    the proposed change it keeps."""

    content: str
    accepted: int
    total: int
    # The on-disk text the decisions were made against (it may have changed during review).
    base: str | None = field(default=None, compare=False)
    base_known: bool = field(default=False, compare=False)
    # Lines the accepted hunks add / remove (what the write changes on disk).
    added: int = field(default=0, compare=False)
    removed: int = field(default=0, compare=False)


HunkDecision = Literal["accepted", "rejected"]


def decide(diff: FileDiff, decisions: Mapping[int, HunkDecision]) -> ReviewedWrite | None:
    """The write the decisions make: undecided hunks count as accepted; None when every hunk of a
    non-empty diff is rejected (the change is rejected as a whole)."""
    total = len(diff.hunks)
    accepted = {h.index for h in diff.hunks if decisions.get(h.index) != "rejected"}
    if total and not accepted:
        return None
    kinds = [line.kind for h in diff.hunks if h.index in accepted for line in h.lines]
    return ReviewedWrite(
        apply_hunks(diff, accepted),
        len(accepted),
        total,
        base=diff.old_text,
        base_known=True,
        added=kinds.count("add"),
        removed=kinds.count("remove"),
    )


def _hunk_key(hunk: Hunk) -> tuple[tuple[str, str, str], ...]:
    """What a hunk changes (its removed and added lines), independent of where it sits."""
    return tuple((line.kind, line.text, line.eol) for line in hunk.lines if line.kind != "context")


def carry_decisions(
    old: FileDiff, decisions: Mapping[int, HunkDecision], new: FileDiff
) -> dict[int, HunkDecision]:
    """Decisions for `new`'s hunks: a hunk that makes the same change as a decided hunk of `old`
    keeps that decision (matched in order when the same change occurs more than once)."""
    queues: dict[tuple[tuple[str, str, str], ...], list[HunkDecision | None]] = {}
    for hunk in old.hunks:
        queues.setdefault(_hunk_key(hunk), []).append(decisions.get(hunk.index))
    carried: dict[int, HunkDecision] = {}
    for hunk in new.hunks:
        queue = queues.get(_hunk_key(hunk))
        if queue:
            state = queue.pop(0)
            if state is not None:
                carried[hunk.index] = state
    return carried


def changed_hunks(old: FileDiff, new: FileDiff) -> set[int]:
    """`new`'s hunks that make a change none of `old`'s hunks made (matched in order)."""
    counts: dict[tuple[tuple[str, str, str], ...], int] = {}
    for hunk in old.hunks:
        key = _hunk_key(hunk)
        counts[key] = counts.get(key, 0) + 1
    changed: set[int] = set()
    for hunk in new.hunks:
        key = _hunk_key(hunk)
        if counts.get(key, 0):
            counts[key] -= 1
        else:
            changed.add(hunk.index)
    return changed

"""The hunk algebra of a review: decide, carry_decisions, changed_hunks."""

from acp_tui.thread.diff import compute_diff
from acp_tui.thread.hunks import ReviewedWrite, carry_decisions, changed_hunks, decide

OLD = "".join(f"{i}\n" for i in range(1, 31))
NEW = OLD.replace("2\n", "two\n", 1).replace("15\n", "fifteen\n").replace("28\n", "28\n28b\n")


def test_decide_counts_undecided_as_accepted() -> None:
    diff = compute_diff("/f", OLD, NEW)
    assert len(diff.hunks) == 3
    assert decide(diff, {}) == ReviewedWrite(NEW, 3, 3)
    result = decide(diff, {1: "rejected", 2: "accepted"})
    assert result == ReviewedWrite(NEW.replace("fifteen\n", "15\n"), 2, 3)
    assert decide(diff, {0: "rejected", 1: "rejected", 2: "rejected"}) is None


def test_decide_on_an_empty_diff_keeps_the_content() -> None:
    assert decide(compute_diff("/f", "x\n", "x\n"), {}) == ReviewedWrite("x\n", 0, 0)


def test_carry_decisions_keeps_hunks_that_make_the_same_change() -> None:
    old = compute_diff("/f", OLD, NEW)
    decisions = {0: "rejected", 1: "accepted", 2: "rejected"}
    # the disk changed next to hunk 2 (line 16): hunk 2 now differs, 1 and 3 are the same change
    disk = OLD.replace("16\n", "sixteen\n")
    new = compute_diff("/f", disk, NEW)
    assert len(new.hunks) == 3
    assert carry_decisions(old, decisions, new) == {0: "rejected", 2: "rejected"}  # type: ignore[arg-type]


def test_carry_decisions_follows_hunks_that_moved_and_drops_vanished_ones() -> None:
    old = compute_diff("/f", OLD, NEW)
    # the disk already holds the agent's first change and gained 10 lines at the top
    disk = "".join(f"top {i}\n" for i in range(10)) + OLD.replace("2\n", "two\n", 1)
    new = compute_diff("/f", disk, NEW)
    assert len(new.hunks) == 3  # remove the top lines, fifteen, 28b
    carried = carry_decisions(old, {0: "accepted", 1: "rejected", 2: "accepted"}, new)
    assert carried == {1: "rejected", 2: "accepted"}


def test_changed_hunks_are_the_ones_making_a_new_change() -> None:
    old = compute_diff("/f", OLD, NEW)
    assert changed_hunks(old, compute_diff("/f", OLD, NEW)) == set()
    new = compute_diff("/f", OLD.replace("16\n", "sixteen\n"), NEW)
    assert changed_hunks(old, new) == {1}
    # the same change twice in the new diff but once in the old: the second one is new
    twice = compute_diff("/f", "a\n" + "x\n" * 10 + "a\n", "b\n" + "x\n" * 10 + "b\n")
    once = compute_diff("/f", "a\n" + "x\n" * 10 + "c\n", "b\n" + "x\n" * 10 + "c\n")
    assert changed_hunks(once, twice) == {1}

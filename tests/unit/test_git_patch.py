"""A v2 diff's git patch read into file diffs: line numbers, new and deleted files, the
missing final newline, and malformed or huge input read bounded, never an error."""

from __future__ import annotations

from acp_tui.protocol.models import PatchDiff
from acp_tui.thread.git_patch import MAX_FILES, parse_git_patch, patch_diffs

TWO = (
    "diff --git /w/a.py /w/a.py\n--- /w/a.py\n+++ /w/a.py\n"
    "@@ -10,3 +10,4 @@ def f():\n x\n-y\n+y2\n+y3\n z\n"
    "@@ -40 +41 @@\n-old\n\\ No newline at end of file\n+new\n\\ No newline at end of file\n"
    "diff --git /w/new.txt /w/new.txt\nnew file mode 100644\n--- /dev/null\n+++ /w/new.txt\n"
    "@@ -0,0 +1,2 @@\n+one\n+two\n"
    "diff --git /w/gone.txt /w/gone.txt\ndeleted file mode 100644\n--- /w/gone.txt\n+++ /dev/null\n"
    "@@ -1 +0,0 @@\n-bye\n"
)


def test_hunks_keep_their_line_numbers() -> None:
    a, new, gone = parse_git_patch(TWO)
    assert a.path == "/w/a.py" and (a.added, a.removed) == (3, 2)
    first, second = a.hunks
    assert [(line.kind, line.old_no, line.new_no) for line in first.lines] == [
        ("context", 10, 10), ("remove", 11, None), ("add", None, 11), ("add", None, 12),
        ("context", 12, 13),
    ]  # fmt: skip
    assert [(line.old_no, line.new_no, line.eol) for line in second.lines] == [
        (40, None, ""), (None, 41, ""),
    ]  # fmt: skip
    assert a.old_text == "x\ny\nz\nold" and a.new_text == "x\ny2\ny3\nz\nnew"
    assert new.is_new_file and new.old_text is None and new.new_text == "one\ntwo\n"
    assert gone.is_deletion and gone.path == "/w/gone.txt" and gone.new_text == ""


def test_malformed_and_huge_patches_are_read_bounded() -> None:
    assert parse_git_patch("") == []
    assert parse_git_patch("diff --git /a /a\n@@ nonsense @@\n+x\n") == []
    assert parse_git_patch("@@ -1 +1 @@\n-a\n+b\n") == []  # no section
    many = "".join(f"diff --git /f{i} /f{i}\n@@ -1 +1 @@\n-a\n+b\n" for i in range(MAX_FILES + 50))
    assert len(parse_git_patch(many)) == MAX_FILES
    huge = "diff --git /a /a\n@@ -1,999999999 +1,999999999 @@\n" + " x\n" * 30_000
    (diff,) = parse_git_patch(huge)
    assert len(diff.hunks[0].lines) < 20_000


def test_only_git_patches_are_read() -> None:
    raw = {"type": "diff", "changes": [], "patch": {"format": "git_patch", "text": TWO}}
    assert len(patch_diffs(PatchDiff(raw=raw))) == 3
    other = {**raw, "patch": {"format": "_svn", "text": TWO}}
    assert patch_diffs(PatchDiff(raw=other)) == []

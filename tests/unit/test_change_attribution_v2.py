"""A v2 diff (a git patch) in the change attribution: the file it changes in one hunk is named
and compared with the disk as a fragment; a new file by its text; a file changed in several
hunks or deleted is named by nothing to compare (no false "differs" note)."""

from __future__ import annotations

from pathlib import Path

from acp_tui.client.change_attribution import diff_texts, named_paths, shows
from acp_tui.protocol.models import PatchDiff
from acp_tui.thread.entries import ToolCallEntry


def patch_call(text: str) -> ToolCallEntry:
    raw = {"type": "diff", "changes": [], "patch": {"format": "git_patch", "text": text}}
    return ToolCallEntry("c1", kind="edit", content=[PatchDiff(raw=raw)])


def test_a_git_patch_is_compared_with_the_disk(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    edit = (
        f"diff --git {notes} {notes}\n--- {notes}\n+++ {notes}\n"
        "@@ -1,3 +1,3 @@\n first\n-old line\n+new line\n last\n"
    )
    hello = tmp_path / "hello.txt"
    new = (
        f"diff --git {hello} {hello}\nnew file mode 100644\n--- /dev/null\n+++ {hello}\n"
        "@@ -0,0 +1 @@\n+hi\n"
    )
    texts = diff_texts(patch_call(edit + new), tmp_path)
    assert set(texts) == {notes, hello}
    before = "zero\nfirst\nold line\nlast\nmore\n"
    assert shows(texts[notes], before, before.replace("old line", "new line"))
    assert not shows(texts[notes], before, before.replace("old line", "other line"))
    assert shows(texts[hello], None, "hi\n")
    assert named_paths(patch_call(edit), tmp_path) == {notes}


def test_several_hunks_or_a_deletion_give_nothing_to_compare(tmp_path: Path) -> None:
    a = tmp_path / "a.txt"
    two = f"diff --git {a} {a}\n--- {a}\n+++ {a}\n@@ -1 +1 @@\n-x\n+y\n@@ -9 +9 @@\n-p\n+q\n"
    gone = (
        f"diff --git {a} {a}\ndeleted file mode 100644\n--- {a}\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
    )
    assert diff_texts(patch_call(two), tmp_path) == {}
    assert diff_texts(patch_call(gone), tmp_path) == {}

"""A worktree's changes against a real git repository: the agent writes (new file, edit,
deletion, binary, untracked directory, committed or not), the diff lists them, the plan marks
conflicts, the writer applies through the host's walk and never outside the main checkout."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from acp_tui.worktrees.apply import (
    HARD_LINKED,
    Action,
    ApplyConflict,
    ApplyError,
    ApplySummary,
    CheckoutWriter,
    apply_all,
    apply_item,
    apply_plan,
)
from acp_tui.worktrees.worktree_diff import Kind, Status, worktree_diff
from acp_tui.worktrees.worktrees import Worktree, WorktreeError, create_worktree, remove_worktree
from tests.git_repo import commit_all, make_repo

EDITED = "one\ntwo (agent)\nthree\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path,
        {
            "README.md": "hello\n",
            "src/app.py": "one\ntwo\nthree\n",
            "old.txt": "to be deleted\n",
            "keep.txt": "untouched\n",
        },
    )


def agent_writes(wt: Worktree) -> None:
    """What an agent leaves in its worktree: one change committed, the rest not."""
    (wt.path / "src" / "app.py").write_text(EDITED)
    commit_all(wt.path, "agent commits an edit")
    (wt.path / "old.txt").unlink()
    (wt.path / "NEW.md").write_text("new file\n")
    (wt.path / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0binary")
    (wt.path / "pkg" / "sub").mkdir(parents=True)
    (wt.path / "pkg" / "__init__.py").write_text("")
    (wt.path / "pkg" / "sub" / "mod.py").write_text("x = 1\ny = 2\n")


def lexists(path: Path) -> bool:
    return os.path.lexists(path)


def read(path: Path) -> str:
    return path.read_text()


async def test_diff_lists_committed_uncommitted_and_untracked_changes(repo: Path) -> None:
    wt = await create_worktree(repo, "agent")
    agent_writes(wt)
    changes = {c.path: c for c in await worktree_diff(wt)}
    assert sorted(changes) == [
        "NEW.md",
        "logo.png",
        "old.txt",
        "pkg/__init__.py",
        "pkg/sub/mod.py",
        "src/app.py",
    ]
    app = changes["src/app.py"]
    assert (app.status, app.kind, app.added, app.removed) == (Status.MODIFIED, Kind.TEXT, 1, 1)
    assert app.diff is not None and app.diff.old_text == "one\ntwo\nthree\n"
    assert app.diff.new_text == EDITED and not app.untracked
    old = changes["old.txt"]
    assert (old.status, old.added, old.removed) == (Status.DELETED, 0, 1)
    new = changes["NEW.md"]
    assert (new.status, new.added, new.untracked) == (Status.ADDED, 1, True)
    assert changes["pkg/sub/mod.py"].added == 2 and changes["pkg/sub/mod.py"].untracked
    logo = changes["logo.png"]
    assert (logo.kind, logo.diff, logo.reason) == (Kind.BINARY, None, "binary: not diffed")


async def test_files_over_the_size_cap_are_listed_not_diffed(repo: Path) -> None:
    wt = await create_worktree(repo, "big")
    (wt.path / "big.txt").write_text("x" * 5000)
    (changed,) = await worktree_diff(wt, max_bytes=4096)
    assert (changed.path, changed.kind, changed.diff) == ("big.txt", Kind.TOO_LARGE, None)


async def test_apply_directly_then_remove(repo: Path) -> None:
    wt = await create_worktree(repo, "agent")
    agent_writes(wt)
    summary = await apply_all(wt)
    assert sorted(summary.applied) == [
        ("NEW.md", "created"),
        ("logo.png", "copied whole, 17 bytes"),
        ("old.txt", "deleted"),
        ("pkg/__init__.py", "created"),
        ("pkg/sub/mod.py", "created"),
        ("src/app.py", "changed"),
    ]
    assert summary.skipped == [] and summary.failed == []
    assert read(repo / "src" / "app.py") == EDITED
    assert not (repo / "old.txt").exists()
    assert read(repo / "pkg" / "sub" / "mod.py") == "x = 1\ny = 2\n"
    assert read(repo / "keep.txt") == "untouched\n"
    assert (repo / "logo.png").read_bytes() == b"\x89PNG\r\n\x1a\n\0\0\0binary"
    # applied again: nothing left to do
    again = await apply_all(wt)
    reasons = dict(again.skipped)
    assert again.applied == []
    assert len(reasons) == 6 and set(reasons.values()) == {"the main checkout already has this"}
    await remove_worktree(wt)
    assert not wt.path.exists()


async def test_a_file_the_main_checkout_changed_since_the_base_is_a_conflict(repo: Path) -> None:
    wt = await create_worktree(repo, "agent")
    agent_writes(wt)
    (repo / "src" / "app.py").write_text("one\ntwo\nthree\nfour (user)\n")
    (repo / "NEW.md").write_text("the user's own\n")
    plan = {item.path: item for item in await apply_plan(wt)}
    app = plan["src/app.py"]
    assert app.conflict and app.merged and "merge into it without overlapping" in app.reason
    # the worktree's change on top of the user's: applying keeps both
    assert app.old == "one\ntwo\nthree\nfour (user)\n"
    assert app.new == "one\ntwo (agent)\nthree\nfour (user)\n"
    assert app.diff is not None and (app.diff.added, app.diff.removed) == (1, 1)
    assert plan["NEW.md"].conflict and "its own file of this name" in plan["NEW.md"].reason
    assert plan["NEW.md"].action is Action.CHANGE
    assert not plan["old.txt"].conflict and plan["old.txt"].action is Action.DELETE
    summary = await apply_all(wt)
    assert ("src/app.py", f"conflict: {app.reason}") in summary.skipped
    assert read(repo / "src" / "app.py") == "one\ntwo\nthree\nfour (user)\n"


async def test_overlapping_changes_show_the_worktrees_whole_version(repo: Path) -> None:
    wt = await create_worktree(repo, "agent")
    agent_writes(wt)
    (repo / "src" / "app.py").write_text("one\ntwo (user)\nthree\n")
    plan = {item.path: item for item in await apply_plan(wt)}
    app = plan["src/app.py"]
    assert app.conflict and not app.merged and "overlap" in app.reason
    assert (app.old, app.new) == ("one\ntwo (user)\nthree\n", EDITED)
    assert app.diff is not None and app.diff.path == str(repo / "src" / "app.py")


async def test_the_writer_refuses_content_that_changed_since_review(repo: Path) -> None:
    writer = CheckoutWriter(repo)
    with pytest.raises(ApplyConflict):
        await writer.write("README.md", b"new\n", expected=b"not what is there\n")
    with pytest.raises(ApplyConflict):
        await writer.delete("README.md", expected=b"not what is there\n")
    assert read(repo / "README.md") == "hello\n"
    with pytest.raises(ApplyError, match="not a path inside the checkout"):
        await writer.write("../escape.txt", b"x", expected=None)


async def test_a_symlink_in_the_worktree_never_makes_apply_write_outside(
    repo: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    wt = await create_worktree(repo, "evil")
    # the agent leaves a link to a directory outside, and files "inside" it
    os.symlink(outside, wt.path / "escape")
    os.symlink(outside / "planted.txt", wt.path / "planted.txt")
    (wt.path / "docs").mkdir()
    (wt.path / "docs" / "guide.md").write_text("guide\n")
    # and the main checkout has its own link where the worktree has a real directory
    os.symlink(outside, repo / "docs")
    commit_all(repo, "docs link")  # (the base of the worktree stays before it)
    summary = await apply_all(wt)
    assert list(outside.iterdir()) == []
    assert not lexists(repo / "escape") and not lexists(repo / "planted.txt")
    skipped = dict(summary.skipped)
    assert skipped["escape"] == "symbolic link in the worktree: not applied, copy it by hand"
    assert skipped["planted.txt"].startswith("symbolic link")
    assert "docs/guide.md" in skipped and "symbolic link" in skipped["docs/guide.md"]
    # the writer, asked directly, refuses too
    with pytest.raises(ApplyError, match="symbolic link in the main checkout"):
        await CheckoutWriter(repo).write("docs/guide.md", b"guide\n", expected=None)
    assert list(outside.iterdir()) == []


async def test_base_texts_are_read_exactly_in_one_batch(tmp_path: Path) -> None:
    files = {f"f{i:02}.txt": f"file {i}\r\nno final newline" for i in range(30)}
    files.update({"big.txt": "x" * 5000, "bin.dat": "a\0b"})
    repo = make_repo(tmp_path, files)
    wt = await create_worktree(repo, "many")
    for name in files:
        (wt.path / name).write_bytes(b"changed\n")
    changes = {c.path: c for c in await worktree_diff(wt, max_bytes=4096)}
    assert changes["big.txt"].kind is Kind.TOO_LARGE
    assert changes["bin.dat"].kind is Kind.BINARY
    for i in range(30):
        diff = changes[f"f{i:02}.txt"].diff
        assert diff is not None and diff.old_text == f"file {i}\r\nno final newline"
        assert (diff.added, diff.removed) == (1, 2)


async def test_a_rewritten_dot_git_file_is_not_followed(repo: Path, tmp_path: Path) -> None:
    wt = await create_worktree(repo, "agent")
    (tmp_path / "other").mkdir()
    other = make_repo(tmp_path / "other")  # a repository the agent controls
    write_text(wt.path / ".git", f"gitdir: {other / '.git'}\n")
    with pytest.raises(WorktreeError, match=r"\.git does not point into .*'s worktrees"):
        await worktree_diff(wt)


def write_text(path: Path, text: str) -> None:
    path.write_text(text)


async def test_binary_files_are_copied_whole_and_checked_like_texts(repo: Path) -> None:
    write_bytes(repo / "img.bin", b"\0base")
    commit_all(repo, "a binary")
    wt = await create_worktree(repo, "bin")
    write_bytes(wt.path / "img.bin", b"\0agent")
    write_bytes(wt.path / "new.bin", b"\0new")
    (item_new, item_img) = sorted(await apply_plan(wt), key=lambda i: i.path != "new.bin")
    assert (item_img.action, item_img.conflict, item_img.whole) == (Action.COPY, False, b"\0base")
    assert (item_new.action, item_new.conflict, item_new.size) == (Action.COPY, False, 4)
    # the main checkout changes the binary since the base: a conflict, not copied by apply_all
    write_bytes(repo / "img.bin", b"\0user")
    plan = {i.path: i for i in await apply_plan(wt)}
    assert plan["img.bin"].conflict and "applying replaces it" in plan["img.bin"].reason
    summary = await apply_all(wt)
    assert summary.applied == [("new.bin", "copied whole, 4 bytes")]
    assert (repo / "img.bin").read_bytes() == b"\0user"
    # a deleted binary is a whole-file deletion, checked against the bytes planned
    (wt.path / "img.bin").unlink()
    write_bytes(repo / "img.bin", b"\0base")
    (gone,) = [i for i in await apply_plan(wt) if i.path == "img.bin"]
    assert (gone.action, gone.conflict, gone.expected) == (Action.DELETE, False, b"\0base")
    write_bytes(repo / "img.bin", b"\0changed meanwhile")
    result = ApplySummary()
    assert not await apply_item(CheckoutWriter(repo), gone, result)
    assert "changed in the main checkout" in result.failed[0][1]
    assert (repo / "img.bin").read_bytes() == b"\0changed meanwhile"


def write_bytes(path: Path, data: bytes) -> None:
    path.write_bytes(data)


async def test_a_worktree_file_hard_linked_to_an_outside_file_is_not_applied(
    repo: Path, tmp_path: Path
) -> None:
    """Issue 40: apply copied a worktree file that was a hard link to a file outside."""
    outside = tmp_path / "secret.txt"
    outside.write_text("the user's secret\n")
    big = tmp_path / "secret.bin"
    big.write_bytes(b"\0binary secret")
    wt = await create_worktree(repo, "evil")
    os.link(outside, wt.path / "notes.txt")  # (text: through the diff)
    os.link(big, wt.path / "blob.bin")  # (binary: copied whole)
    items = {item.path: item for item in await apply_plan(wt)}
    for name in ("notes.txt", "blob.bin"):
        assert items[name].action is Action.SKIP
        assert items[name].reason.startswith("it has several names (hard links)")
    summary = await apply_all(wt)
    assert not lexists(repo / "notes.txt") and not lexists(repo / "blob.bin")
    assert sorted(dict(summary.skipped)) == ["blob.bin", "notes.txt"]

    # linked after the plan: the whole copy reads it again and refuses
    os.unlink(wt.path / "blob.bin")
    (wt.path / "blob.bin").write_bytes(b"\0binary, the worktree's own")
    [item] = [i for i in await apply_plan(wt) if i.path == "blob.bin"]
    assert item.action is Action.COPY
    os.unlink(wt.path / "blob.bin")
    os.link(big, wt.path / "blob.bin")
    summary = ApplySummary()
    assert not await apply_item(CheckoutWriter(repo), item, summary)
    assert summary.failed == [("blob.bin", "blob.bin: " + HARD_LINKED)]
    assert not lexists(repo / "blob.bin")

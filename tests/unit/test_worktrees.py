"""Worktrees against a real git repository: create, list, remove, and the clear errors."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from acp_tui.worktrees import git as git_module
from acp_tui.worktrees.worktrees import (
    Worktree,
    WorktreeError,
    create_worktree,
    list_worktrees,
    remove_worktree,
    slugify,
    worktrees_root,
)
from tests.git_repo import GIT_IDENTITY, make_repo, run_git


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path, {"README.md": "hello\n", "src/app.py": "print(1)\n"})


def real(path: Path) -> Path:
    return path.resolve()


def read(path: Path) -> str:
    return path.read_text()


def branches(repo: Path) -> list[str]:
    return run_git(repo, "branch", "--format=%(refname:short)").split()


async def test_create_makes_a_branch_and_directory_outside_the_repo(repo: Path) -> None:
    wt = await create_worktree(repo, "Fix the Parser!")
    head = run_git(repo, "rev-parse", "HEAD").strip()
    assert wt.branch == "acp-tui/fix-the-parser-1"
    assert wt.base == head and wt.repo == real(repo)
    assert read(wt.path / "src" / "app.py") == "print(1)\n"
    assert wt.path.is_relative_to(real(worktrees_root()))
    assert not wt.path.is_relative_to(repo)
    assert wt.path.parent.name.startswith("repo-")
    assert "acp-tui/fix-the-parser-1" in branches(repo)
    assert run_git(wt.path, "rev-parse", "--abbrev-ref", "HEAD").strip() == wt.branch


async def test_a_second_worktree_of_the_same_name_gets_the_next_number(repo: Path) -> None:
    first = await create_worktree(repo, "task")
    second = await create_worktree(repo, "task")
    assert (first.branch, second.branch) == ("acp-tui/task-1", "acp-tui/task-2")
    assert first.path != second.path


async def test_name_clash_without_numbering_is_a_clear_error(repo: Path) -> None:
    await create_worktree(repo, "task", unique=False)
    with pytest.raises(WorktreeError, match=r"acp-tui/task already exists"):
        await create_worktree(repo, "task", unique=False)


async def test_a_subdirectory_maps_to_the_same_subdirectory(repo: Path) -> None:
    wt = await create_worktree(repo / "src", "sub")
    assert wt.repo == real(repo)
    assert wt.subdir == "src" and wt.cwd == wt.path / "src" and wt.cwd.is_dir()


async def test_not_a_repository(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(WorktreeError, match=r"is not inside a git repository$"):
        await create_worktree(plain, "x")


async def test_unborn_and_detached_head(tmp_path: Path, repo: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    run_git(empty, "init", "-q")
    with pytest.raises(WorktreeError, match="no commit yet"):
        await create_worktree(empty, "x")
    run_git(repo, "checkout", "-q", "--detach")
    with pytest.raises(WorktreeError, match="detached HEAD"):
        await create_worktree(repo, "x")


async def test_git_missing_is_a_clear_error(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(repo / "nowhere"))
    with pytest.raises(WorktreeError, match="git is not installed"):
        await create_worktree(repo, "x")


async def test_list_gives_back_acp_tuis_own_worktrees_with_their_base(repo: Path) -> None:
    made = await create_worktree(repo, "one")
    run_git(repo, "worktree", "add", "-q", "-b", "other", str(repo.parent / "mine"))
    (repo / "README.md").write_text("moved on\n")
    run_git(repo, "commit", "-qam", "main moves on")
    listed = await list_worktrees(repo)
    assert [(w.path, w.branch, w.base) for w in listed] == [(made.path, made.branch, made.base)]


async def test_remove_deletes_worktree_and_branch(repo: Path) -> None:
    wt = await create_worktree(repo, "gone")
    (wt.path / "scratch.txt").write_text("uncommitted\n")
    await remove_worktree(wt)
    assert not wt.path.exists()
    assert wt.branch not in branches(repo)
    assert await list_worktrees(repo) == []


async def test_remove_keeps_the_branch_when_asked(repo: Path) -> None:
    wt = await create_worktree(repo, "keep")
    await remove_worktree(wt, delete_branch=False)
    assert not wt.path.exists() and wt.branch in branches(repo)


async def test_remove_refuses_a_path_outside_acp_tuis_directory(repo: Path) -> None:
    other = repo.parent / "theirs"
    run_git(repo, "worktree", "add", "-q", "-b", "acp-tui/theirs-1", str(other))
    foreign = Worktree(repo, other, "acp-tui/theirs-1", "HEAD")
    with pytest.raises(WorktreeError, match="is not one of acp-tui's worktrees"):
        await remove_worktree(foreign)
    assert other.is_dir() and "acp-tui/theirs-1" in branches(repo)
    # nor through a symbolic link placed under acp-tui's directory
    link = worktrees_root() / "sneaky"
    link.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(other, link)
    with pytest.raises(WorktreeError, match="is not one of acp-tui's worktrees"):
        await remove_worktree(Worktree(repo, link, "acp-tui/theirs-1", "HEAD"))
    assert other.is_dir()


async def test_remove_refuses_a_branch_acp_tui_did_not_name(repo: Path) -> None:
    wt = await create_worktree(repo, "x")
    with pytest.raises(WorktreeError, match="not a branch acp-tui made"):
        await remove_worktree(Worktree(wt.repo, wt.path, "main", wt.base))
    assert "main" in branches(repo)


async def test_a_hung_git_is_stopped(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in GIT_IDENTITY.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("GIT_EDITOR", "sleep 61.25 #")  # an editor that never returns
    with pytest.raises(git_module.GitError, match="longer than"):
        await git_module.git(repo, "commit", "--allow-empty", time_limit=0.5)
    assert not running_with(b"61.25")


def running_with(marker: bytes) -> list[Path]:
    """Processes whose command line holds `marker`."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if marker in (proc / "cmdline").read_bytes():
                found.append(proc)
        except OSError:
            pass
    return found


def test_slugs_are_safe_for_branches_and_directories() -> None:
    assert slugify("Fix: the ../parser & co") == "fix-the-.-parser-co"
    assert slugify("../..") == ""
    assert slugify("x" * 80) == "x" * 40
    assert slugify("name.lock") == "name"


async def test_remove_a_worktree_deleted_by_hand(repo: Path) -> None:
    wt = await create_worktree(repo, "rm")
    remove_tree(wt.path)
    await remove_worktree(wt)
    assert wt.branch not in branches(repo)
    assert str(wt.path) not in run_git(repo, "worktree", "list")


def remove_tree(path: Path) -> None:
    shutil.rmtree(path)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs to give the repository another owner")
async def test_a_repository_git_refuses_to_use_says_why(repo: Path) -> None:
    os.chown(repo, 65534, 65534)  # "dubious ownership": git will not use it
    with pytest.raises(WorktreeError, match=r"git cannot use .*dubious ownership"):
        await create_worktree(repo, "x")


async def test_a_worktree_made_from_a_worktree_belongs_to_the_main_repository(repo: Path) -> None:
    first = await create_worktree(repo, "first")
    (first.path / "src" / "app.py").write_text("print(2)\n")  # the first tab's own work
    second = await create_worktree(first.path / "src", "second")
    # filed beside the first, under the repository's directory, not under the worktree's name
    assert second.path.parent == first.path.parent
    assert second.path.parent.name.startswith("repo-")
    assert second.repo == real(repo) and second.subdir == "src"
    assert second.branch == "acp-tui/second-1"
    assert run_git(second.path, "rev-parse", "--abbrev-ref", "HEAD").strip() == second.branch
    assert read(second.cwd / "app.py") == "print(1)\n"  # a fresh checkout of the base
    listed = await list_worktrees(first.path)  # listed from either, both are the repository's
    assert sorted(w.branch for w in listed) == ["acp-tui/first-1", "acp-tui/second-1"]
    assert all(w.repo == real(repo) for w in listed)
    await remove_worktree(first)  # the first goes; the second is still the repository's
    await remove_worktree(second)
    assert not second.path.exists()
    assert branches(repo) == ["main"]

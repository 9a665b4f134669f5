"""Git worktrees acp-tui makes for sessions, so that agents working in parallel never collide.

`create_worktree(repo, name)` runs ``git worktree add -b acp-tui/<slug>-<n> <dir> HEAD``: a new
branch named after the session (the slug keeps safe characters only, `n` makes it unique) in a
directory acp-tui owns outside the repository,
``$XDG_DATA_HOME/acp-tui/worktrees/<repo name>-<hash of the repo path>/<slug>-<n>``. The commit
it starts from (the base) is recorded in the repository's config (``branch.<branch>.acptuibase``)
so that `list_worktrees` can give it back after a restart. `remove_worktree` removes a worktree
and its branch, and refuses anything that is not under acp-tui's directory.

Given a subdirectory of a repository, the repository's top level is used and the session's cwd
is the same subdirectory in the worktree (`Worktree.cwd`). Given a linked worktree (a worktree
tab asking for another worktree), the repository is its main checkout: the new worktree is filed
and listed beside the others, and applied into and removed from the main checkout; it starts
from the HEAD of the checkout it was asked from. Failures are `WorktreeError`s with a
one-line message. Everything runs git through `workspace.git` (asyncio, bounded time).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from acp_tui.host import new_files
from acp_tui.host.local_files import LocalFileError, read_regular
from acp_tui.host.permission_rules import user_data_dir
from acp_tui.worktrees.git import CHECKOUT_TIMEOUT, GitError, first_line, git

BRANCH_PREFIX = "acp-tui/"
BASE_KEY = "acptuibase"
MAX_SLUG = 40
MAX_TRIES = 100


class WorktreeError(Exception):
    """A worktree that could not be made, listed or removed; a one-line message for the user."""


@dataclass(frozen=True)
class Worktree:
    """A worktree acp-tui made: its repository's top level, its directory, its branch, the
    commit it started from, and the subdirectory the session works in (relative, "" for the
    top level)."""

    repo: Path
    path: Path
    branch: str
    base: str
    subdir: str = ""

    @property
    def cwd(self) -> Path:
        """Where the session runs: the same subdirectory of the worktree as it was of the repo."""
        return self.path / self.subdir if self.subdir else self.path

    @property
    def name(self) -> str:
        """The worktree's short name (its directory's name, the slug and number)."""
        return self.path.name


def worktrees_root() -> Path:
    """The directory every acp-tui worktree lives under."""
    return user_data_dir() / "worktrees"


def repo_dir(repo: Path) -> Path:
    """The directory of one repository's worktrees: `<name>-<short hash of its path>`."""
    digest = hashlib.sha256(os.fsencode(str(repo))).hexdigest()[:10]
    return worktrees_root() / f"{slugify(repo.name) or 'repo'}-{digest}"


def slugify(name: str) -> str:
    """`name` in letters, digits, `.`, `_` and `-` only (lower case, at most 40 characters)."""
    slug = re.sub(r"[^a-z0-9._-]+", "-", name.lower())
    slug = re.sub(r"\.{2,}", ".", slug)  # no `..` (git refuses it in branch names)
    slug = slug[:MAX_SLUG].strip("-._")
    return slug.removesuffix(".lock")


async def repository(path: Path) -> tuple[Path, str]:
    """The top level of the repository `path` is in, and `path` relative to it ("" at the top)."""
    path = await asyncio.to_thread(_real, path)
    if not await asyncio.to_thread(path.is_dir):
        raise WorktreeError(f"{path} is not a directory")
    result = await git(path, "rev-parse", "--show-toplevel", "--show-prefix", check=False)
    if result.returncode != 0:
        if "not a git repository" in result.stderr:
            raise WorktreeError(f"{path} is not inside a git repository")
        raise WorktreeError(f"git cannot use {path}: {first_line(result.stderr)}")
    lines = result.text.split("\n")
    if not lines or not lines[0]:
        raise WorktreeError(f"{path} is inside a bare git repository (no working tree)")
    top = await asyncio.to_thread(_real, Path(lines[0]))
    prefix = lines[1].strip("/") if len(lines) > 1 else ""
    return top, prefix


async def _head(top: Path) -> str:
    """The commit HEAD names, refusing an unborn or detached HEAD."""
    commit = await git(top, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False)
    if commit.returncode != 0:
        raise WorktreeError(f"{top} has no commit yet: commit once before making a worktree")
    branch = await git(top, "symbolic-ref", "--quiet", "HEAD", check=False)
    if branch.returncode != 0:
        raise WorktreeError(
            f"{top} has a detached HEAD: check out a branch before making a worktree"
        )
    return commit.text.strip()


async def _branch_exists(top: Path, branch: str) -> bool:
    result = await git(top, "show-ref", "--verify", "--quiet", f"refs/heads/{branch}", check=False)
    return result.returncode == 0


async def main_checkout(top: Path) -> Path:
    """The main checkout of the repository whose checkout (main or linked worktree) is `top`:
    the first entry `git worktree list` gives; `top` itself for a bare repository's worktree."""
    listing = await git(top, "worktree", "list", "--porcelain", "-z")
    records = _porcelain(listing.stdout)
    if not records or "bare" in records[0] or not records[0].get("worktree"):
        return top
    return await asyncio.to_thread(_real, Path(records[0]["worktree"]))


async def create_worktree(repo: Path, name: str, *, unique: bool = True) -> Worktree:
    """Make a worktree of the repository `repo` is in, on a new branch named after `name`.

    With `unique` (the default) the first free ``acp-tui/<slug>-<n>`` is taken; without it the
    name must be free as given (``acp-tui/<slug>``), else a `WorktreeError` says it is taken.
    """
    try:
        here, prefix = await repository(repo)
        base = await _head(here)
        top = await main_checkout(here)
        slug = slugify(name) or "session"
        branch, path = await _free_name(top, slug, unique)
        path = await asyncio.to_thread(_prepare, path)
        await git(
            top,
            "worktree",
            "add",
            "--quiet",
            "-b",
            branch,
            str(path),
            base,
            time_limit=CHECKOUT_TIMEOUT,
        )
        await git(top, "config", f"branch.{branch}.{BASE_KEY}", base)
    except GitError as error:
        raise WorktreeError(str(error)) from None
    except OSError as error:
        raise WorktreeError(f"cannot make a worktree: {error.strerror or error}") from None
    return Worktree(top, path, branch, base, prefix)


async def _free_name(top: Path, slug: str, unique: bool) -> tuple[str, Path]:
    home = repo_dir(top)
    candidates = (f"{slug}-{n}" for n in range(1, MAX_TRIES + 1)) if unique else iter([slug])
    for candidate in candidates:
        branch = BRANCH_PREFIX + candidate
        path = home / candidate
        taken = await asyncio.to_thread(os.path.lexists, path)
        if not taken and not await _branch_exists(top, branch):
            return branch, path
        if not unique:
            raise WorktreeError(f"a worktree or branch named {branch} already exists")
    raise WorktreeError(f"no free name for a worktree {slug!r}: remove some of them first")


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _prepare(path: Path) -> Path:
    """Make the worktree's parent directory; `path` with that parent real (so the worktree's
    files are read without any symbolic link on the way)."""
    parent = _real(path.parent)  # (the data directory as the user set it up)
    new_files.make_directory(parent)  # below its real part, nothing followed
    return parent / path.name


def owned(path: Path) -> bool:
    """Whether `path` (resolved) lies strictly under acp-tui's worktree directory."""
    root = Path(os.path.realpath(worktrees_root()))
    real = Path(os.path.realpath(path))
    return real != root and real.is_relative_to(root) and ".." not in real.parts


async def list_worktrees(repo: Path) -> list[Worktree]:
    """acp-tui's own worktrees of the repository `repo` is in (for restoring a workspace)."""
    try:
        here, _ = await repository(repo)
        top = await main_checkout(here)
        listing = await git(top, "worktree", "list", "--porcelain", "-z")
    except GitError as error:
        raise WorktreeError(str(error)) from None
    found: list[Worktree] = []
    for record in _porcelain(listing.stdout):
        path, branch = record.get("worktree", ""), record.get("branch", "")
        if not path or not owned(Path(path)) or not branch.startswith("refs/heads/"):
            continue
        branch = branch.removeprefix("refs/heads/")
        if not branch.startswith(BRANCH_PREFIX):
            continue
        base = await _base_of(top, branch)
        found.append(Worktree(top, Path(path), branch, base))
    return found


def _porcelain(data: bytes) -> list[dict[str, str]]:
    """`git worktree list --porcelain -z`: attributes NUL-terminated, records split by an empty
    attribute."""
    records: list[dict[str, str]] = []
    current: dict[str, str] = {}
    for field in data.decode("utf-8", errors="surrogateescape").split("\0"):
        if not field:
            if current:
                records.append(current)
            current = {}
            continue
        key, _, value = field.partition(" ")
        current[key] = value
    if current:
        records.append(current)
    return records


async def _base_of(top: Path, branch: str) -> str:
    recorded = await git(top, "config", "--get", f"branch.{branch}.{BASE_KEY}", check=False)
    if recorded.returncode == 0 and recorded.text.strip():
        return recorded.text.strip()
    merge_base = await git(top, "merge-base", "HEAD", f"refs/heads/{branch}", check=False)
    return merge_base.text.strip()


async def git_dir_args(wt: Worktree) -> tuple[str, str]:
    """``--git-dir``/``--work-tree`` options for running git on the worktree's files without
    trusting its `.git` file (written in the agent's directory, it could point git at another
    repository and its configuration): the git dir is taken from the repository and must be
    the one the `.git` file names."""
    try:
        common = await git(wt.repo, "rev-parse", "--path-format=absolute", "--git-common-dir")
        pointer = await asyncio.to_thread(_read_pointer, wt.path / ".git")
    except GitError as error:
        raise WorktreeError(str(error)) from None
    git_dir = await asyncio.to_thread(_real, Path(pointer))
    worktrees = await asyncio.to_thread(_real, Path(common.text.strip()) / "worktrees")
    if git_dir.parent != worktrees:
        raise WorktreeError(
            f"{wt.path}/.git does not point into {wt.repo}'s worktrees (it was changed): not read"
        )
    return f"--git-dir={git_dir}", f"--work-tree={wt.path}"


def _read_pointer(dotgit: Path) -> str:
    """(blocking) The git dir a worktree's `.git` file names (no symbolic link followed)."""
    try:
        data = read_regular(dotgit, max_bytes=4096)
    except LocalFileError as error:
        raise WorktreeError(f"{dotgit}: {error}") from None
    if data is None:
        raise WorktreeError(f"the worktree {dotgit.parent} no longer exists")
    text = data.decode("utf-8", errors="surrogateescape").strip()
    if not text.startswith("gitdir: "):
        raise WorktreeError(f"{dotgit} is not a worktree's .git file")
    return text.removeprefix("gitdir: ")


async def remove_worktree(wt: Worktree, *, delete_branch: bool = True) -> None:
    """Remove the worktree (``git worktree remove --force``: its uncommitted changes are lost)
    and, with `delete_branch`, its branch. Refuses a path outside acp-tui's worktree directory
    or a branch acp-tui did not name."""
    if not owned(wt.path):
        raise WorktreeError(f"{wt.path} is not one of acp-tui's worktrees: not removed")
    if not wt.branch.startswith(BRANCH_PREFIX):
        raise WorktreeError(f"{wt.branch} is not a branch acp-tui made: not removed")
    try:
        if await asyncio.to_thread(os.path.lexists, wt.path):
            await git(
                wt.repo, "worktree", "remove", "--force", str(wt.path), time_limit=CHECKOUT_TIMEOUT
            )
        else:
            await git(wt.repo, "worktree", "prune")
        if delete_branch and await _branch_exists(wt.repo, wt.branch):
            await git(wt.repo, "branch", "-D", "--quiet", wt.branch)
    except GitError as error:
        raise WorktreeError(str(error)) from None

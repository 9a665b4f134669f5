"""A real git repository for the workspace tests: `git init` in a temporary directory, with an
author set through the environment (works in CI without a global git config)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def run_git(cwd: Path, *args: str) -> str:
    """Run git in `cwd` (blocking, for test set-up); its output."""
    env = {**os.environ, **GIT_IDENTITY, "GIT_CONFIG_GLOBAL": os.devnull}
    done = subprocess.run(
        ["git", "-C", str(cwd), *args], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def make_repo(root: Path, files: dict[str, str] | None = None) -> Path:
    """A repository at `root/repo` on branch main with `files` committed (one commit)."""
    repo = root / "repo"
    repo.mkdir()
    run_git(repo, "init", "-q", "-b", "main")
    for name, text in (files or {"README.md": "hello\n"}).items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    commit_all(repo, "initial")
    return repo


def commit_all(cwd: Path, message: str) -> None:
    run_git(cwd, "add", "-A")
    run_git(cwd, "commit", "-q", "-m", message)

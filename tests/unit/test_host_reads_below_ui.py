"""Files the layers below the UI read that are not the agent's requests go through the host
(`host/local_files.py`): a linked worktree's `.git` pointer, a `--replay` log, the registry's
cached index. A FIFO put at any of them (the `.git` file and what it names are the agent's to
change) is refused at once, never opened for a blocking read that would hang acp-tui."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from acp_tui.client.replay import ReplayError, load_log
from acp_tui.client.sandbox_setup import worktree_git_dirs
from acp_tui.registry.cache import IndexCache


def test_a_fifo_named_by_the_git_file_is_not_waited_on(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    fake = tmp_path / "repo" / ".git" / "worktrees" / "w"
    fake.mkdir(parents=True)
    os.mkfifo(fake / "gitdir")
    (project / ".git").write_text(f"gitdir: {fake}\n")
    assert worktree_git_dirs(project) == []


def test_a_fifo_given_to_replay_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "log.jsonl")
    with pytest.raises(ReplayError, match="FIFO"):
        load_log(tmp_path / "log.jsonl")


def test_a_fifo_in_the_registry_cache_reads_as_no_cache(tmp_path: Path) -> None:
    cache = IndexCache("https://example.invalid/registry.json", tmp_path)
    cache.dir.mkdir(parents=True)
    os.mkfifo(cache.body)
    os.mkfifo(cache.meta_path)
    assert cache.cached() is None
    assert cache.meta() == {}

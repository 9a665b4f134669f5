"""A three-way merge of one text file (`git merge-file`): the worktree's changes since the base
put on top of the main checkout's current text, when the two do not overlap."""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp_tui.host import new_files
from acp_tui.worktrees.git import GitError, git

_NAMES = ("current", "base", "theirs")


def _write_inputs(texts: tuple[str, str, str]) -> Path:
    """(blocking) A private directory (0700) holding the three texts."""
    directory = new_files.private_directory("acp-tui-merge-")
    try:
        for name, text in zip(_NAMES, texts, strict=True):
            new_files.write_new(directory / name, text.encode("utf-8"))
    except BaseException:
        new_files.remove_tree(directory)
        raise
    return directory


async def merge_texts(current: str, base: str, theirs: str) -> str | None:
    """`current` with the change `base` → `theirs` merged in; None when the changes overlap
    (or git cannot merge them)."""
    directory = await asyncio.to_thread(_write_inputs, (current, base, theirs))
    try:
        result = await git(directory, "merge-file", "-p", "--quiet", *_NAMES, check=False)
    except GitError:
        return None
    finally:
        await asyncio.to_thread(new_files.remove_tree, directory)
    if result.returncode != 0:
        return None  # > 0: that many conflicts; < 0: an error
    try:
        return result.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return None

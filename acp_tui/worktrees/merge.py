"""A three-way merge of one text file (`git merge-file`): the worktree's changes since the base
put on top of the main checkout's current text, when the two do not overlap."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path

from acp_tui.worktrees.git import GitError, git

_NAMES = ("current", "base", "theirs")


def _write_inputs(texts: tuple[str, str, str]) -> Path:
    """(blocking) A private directory (0700) holding the three texts."""
    directory = Path(tempfile.mkdtemp(prefix="acp-tui-merge-"))
    for name, text in zip(_NAMES, texts, strict=True):
        (directory / name).write_bytes(text.encode("utf-8"))
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
        await asyncio.to_thread(shutil.rmtree, directory, True)
    if result.returncode != 0:
        return None  # > 0: that many conflicts; < 0: an error
    try:
        return result.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return None

"""The questions a write asks before it replaces a file: changed on disk, read-only, too large.

Each answers Overwrite or Cancel; Cancel (or any other answer) raises the `RpcError` the agent
gets (-32603 with reason ``"changed_on_disk"``, ``"read_only"`` or ``"too_large"``).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Literal

from acp_tui.host.asker import Asker, Choice, Question
from acp_tui.protocol.errors import INTERNAL_ERROR, RpcError

OVERWRITE_CHANGED = "overwrite_changed"
READ_ONLY = "read_only"
LARGE_FILE = "large_file"
OVERWRITE = "overwrite"
CANCEL = "cancel"
OVERWRITE_CHOICES = (Choice(OVERWRITE, "Overwrite", "o"), Choice(CANCEL, "Cancel", "c"))

Since = Literal["read", "write", "review"]


async def _ask(asker: Asker, question: Question, refusal: str, reason: str) -> None:
    if await asker.ask(question) != OVERWRITE:
        path = question.data["path"]
        raise RpcError(INTERNAL_ERROR, refusal, {"path": path, "reason": reason})


async def confirm_overwrite_changed(
    asker: Asker, path: str, resolved: Path, current: bytes | None, since_when: Since
) -> None:
    """Ask before overwriting a file that changed since the agent read it or acp-tui wrote it."""
    since = {
        "read": "since the agent last read it",
        "write": "since acp-tui last wrote it",
        "review": "while the change was being reviewed",
    }[since_when]
    what = "was deleted" if current is None else "changed on disk"
    question = Question(
        kind=OVERWRITE_CHANGED,
        title=f"{Path(path).name} {what} {since}",
        detail=f"{path} {what} {since}. Overwrite it with the agent's version?",
        choices=OVERWRITE_CHOICES,
        data={
            "path": path,
            "resolved": str(resolved),
            "deleted": current is None,
            "since": since_when,
        },
    )
    refusal = f"{path} {what} {since}; the user cancelled the write"
    await _ask(asker, question, refusal, "changed_on_disk")


async def confirm_read_only(
    asker: Asker, path: str, resolved: Path, info: os.stat_result | None
) -> None:
    """Ask before writing a read-only file."""
    mode = stat.S_IMODE(info.st_mode) if info is not None else 0
    title = f"{Path(path).name} is read-only"
    question = Question(
        kind=READ_ONLY,
        title=title,
        detail=(
            f"{path} is read-only (mode {mode:04o}"
            + (f", real path {resolved}" if str(resolved) != path else "")
            + "). Replace it with the agent's version anyway? It stays read-only."
        ),
        choices=OVERWRITE_CHOICES,
        data={"path": path, "resolved": str(resolved), "mode": mode},
    )
    await _ask(asker, question, f"{path} is read-only; the user cancelled the write", "read_only")


async def confirm_large(
    asker: Asker, path: str, resolved: Path, size: int, limit: int, new_size: int
) -> None:
    """Ask before writing a file much larger than the limit; raises the agent's error if the
    user says no.
    """
    question = Question(
        kind=LARGE_FILE,
        title=f"{Path(path).name} is too large to show as a diff",
        detail=(
            f"{path} holds {size} bytes, more than acp-tui reads ({limit} bytes): no diff can be "
            "shown and the old content is not kept, so this write cannot be reverted. Replace "
            f"its whole content with the agent's {new_size} bytes?"
        ),
        choices=OVERWRITE_CHOICES,
        data={"path": path, "resolved": str(resolved), "size": size, "limit": limit},
    )
    refusal = f"{path} is too large to review ({size} bytes); the user cancelled the write"
    await _ask(asker, question, refusal, "too_large")

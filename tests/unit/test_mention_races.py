"""@-mentions against a hostile file system: a directory flipped between a real directory and a
symlink to an outside one while mentions are read, thousands of times. What was checked (inside
the project, or asked about) is what is read: no outside byte reaches a prompt unasked.

Driven through `PromptTurns._prompt_blocks`, the session's way from typed text to the blocks
of `session/prompt`, with the session's real `FileSystemHost` boundary behind it."""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, cast

import pytest

from acp_tui.client.events import Notice
from acp_tui.client.prompt_turn import PromptTurns
from acp_tui.host.asker import Question
from acp_tui.host.boundary import DENY, OUTSIDE_CWD
from acp_tui.host.filesystem import FileSystemHost
from acp_tui.protocol.models import AgentCapabilities
from acp_tui.signal import Signal

if TYPE_CHECKING:
    from acp_tui.client.session.agent_session import AgentSession

ATTEMPTS = 1000  # the old code leaked in about 1 of 8 attempts
MARK = "0utside-marker"  # in the outside file's text and an outside file's name
LINUX = sys.platform.startswith("linux")
RENAME_EXCHANGE = 2
AT_FDCWD = -100


class Denying:
    """Denies every question and records them."""

    def __init__(self) -> None:
        self.asked: list[Question] = []

    async def ask(self, question: Question) -> str:
        self.asked.append(question)
        return DENY


def turns_for(project: Path, asker: Denying) -> tuple[PromptTurns, list[Notice]]:
    notices: Signal[Notice] = Signal("notices")
    seen: list[Notice] = []
    notices.subscribe(seen.append)
    capabilities = AgentCapabilities.model_validate(
        {"promptCapabilities": {"embeddedContext": True}}
    )
    session = SimpleNamespace(
        cwd=project,
        agent_capabilities=capabilities,
        fs=FileSystemHost(project, asker),
        notices=notices,
    )
    return PromptTurns(cast("AgentSession", session)), seen


class Flipper(threading.Thread):
    """Swaps `a` and `b` (a directory and a symlink) atomically, as fast as it can, until
    stopped: the path `a` is always there, a real directory or a symlink."""

    def __init__(self, a: Path, b: Path) -> None:
        super().__init__(daemon=True)
        libc = ctypes.CDLL(None, use_errno=True)
        self.renameat2 = libc.renameat2
        self.renameat2.argtypes = [
            ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint
        ]  # fmt: skip
        self.a, self.b = bytes(a), bytes(b)
        self.halt = threading.Event()
        self.flips = 0
        self.error: OSError | None = None

    def run(self) -> None:
        while not self.halt.is_set():
            if self.renameat2(AT_FDCWD, self.a, AT_FDCWD, self.b, RENAME_EXCHANGE) != 0:
                self.error = OSError(ctypes.get_errno(), "renameat2")
                return
            self.flips += 1

    def finish(self) -> None:
        self.halt.set()
        self.join(timeout=30)
        assert not self.is_alive()
        if self.flips % 2:  # leave the tree as it was: project/d the real directory
            self.renameat2(AT_FDCWD, self.a, AT_FDCWD, self.b, RENAME_EXCHANGE)


@pytest.mark.skipif(not LINUX, reason="renameat2 RENAME_EXCHANGE is Linux only")
async def test_a_directory_flipped_to_an_outside_symlink_never_leaks_outside_bytes(
    tmp_path: Path,
) -> None:
    project, outside = (tmp_path / "project").resolve(), (tmp_path / "outside").resolve()
    (project / "d").mkdir(parents=True)
    (project / "d" / "notes.txt").write_text("inside text\n")
    outside.mkdir()
    (outside / "notes.txt").write_text(f"{MARK} text\n")
    (outside / f"{MARK}.txt").write_text("x")
    os.symlink(outside, project / "link")
    asker = Denying()
    turns, notices = turns_for(project, asker)
    prompts: list[list[dict[str, Any]]] = []
    flipper = Flipper(project / "d", project / "link")
    flipper.start()
    try:
        for _ in range(ATTEMPTS):
            prompts.append(await turns._prompt_blocks("@d/notes.txt:1-2 @d/notes.txt @d/ go"))
    finally:
        flipper.finish()
    assert flipper.error is None
    leaked = [blocks for blocks in prompts if MARK in str(blocks[1:])]
    attached = sum(len(blocks) - 1 for blocks in prompts)
    print(
        f"\n{ATTEMPTS} prompts, {flipper.flips} flips: {attached} mentions attached, "
        f"{len(asker.asked)} questions, {len(notices)} notices, {len(leaked)} with outside bytes"
    )
    assert leaked == []
    assert flipper.flips > 100, "the race really ran while the mentions were read"
    assert attached > 0 and asker.asked, "both sides of the flip were met"
    assert {q.kind for q in asker.asked} == {OUTSIDE_CWD}
    assert all(q.data["resolved"].startswith(str(outside)) for q in asker.asked)
    assert all(blocks[0]["text"] == "@d/notes.txt:1-2 @d/notes.txt @d/ go" for blocks in prompts)

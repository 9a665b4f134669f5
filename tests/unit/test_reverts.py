"""Reverts through the file host (`Reverts`): the per-path lock shared with the agent's writes,
the expected content, acp-tui's own files refused, hard links asked about like an agent write."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from acp_tui.host.asker import FixedAnswer, Question
from acp_tui.host.boundary import ALLOW_ONCE, ALLOW_SESSION, DENY, OUTSIDE_CWD
from acp_tui.host.change_log import WriteRecord, WriteReview
from acp_tui.host.filesystem import FileSystemHost, ProposedWrite, ReviewOutcome
from acp_tui.host.reverts import PathLocks, RevertConflict, RevertError
from acp_tui.protocol.models import WriteTextFileRequest

HELD = WriteReview(True, 1, 1, 1, 1)


class HeldGate:
    """Holds the second write in review until `release` is set."""

    def __init__(self) -> None:
        self.reviewing = asyncio.Event()
        self.release = asyncio.Event()
        self.calls = 0

    async def review(self, proposal: ProposedWrite) -> ReviewOutcome:
        self.calls += 1
        if self.calls == 2:
            self.reviewing.set()
            await self.release.wait()
        return ReviewOutcome(proposal.proposed, HELD)


class SpyLocks(PathLocks):
    """The host's locks, telling when a lock is asked for."""

    def __init__(self, inner: PathLocks) -> None:
        super().__init__()
        self.inner = inner
        self.asked = asyncio.Event()

    def __call__(self, real: Path) -> asyncio.Lock:
        self.asked.set()
        return self.inner(real)


async def agent_write(host: FileSystemHost, path: Path, content: str) -> None:
    params = {"sessionId": "s", "path": str(path), "content": content}
    await host.write_text_file(WriteTextFileRequest.model_validate(params))


async def test_a_revert_waits_for_an_agent_write_to_the_same_path(tmp_path: Path) -> None:
    gate = HeldGate()
    host = FileSystemHost(tmp_path, FixedAnswer(DENY), write_gate=gate)
    target = tmp_path / "a.txt"
    target.write_text("v0")
    await agent_write(host, target, "v1")
    order: list[str] = []
    host.changes.subscribe(lambda record: order.append(_what(record)))
    write = asyncio.ensure_future(agent_write(host, target, "v2"))
    await gate.reviewing.wait()  # the agent's write holds the file's lock, in review
    spy = SpyLocks(host.reverts.locks)
    host.reverts.locks = spy
    revert = asyncio.ensure_future(host.reverts.revert_record(1, expected=b"v1"))
    await spy.asked.wait()  # the revert is queued on the file's lock: nothing written yet
    assert target.read_text() == "v1" and not revert.done()
    gate.release.set()
    await write
    with pytest.raises(RevertConflict, match="changed on disk"):
        await revert
    assert target.read_text() == "v2"
    assert order == ["write v2"]


async def test_a_revert_after_the_write_restores(tmp_path: Path) -> None:
    host = FileSystemHost(tmp_path, FixedAnswer(DENY))
    target = tmp_path / "a.txt"
    target.write_text("v0")
    await agent_write(host, target, "v1")
    record = await host.reverts.revert_record(1, expected=b"v1")
    assert target.read_text() == "v0"
    assert (record.reverts, record.before, record.after) == (1, "v1", "v0")


async def test_acp_tuis_own_files_are_never_reverted(tmp_path: Path) -> None:
    host = FileSystemHost(tmp_path, FixedAnswer(DENY))
    log = tmp_path / "traffic.jsonl"
    log.write_text("frame\n")
    host.own_files.add(log)
    host.changes.add(log, None, "frame\n")
    with pytest.raises(RevertError, match="acp-tui's own file"):
        await host.reverts.revert_record(1)
    assert log.read_text() == "frame\n"
    export = tmp_path / ".acp-tui" / "conversation.md"
    export.parent.mkdir()
    export.write_text("# export\n")
    host.changes.add(export, "", "# export\n")
    with pytest.raises(RevertError, match="acp-tui's own file"):
        await host.reverts.revert_record(2)
    assert export.read_text() == "# export\n"


async def test_a_hard_linked_file_is_asked_about_like_an_agent_write(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    asker = FixedAnswer(DENY)
    host = FileSystemHost(project, asker)
    target = project / "a.txt"
    target.write_text("v0")
    await agent_write(host, target, "v1")
    (tmp_path / "elsewhere.txt").hardlink_to(target)
    with pytest.raises(RevertError, match="not reverted"):
        await host.reverts.revert_record(1)
    [question] = asker.asked
    assert question.kind == OUTSIDE_CWD
    assert question.title == "Your revert wants to write a hard-linked file"
    assert target.read_text() == "v1"


async def test_a_deletion_through_a_swapped_symlink_is_refused(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    host = FileSystemHost(project, FixedAnswer("allow_once"))
    target = project / "made.txt"
    await agent_write(host, target, "made\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("made\n")
    target.unlink()
    target.symlink_to(outside)
    with pytest.raises(RevertError, match="not deleted"):
        await host.reverts.revert_record(1)
    assert outside.read_text() == "made\n" and target.is_symlink()


def _what(record: WriteRecord) -> str:
    return ("revert " if record.reverts else "write ") + record.after


class Answers:
    """Answers questions in turn, recording them."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.asked: list[Question] = []

    async def ask(self, question: Question) -> str:
        self.asked.append(question)
        return self.answers.pop(0)


async def test_an_agents_session_allowance_does_not_cover_a_revert(tmp_path: Path) -> None:
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (project / "link.txt").symlink_to(outside / "file.txt")
    (outside / "file.txt").write_text("v0")
    asker = Answers(ALLOW_SESSION, DENY)
    host = FileSystemHost(project, asker)
    await agent_write(host, project / "link.txt", "v1")  # allowed for the session
    await agent_write(host, project / "link.txt", "v2")  # (not asked again)
    assert len(asker.asked) == 1
    with pytest.raises(RevertError, match="not reverted"):
        await host.reverts.revert_record(2)  # outside: asked again, only "allow once"
    agent, revert = asker.asked
    assert agent.kind == OUTSIDE_CWD
    assert revert.title == "Your revert wants to write a path outside the session directory"
    assert [choice.id for choice in revert.choices] == [ALLOW_ONCE, DENY]
    assert (outside / "file.txt").read_text() == "v2"

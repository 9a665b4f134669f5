"""fs/write_text_file: creation, atomic replace, conflict check, review gate, change records."""

from __future__ import annotations

import asyncio
import itertools
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from acp_tui.host.asker import FixedAnswer, Question
from acp_tui.host.boundary import DENY
from acp_tui.host.change_log import WriteReview
from acp_tui.host.filesystem import (
    CANCEL,
    OVERWRITE,
    OVERWRITE_CHANGED,
    FileSystemHost,
    ProposedWrite,
    ReviewOutcome,
)
from acp_tui.protocol.errors import INTERNAL_ERROR, INVALID_PARAMS, RpcError, invalid_params_from
from acp_tui.protocol.models import ReadTextFileRequest, WriteTextFileRequest
from tests.routed import routed
from tests.schema_check import FrameValidator


class ScriptedAsker:
    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.asked: list[Question] = []

    async def ask(self, question: Question) -> str:
        self.asked.append(question)
        return self.answers.pop(0)


def check_answer(params: Any, result: Any = None, error: RpcError | None = None) -> None:
    validator = FrameValidator()
    validator.incoming(
        {"jsonrpc": "2.0", "id": 3, "method": "fs/write_text_file", "params": params}
    )
    frame: dict[str, Any] = {"jsonrpc": "2.0", "id": 3}
    if error is not None:
        frame["error"] = error.to_wire()
    else:
        frame["result"] = result
    validator.outgoing(frame)


async def write(host: FileSystemHost, path: Path | str, content: str) -> None:
    params = {"sessionId": "s1", "path": str(path), "content": content}
    result = await routed(WriteTextFileRequest, host.write_text_file)(params)
    assert result == {}
    check_answer(params, result)


async def write_error(host: FileSystemHost, path: Path | str, content: Any) -> RpcError:
    params = {"sessionId": "s1", "path": str(path), "content": content}
    try:
        await routed(WriteTextFileRequest, host.write_text_file)(params)
    except ValidationError as invalid:
        error = invalid_params_from(invalid)  # what the connection answers
    except RpcError as refused:
        error = refused
    else:
        raise AssertionError(f"no error for {params!r}")
    check_answer(params, error=error)
    return error


async def read(host: FileSystemHost, path: Path) -> str:
    result = await host.read_text_file(ReadTextFileRequest(session_id="s1", path=str(path)))
    return result["content"]  # type: ignore[no-any-return]


def modify_behind_the_agents_back(path: Path, content: str) -> None:
    path.write_text(content)
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000_000))


async def test_creates_the_file_and_parents_and_records_it(tmp_path):
    host = FileSystemHost(tmp_path, FixedAnswer(DENY))
    target = tmp_path / "src" / "pkg" / "new.py"
    await write(host, target, "print('hi')\r\n")
    assert target.read_bytes() == b"print('hi')\r\n"
    [record] = host.changes.records
    assert (record.path, record.before, record.after) == (target, None, "print('hi')\r\n")
    assert host.changes.files() == [target]
    assert os.listdir(target.parent) == ["new.py"]  # no temp file left


async def test_overwriting_an_unread_file_asks_nothing_and_records_before(tmp_path):
    asker = ScriptedAsker()
    host = FileSystemHost(tmp_path, asker)
    target = tmp_path / "a.txt"
    target.write_text("old")
    target.chmod(0o754)
    await write(host, target, "new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o754
    assert asker.asked == []
    assert host.changes.original(target) == "old"
    assert host.changes.records[0].before == "old"


async def test_writing_after_a_read_of_an_unchanged_file_asks_nothing(tmp_path):
    asker = ScriptedAsker()
    host = FileSystemHost(tmp_path, asker)
    target = tmp_path / "a.txt"
    target.write_text("v1")
    await read(host, target)
    os.utime(target, ns=(0, 0))  # touched, same content: not a conflict
    await write(host, target, "v2")
    await write(host, target, "v3")  # after our own write: still no conflict
    assert target.read_text() == "v3"
    assert asker.asked == []


async def test_a_file_changed_since_the_agent_read_it_asks_and_cancel_keeps_it(tmp_path):
    asker = ScriptedAsker(CANCEL)
    host = FileSystemHost(tmp_path, asker)
    target = tmp_path / "a.txt"
    target.write_text("v1")
    await read(host, target)
    modify_behind_the_agents_back(target, "user edit")
    error = await write_error(host, target, "agent edit")
    assert error.code == INTERNAL_ERROR
    assert str(target) in error.message
    assert "changed on disk" in error.message
    assert "cancelled" in error.message
    assert target.read_text() == "user edit"
    assert host.changes.records == []
    [question] = asker.asked
    assert question.kind == OVERWRITE_CHANGED
    assert [c.id for c in question.choices] == [OVERWRITE, CANCEL]
    assert question.data["since"] == "read"
    assert "since the agent last read it" in question.detail


async def test_overwrite_answer_writes_and_records_the_users_version_as_before(tmp_path):
    asker = ScriptedAsker(OVERWRITE)
    host = FileSystemHost(tmp_path, asker)
    target = tmp_path / "a.txt"
    target.write_text("v1")
    await read(host, target)
    modify_behind_the_agents_back(target, "user edit")
    await write(host, target, "agent edit")
    assert target.read_text() == "agent edit"
    assert host.changes.records[0].before == "user edit"
    assert len(asker.asked) == 1


async def test_a_file_changed_since_acp_tui_wrote_it_asks(tmp_path):
    asker = ScriptedAsker(CANCEL)
    host = FileSystemHost(tmp_path, asker)
    target = tmp_path / "a.txt"
    await write(host, target, "ours")
    modify_behind_the_agents_back(target, "theirs")
    await write_error(host, target, "ours again")
    assert target.read_text() == "theirs"
    assert asker.asked[0].data["since"] == "write"


async def test_a_file_deleted_since_the_agent_read_it_asks(tmp_path):
    asker = ScriptedAsker(OVERWRITE)
    host = FileSystemHost(tmp_path, asker)
    target = tmp_path / "a.txt"
    target.write_text("v1")
    await read(host, target)
    target.unlink()
    await write(host, target, "recreated")
    assert target.read_text() == "recreated"
    assert asker.asked[0].data["deleted"] is True
    assert "was deleted" in asker.asked[0].detail


async def test_identical_content_is_not_rewritten_or_recorded(tmp_path):
    host = FileSystemHost(tmp_path, FixedAnswer(DENY))
    target = tmp_path / "a.txt"
    target.write_text("same")
    inode = target.stat().st_ino
    await write(host, target, "same")
    assert target.stat().st_ino == inode
    assert host.changes.records == []
    await write(host, tmp_path / "empty.txt", "")  # an empty new file is still created
    assert (tmp_path / "empty.txt").read_text() == ""


async def test_writing_to_a_directory_is_refused(tmp_path):
    host = FileSystemHost(tmp_path, FixedAnswer(DENY))
    (tmp_path / "sub").mkdir()
    error = await write_error(host, tmp_path / "sub", "x")
    assert error.code == INVALID_PARAMS
    assert "directory" in error.message


async def test_os_errors_are_reported_naming_the_path(tmp_path):
    host = FileSystemHost(tmp_path, FixedAnswer(DENY))
    (tmp_path / "file").write_text("x")
    error = await write_error(host, tmp_path / "file" / "child.txt", "x")
    assert error.code == INTERNAL_ERROR
    assert str(tmp_path / "file" / "child.txt") in error.message


@pytest.mark.parametrize("content", [None, 5, ["a"]])
async def test_content_must_be_a_string(tmp_path, content):
    host = FileSystemHost(tmp_path, FixedAnswer(DENY))
    error = await write_error(host, tmp_path / "a.txt", content)
    assert error.code == INVALID_PARAMS
    assert not (tmp_path / "a.txt").exists()


async def test_relative_path_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    host = FileSystemHost(tmp_path, FixedAnswer(DENY))
    error = await write_error(host, "a.txt", "x")
    assert error.code == INVALID_PARAMS
    assert "absolute" in error.message
    assert not (tmp_path / "a.txt").exists()


async def test_writing_outside_the_session_directory_needs_consent(tmp_path):
    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / "escape").symlink_to(tmp_path)
    host = FileSystemHost(cwd, FixedAnswer(DENY))
    error = await write_error(host, cwd / "escape" / "evil.txt", "x")
    assert "outside the session directory" in error.message
    assert not (tmp_path / "evil.txt").exists()
    assert host.changes.records == []


async def test_writing_through_a_symlink_inside_cwd_updates_the_target(tmp_path):
    host = FileSystemHost(tmp_path, FixedAnswer(DENY))
    (tmp_path / "real.txt").write_text("old")
    (tmp_path / "link.txt").symlink_to(tmp_path / "real.txt")
    await write(host, tmp_path / "link.txt", "new")
    assert (tmp_path / "link.txt").is_symlink()
    assert (tmp_path / "real.txt").read_text() == "new"
    assert host.changes.records[0].path == tmp_path / "real.txt"


HELD = WriteReview(True, 1, 1, 1, 1)


class RecordingGate:
    def __init__(self, answer: str | None) -> None:
        self.answer = answer
        self.reviews: list[tuple[Path, str | None, str]] = []

    async def review(self, proposal: ProposedWrite) -> ReviewOutcome | None:
        self.reviews.append((proposal.path, proposal.before, proposal.proposed))
        return None if self.answer is None else ReviewOutcome(self.answer, HELD)


async def test_the_write_gate_reviews_and_its_result_is_written(tmp_path):
    gate = RecordingGate("merged")
    host = FileSystemHost(tmp_path, FixedAnswer(DENY), write_gate=gate)
    target = tmp_path / "a.txt"
    target.write_text("before")
    await write(host, target, "proposed")
    assert gate.reviews == [(target, "before", "proposed")]
    assert target.read_text() == "merged"
    assert host.changes.records[0].after == "merged"
    assert host.changes.records[0].review == HELD  # the outcome went into the change log


async def test_a_rejected_review_writes_nothing(tmp_path):
    gate = RecordingGate(None)
    host = FileSystemHost(tmp_path, FixedAnswer(DENY), write_gate=gate)
    target = tmp_path / "new.txt"
    error = await write_error(host, target, "proposed")
    assert gate.reviews == [(target, None, "proposed")]
    assert error.message == f"the user rejected the change to {target}"
    assert not target.exists()
    assert host.changes.records == []


async def test_a_file_changed_during_review_asks_again(tmp_path):
    target = tmp_path / "a.txt"
    target.write_text("before")

    class EditingGate:
        async def review(self, proposal: ProposedWrite) -> ReviewOutcome:
            await asyncio.to_thread(proposal.path.write_text, "edited during review")
            return ReviewOutcome(proposal.proposed, HELD)

    asker = ScriptedAsker(CANCEL)
    host = FileSystemHost(tmp_path, asker, write_gate=EditingGate())
    await write_error(host, target, "proposed")
    assert target.read_text() == "edited during review"
    assert asker.asked[0].data["since"] == "review"


async def test_a_review_made_against_the_edited_file_is_not_questioned_again(tmp_path):
    target = tmp_path / "a.txt"
    target.write_text("one\ntwo\n")

    class RediffingGate:
        """Like the review screen: the file changes on disk, the user re-reviews against it."""

        async def review(self, proposal: ProposedWrite) -> ReviewOutcome:
            await asyncio.to_thread(proposal.path.write_text, "one\nTWO\n")
            return ReviewOutcome("ONE\nTWO\n", HELD, base="one\nTWO\n", base_known=True)

    asker = ScriptedAsker()
    host = FileSystemHost(tmp_path, asker, write_gate=RediffingGate())
    await write(host, target, "ONE\ntwo\n")
    assert target.read_text() == "ONE\nTWO\n"
    assert asker.asked == []
    (record,) = host.changes.records
    assert record.before == "one\nTWO\n"  # what was on disk when it was written


async def test_concurrent_writes_to_one_file_are_serialised(tmp_path):
    host = FileSystemHost(tmp_path, FixedAnswer(DENY))
    target = tmp_path / "a.txt"
    await asyncio.gather(*(write(host, target, f"v{i}") for i in range(5)))
    records = host.changes.records
    assert len(records) == 5
    assert records[0].before is None
    for earlier, later in itertools.pairwise(records):
        assert later.before == earlier.after  # each write saw the previous one's result
    assert target.read_text() == records[-1].after


async def test_revert_restores_and_the_agents_next_write_asks(tmp_path):
    asker = ScriptedAsker(CANCEL)
    host = FileSystemHost(tmp_path, asker)
    target = tmp_path / "a.txt"
    target.write_text("original")
    await write(host, target, "agent 1")
    await host.reverts.revert_record(1)
    assert target.read_text() == "original"
    # the agent still believes the file holds "agent 1": overwriting the revert needs consent
    await write_error(host, target, "agent 2")
    assert target.read_text() == "original"
    assert asker.asked[0].kind == OVERWRITE_CHANGED


async def test_overwriting_a_non_utf8_file_keeps_its_exact_bytes_for_revert(tmp_path):
    host = FileSystemHost(tmp_path, FixedAnswer(DENY))
    target = tmp_path / "latin1.txt"
    original = "naïve\n".encode("latin-1")
    target.write_bytes(original)
    await write(host, target, "naïve\n")
    record = host.changes.records[0]
    assert record.before == "na\ufffdve\n"
    await host.reverts.revert_record(record.id)
    assert target.read_bytes() == original


async def test_content_with_a_lone_surrogate_is_invalid_params(tmp_path):
    host = FileSystemHost(tmp_path, FixedAnswer(DENY))
    error = await write_error(host, tmp_path / "a.txt", "bad \ud800 text")
    assert error.code == INVALID_PARAMS
    assert "not valid Unicode" in error.message
    assert not (tmp_path / "a.txt").exists()

"""The session's write records: subscription, originals, revert (through the file host)."""

from __future__ import annotations

import os

import pytest

from acp_tui.host.asker import FixedAnswer
from acp_tui.host.boundary import DENY
from acp_tui.host.change_log import ChangeLog, WriteRecord
from acp_tui.host.filesystem import FileSystemHost
from acp_tui.host.reverts import Reverts


def reverts_in(root) -> Reverts:
    """The file host's reverts for a session in `root` (nothing outside is allowed)."""
    return FileSystemHost(root, FixedAnswer(DENY)).reverts


def test_records_are_numbered_and_subscribers_notified(tmp_path):
    log = ChangeLog()
    seen: list[WriteRecord] = []
    unsubscribe = log.subscribe(seen.append)
    first = log.add(tmp_path / "a.txt", None, "one")
    second = log.add(tmp_path / "a.txt", "one", "two")
    assert [r.id for r in log.records] == [1, 2]
    assert seen == [first, second]
    assert (second.before, second.after) == ("one", "two")
    unsubscribe()
    log.add(tmp_path / "b.txt", None, "x")
    assert len(seen) == 2
    unsubscribe()  # a second call is harmless


def test_a_failing_subscriber_does_not_break_recording(tmp_path, caplog):
    log = ChangeLog()
    seen: list[int] = []

    def broken(record: WriteRecord) -> None:
        raise RuntimeError("boom")

    log.subscribe(broken)
    log.subscribe(lambda record: seen.append(record.id))
    log.add(tmp_path / "a.txt", None, "x")
    assert seen == [1]
    assert "boom" in caplog.text


def test_original_and_files(tmp_path):
    log = ChangeLog()
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    log.add(a, "original a", "a1")
    log.add(b, None, "b1")
    log.add(a, "a1", "a2")
    assert log.original(a) == "original a"
    assert log.original(b) is None
    assert log.files() == [a, b]
    assert [r.after for r in log.records_for(a)] == ["a1", "a2"]
    with pytest.raises(KeyError):
        log.original(tmp_path / "never.txt")
    with pytest.raises(KeyError):
        log.get(99)


async def test_revert_restores_before_and_is_recorded(tmp_path):
    reverts = reverts_in(tmp_path)
    log = reverts.changes
    path = tmp_path / "a.txt"
    path.write_text("v2")
    path.chmod(0o640)
    log.add(path, "v1", "v2")
    revert = await reverts.revert_record(1)
    assert path.read_text() == "v1"
    assert oct(path.stat().st_mode & 0o777) == oct(0o640)
    assert (revert.id, revert.reverts, revert.before, revert.after) == (2, 1, "v2", "v1")
    assert not revert.deleted
    assert log.original(path) == "v1"
    assert os.listdir(tmp_path) == ["a.txt"]


async def test_revert_of_a_creation_deletes_the_file(tmp_path):
    reverts = reverts_in(tmp_path)
    log = reverts.changes
    path = tmp_path / "new.txt"
    path.write_text("created")
    log.add(path, None, "created")
    revert = await reverts.revert_record(1)
    assert not path.exists()
    assert revert.deleted
    assert (revert.before, revert.after) == ("created", "")
    await reverts.revert_record(revert.id)  # reverting the deletion recreates it
    assert path.read_text() == "created"


async def test_revert_restores_exact_non_utf8_bytes(tmp_path):
    reverts = reverts_in(tmp_path)
    log = reverts.changes
    path = tmp_path / "latin1.txt"
    original = "café\n".encode("latin-1")
    path.write_text("new")
    record = log.add(path, original.decode("utf-8", "replace"), "new", before_bytes=original)
    assert record.before_data() == original
    revert = await reverts.revert_record(1)
    assert path.read_bytes() == original
    assert revert.after_data() == original

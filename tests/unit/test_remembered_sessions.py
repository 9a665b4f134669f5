"""Sessions remembered for agents that cannot list theirs: one file per directory, replaced
atomically, so a write costs one directory's sessions and two acp-tui in different directories
never write the same file; the single file of earlier versions is still read, never written."""

from __future__ import annotations

import json
import os
from pathlib import Path

from acp_tui.client.session import remembered
from acp_tui.client.session.remembered import RememberedSessions, remembered_path
from acp_tui.client.session.session_summary import SessionSummary


def test_each_directory_has_its_own_file(tmp_path: Path) -> None:
    store = RememberedSessions(tmp_path)
    a, b = tmp_path / "a", tmp_path / "b"
    store.add(a, "agent", SessionSummary("a-1", "first"))
    before = remembered_path(a, tmp_path).read_bytes()
    store.add(b, "agent", SessionSummary("b-1", "other"))
    store.add(b, "other-agent", SessionSummary("b-2"))
    assert remembered_path(a, tmp_path).read_bytes() == before  # (b's writes left it alone)
    assert [s.id for s in store.recent(a, "agent")] == ["a-1"]
    assert [s.id for s in store.recent(b, "agent")] == ["b-1"]
    assert [s.id for s in store.recent(b, "other-agent")] == ["b-2"]
    saved = json.loads(remembered_path(b, tmp_path).read_text())
    assert saved["cwd"] == str(b) and set(saved["agents"]) == {"agent", "other-agent"}
    assert not (tmp_path / "sessions.json").exists()


def test_newest_first_bounded_and_forgotten(tmp_path: Path) -> None:
    store = RememberedSessions(tmp_path)
    cwd = tmp_path / "project"
    for i in range(remembered.MAX_REMEMBERED + 5):
        store.add(cwd, "agent", SessionSummary(f"s-{i}", f"title {i}", "2026-11-27T10:00:00Z"))
    store.add(cwd, "agent", SessionSummary("s-3", "again"))  # (moves to the front, once)
    ids = [s.id for s in store.recent(cwd, "agent")]
    assert ids[0] == "s-3" and ids.count("s-3") == 1
    assert len(ids) == remembered.MAX_REMEMBERED
    store.forget(cwd, "agent", "s-3")
    assert "s-3" not in [s.id for s in store.recent(cwd, "agent")]


def test_a_write_does_not_grow_with_the_directories_used(tmp_path: Path) -> None:
    store = RememberedSessions(tmp_path)
    for i in range(200):
        store.add(tmp_path / f"dir-{i}", "agent", SessionSummary(f"s-{i}", "a title"))
    sizes = {remembered_path(tmp_path / f"dir-{i}", tmp_path).stat().st_size for i in (0, 199)}
    assert max(sizes) < 300  # (one directory's session: the others are in their own files)


def test_the_earlier_single_file_is_read_and_never_written(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    legacy = tmp_path / "sessions.json"
    entry = {"id": "old-1", "title": "Yesterday", "updatedAt": "2026-11-26T09:00:00Z"}
    legacy.write_text(json.dumps({str(cwd): {"agent": [entry]}, "/elsewhere": {"agent": []}}))
    before = legacy.read_bytes()
    store = RememberedSessions(tmp_path)
    assert store.recent(cwd, "agent") == [
        SessionSummary("old-1", "Yesterday", "2026-11-26T09:00:00Z")
    ]
    store.add(cwd, "agent", SessionSummary("new-1", "Today"))
    assert [s.id for s in store.recent(cwd, "agent")] == ["new-1", "old-1"]  # (copied over)
    assert legacy.read_bytes() == before
    assert store.recent(tmp_path / "other", "agent") == []


def test_unreadable_files_mean_nothing_remembered(tmp_path: Path) -> None:
    store = RememberedSessions(tmp_path)
    cwd = tmp_path / "project"
    path = remembered_path(cwd, tmp_path)
    path.parent.mkdir(parents=True)
    nested = "[" * 100_000 + "]" * 100_000
    for text in [
        "not json",
        "[1, 2]",
        '{"agents": {"agent": "no list"}}',
        '{"agents": [1]}',
        nested,
    ]:
        path.write_text(text)
        assert store.recent(cwd, "agent") == []
    path.write_text('{"agents": {"agent": [{"id": 7}, "x", {"id": "ok", "title": 3}]}}')
    assert store.recent(cwd, "agent") == [SessionSummary("ok")]
    path.unlink()
    path.mkdir()  # (not a regular file)
    assert store.recent(cwd, "agent") == []
    store.add(cwd, "agent", SessionSummary("lost"))  # (cannot be written: nothing raised)


def test_an_oversized_file_is_not_read(tmp_path: Path) -> None:
    store = RememberedSessions(tmp_path)
    cwd = tmp_path / "project"
    store.add(cwd, "agent", SessionSummary("s-1"))
    path = remembered_path(cwd, tmp_path)
    with path.open("a") as file:
        file.write(" " * remembered.MAX_FILE_BYTES)
    assert store.recent(cwd, "agent") == []


def test_the_file_is_replaced_atomically(tmp_path: Path) -> None:
    store = RememberedSessions(tmp_path)
    cwd = tmp_path / "project"
    store.add(cwd, "agent", SessionSummary("s-1"))
    path = remembered_path(cwd, tmp_path)
    inode = os.stat(path).st_ino
    store.add(cwd, "agent", SessionSummary("s-2"))
    assert os.stat(path).st_ino != inode  # (a new file renamed over the old)
    assert os.listdir(path.parent) == [path.name]  # (no temporary file left)

"""Atomic file replacement: permissions, temp files, and a writer killed mid-write."""

from __future__ import annotations

import os
import random
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from acp_tui.host.atomic_write import (
    atomic_write_bytes,
    atomic_write_text,
    current_umask,
    delete_file,
    is_temp_file,
)

REPO = Path(__file__).resolve().parents[2]


def test_creates_the_file_and_missing_parents_with_umask_mode(tmp_path):
    target = tmp_path / "a" / "b" / "new.txt"
    atomic_write_text(target, "line 1\r\nline 2\n")
    assert target.read_bytes() == b"line 1\r\nline 2\n"  # line endings untouched
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~current_umask()
    assert os.listdir(target.parent) == ["new.txt"]


def test_umask_is_read_without_changing_it():
    before = os.umask(0o027)
    try:
        assert current_umask() == 0o027
        assert current_umask() == 0o027
    finally:
        os.umask(before)


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o755])
def test_replacing_keeps_permission_bits(tmp_path, mode):
    target = tmp_path / "script.sh"
    target.write_text("old")
    target.chmod(mode)
    atomic_write_text(target, "new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == mode


def test_replaces_the_inode_and_leaves_no_temp_file(tmp_path):
    target = tmp_path / "file.txt"
    target.write_text("old")
    os.link(target, tmp_path / "hardlink-to-old")
    for i in range(5):
        atomic_write_text(target, f"version {i}")
    assert target.read_text() == "version 4"
    # renamed over, not rewritten in place: the old inode still holds the old content
    assert (tmp_path / "hardlink-to-old").read_text() == "old"
    assert sorted(os.listdir(tmp_path)) == ["file.txt", "hardlink-to-old"]


def test_writing_through_a_symlink_keeps_the_link(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    atomic_write_text(link, "new")
    assert link.is_symlink()
    assert real.read_text() == "new"


def test_a_directory_target_is_refused(tmp_path):
    (tmp_path / "dir").mkdir()
    with pytest.raises(IsADirectoryError):
        atomic_write_text(tmp_path / "dir", "x")
    assert os.listdir(tmp_path) == ["dir"]


def test_a_failed_rename_removes_the_temp_file_and_keeps_the_old_content(tmp_path, monkeypatch):
    target = tmp_path / "file.txt"
    target.write_text("old")

    def failing_rename(src, dst, **_dir_fds):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "rename", failing_rename)
    with pytest.raises(OSError, match="No space"):
        atomic_write_text(target, "new")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["file.txt"]


def test_long_names_still_fit(tmp_path):
    target = tmp_path / ("n" * 250)
    atomic_write_text(target, "x")
    assert target.read_text() == "x"


def test_temp_file_names_are_recognisable():
    assert is_temp_file(Path("/x/.notes.md.acp-tui-k2j4h1.tmp"))
    assert not is_temp_file(Path("/x/notes.md"))
    assert not is_temp_file(Path("/x/.notes.md.tmp"))


def test_delete_file(tmp_path):
    target = tmp_path / "gone.txt"
    target.write_text("x")
    delete_file(target)
    assert not target.exists()
    delete_file(target)  # already gone: no error


WRITER = """
import sys
from pathlib import Path
from acp_tui.host.atomic_write import atomic_write_bytes
target, size = Path(sys.argv[1]), int(sys.argv[2])
versions = [b"A" * size, b"B" * (size + 12345)]
count = 0
while True:
    atomic_write_bytes(target, versions[count % 2])
    count += 1
    sys.stdout.write(f"{count}\\n")
    sys.stdout.flush()
"""


def _wait_for_temp_file(directory: Path, deadline_polls: int = 5_000_000) -> None:
    """Poll the directory until the writer has a temp file open (i.e. it is mid-write)."""
    for _ in range(deadline_polls):
        if any(is_temp_file(directory / name) for name in os.listdir(directory)):
            return
    raise AssertionError("the writer never started a write")


def test_a_writer_killed_at_a_random_moment_never_leaves_a_torn_file(tmp_path):
    """SIGKILL a process rewriting a large file: the file is always exactly one full version."""
    size = 2 * 1024 * 1024
    old = b"old content\n"
    valid = {old, b"A" * size, b"B" * (size + 12345)}
    rng = random.Random()
    stale_temps = 0
    rounds = 6
    for round_number in range(rounds):
        directory = tmp_path / f"round{round_number}"
        directory.mkdir()
        target = directory / "big.txt"
        target.write_bytes(old)
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(target), str(size)],
            stdout=subprocess.PIPE,
            cwd=REPO,
        )
        try:
            assert writer.stdout is not None
            for _ in range(rng.randrange(0, 3)):  # let it complete a few writes first
                assert writer.stdout.readline(), "writer exited early"
            _wait_for_temp_file(directory)
            for _ in range(rng.randrange(0, 300)):  # then a random point inside the write
                os.listdir(directory)
            writer.send_signal(signal.SIGKILL)
            writer.wait(timeout=30)
        finally:
            if writer.poll() is None:
                writer.kill()
                writer.wait()
            assert writer.stdout is not None
            writer.stdout.close()
        assert writer.returncode == -signal.SIGKILL
        assert target.read_bytes() in valid
        others = [p for p in directory.iterdir() if p != target]
        assert all(is_temp_file(p) for p in others), others  # only recognisable stale temps
        stale_temps += len(others)
        atomic_write_bytes(target, b"after")  # the directory is still usable
        assert target.read_bytes() == b"after"
    # the kills really landed mid-write (a temp file was open when it was polled just before)
    assert stale_temps >= 1
    print(f"killed {rounds} writers mid-write; {stale_temps} stale temp files left behind")

"""The `--log` file through the host (`host/append_log.py`): no symlink or hard link planted at
its path is followed, nothing but a regular file is written, and writers of one path take the
file's lock, so two acp-tui processes logging there never split each other's lines."""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import stat
from pathlib import Path

import pytest

from acp_tui.host.append_log import AppendLogError, open_append_log
from acp_tui.protocol.traffic import BUFFER_BYTES, JsonlTrafficLog, TrafficEvent


def _frame(tag: str, size: int = 10) -> TrafficEvent:
    return TrafficEvent("in", 1.0, json.dumps({"tag": tag, "pad": "x" * size}), json_ok=True)


def test_a_symlink_planted_at_the_log_path_is_not_followed(tmp_path: Path) -> None:
    """An agent makes `log.tab2.jsonl -> ~/.bashrc` before the second tab opens its log."""
    victim = tmp_path / "bashrc"
    victim.write_text("alias ls='ls -F'\n")
    log_path = tmp_path / "log.tab2.jsonl"
    log_path.symlink_to(victim)
    log = JsonlTrafficLog(log_path, open_append_log)
    log(_frame("a"))
    log.close()
    assert victim.read_text() == "alias ls='ls -F'\n"
    assert log_path.is_symlink()


def test_a_symlinked_directory_on_the_way_is_not_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "logs").symlink_to(elsewhere)
    with pytest.raises(AppendLogError, match="symbolic link"):
        open_append_log(tmp_path / "logs" / "traffic.jsonl")
    assert list(elsewhere.iterdir()) == []


def test_a_hard_link_fifo_or_directory_is_refused(tmp_path: Path) -> None:
    victim = tmp_path / "authorized_keys"
    victim.write_text("ssh-ed25519 AAAA key\n")
    os.link(victim, tmp_path / "linked.jsonl")
    with pytest.raises(AppendLogError, match="hard link"):
        open_append_log(tmp_path / "linked.jsonl")
    assert victim.read_text() == "ssh-ed25519 AAAA key\n"
    os.mkfifo(tmp_path / "fifo.jsonl")
    with pytest.raises(AppendLogError):  # no reader: the open does not wait for one
        open_append_log(tmp_path / "fifo.jsonl")
    with pytest.raises(AppendLogError):
        open_append_log(tmp_path)


def test_a_new_log_is_private_and_its_directories_are_made(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "traffic.jsonl"
    log = open_append_log(path)
    assert log.append(b"{}\n")
    log.close()
    assert path.read_bytes() == b"{}\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = open_append_log(path)  # appended to, never truncated
    assert again.append(b"[]\n")
    again.close()
    assert path.read_bytes() == b"{}\n[]\n"


async def test_the_log_waits_for_another_writers_lock(tmp_path: Path) -> None:
    """Another acp-tui writing the same file holds its lock: a full buffer is not written over
    it, and reaches the file once the lock is free."""
    path = tmp_path / "traffic.jsonl"
    path.touch(mode=0o600)
    other = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        fcntl.flock(other, fcntl.LOCK_EX)
        log = JsonlTrafficLog(path, open_append_log)
        log(_frame("big", BUFFER_BYTES + 1))  # over the buffer: written at once if it can
        assert path.read_bytes() == b""
        fcntl.flock(other, fcntl.LOCK_UN)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while not path.read_bytes():
            assert loop.time() < deadline, "the buffered line was never written"
            await asyncio.sleep(0.02)
        fcntl.flock(other, fcntl.LOCK_EX)  # held for good: closing writes all the same
        log(_frame("last"))
        log.close()
    finally:
        os.close(other)
    tags = [json.loads(line)["frame"]["tag"] for line in path.read_text().splitlines()]
    assert tags == ["big", "last"]


def test_two_logs_of_one_path_keep_every_line_whole(tmp_path: Path) -> None:
    path = tmp_path / "traffic.jsonl"
    first = JsonlTrafficLog(path, open_append_log)
    second = JsonlTrafficLog(path, open_append_log)
    for index in range(40):
        (first if index % 2 else second)(_frame(f"{index}", 1000 + index * 9000))
    first.close()
    second.close()
    tags = sorted(int(json.loads(line)["frame"]["tag"]) for line in path.read_text().splitlines())
    assert tags == list(range(40))


def test_a_log_that_cannot_be_opened_says_why_once(tmp_path: Path) -> None:
    (tmp_path / "log.jsonl").symlink_to(tmp_path / "elsewhere")
    told: list[str] = []
    log = JsonlTrafficLog(tmp_path / "log.jsonl", open_append_log, told.append)
    log(_frame("a"))
    log(_frame("b"))
    log.close()
    assert told == [f"{tmp_path / 'log.jsonl'}: is or goes through a symbolic link: not followed"]
    assert not (tmp_path / "elsewhere").exists()

"""host.open_beneath: regular files and directories opened through the walk, others refused
without being opened, reads bounded, listings that never leave the opened directory."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from acp_tui.host.open_beneath import (
    NotRegularFile,
    list_tree,
    open_entry,
    read_at_most,
    read_regular,
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path.resolve()


def test_a_file_reached_through_a_symlink_is_opened_at_its_real_path(root: Path) -> None:
    (root / "outside").mkdir()
    (root / "outside" / "f.txt").write_text("far")
    (root / "project").mkdir()
    (root / "project" / "via").symlink_to(root / "outside")
    with open_entry(root / "project" / "via" / "f.txt") as opened:
        assert opened.real == root / "outside" / "f.txt"
        assert not opened.is_dir and opened.links == 1
        assert read_at_most(opened.fd, 100) == b"far"


def test_hard_links_are_counted_for_files_only(root: Path) -> None:
    (root / "a.txt").write_text("a")
    os.link(root / "a.txt", root / "b.txt")
    (root / "d").mkdir()
    with open_entry(root / "b.txt") as opened:
        assert opened.links == 2
    with open_entry(root / "d") as opened:
        assert opened.is_dir and opened.links == 1


def test_fifos_and_sockets_are_refused_and_missing_paths_are_not_found(root: Path) -> None:
    os.mkfifo(root / "pipe")
    with pytest.raises(NotRegularFile) as fifo:
        open_entry(root / "pipe")
    assert fifo.value.kind == "a FIFO (named pipe)"
    # a writer finds no reader: the FIFO was never opened
    with pytest.raises(OSError):
        os.open(root / "pipe", os.O_WRONLY | os.O_NONBLOCK)
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(root / "sock"))
        with pytest.raises(NotRegularFile, match="a socket"):
            open_entry(root / "sock")
    (root / "file").write_text("x")
    for missing in (root / "nothing", root / "file" / "below"):
        with pytest.raises(FileNotFoundError):
            open_entry(missing)


def test_reads_are_bounded(root: Path) -> None:
    (root / "big").write_bytes(b"x" * 5000)
    with open_entry(root / "big") as opened:
        assert len(read_at_most(opened.fd, 10)) == 11, "one byte more: the caller sees more"
        assert read_at_most(opened.fd, 10_000) == b"x" * 5000
    assert read_regular(root / "big", 4999) is None
    assert read_regular(root / "big", 5000) == b"x" * 5000
    os.mkfifo(root / "pipe")
    assert read_regular(root / "pipe", 100) is None


def test_listing_does_not_follow_symlinks_and_is_capped(root: Path) -> None:
    (root / "outside").mkdir()
    (root / "outside" / "secret.txt").write_text("s")
    (root / "d" / "sub").mkdir(parents=True)
    (root / "d" / "sub" / "b.txt").write_text("b")
    (root / "d" / "a.txt").write_text("a")
    (root / "d" / "skip").mkdir()
    (root / "d" / "skip" / "x").write_text("x")
    (root / "d" / "out").symlink_to(root / "outside")
    with open_entry(root / "d") as opened:
        files, more = list_tree(opened.fd, frozenset({"skip"}), 100)
        assert (files, more) == (["a.txt", "out", "sub/b.txt"], False)
        assert list_tree(opened.fd, frozenset(), 2) == (["a.txt", "out"], True)
        assert opened.fd >= 0 and os.fstat(opened.fd), "the listing leaves `fd` open"

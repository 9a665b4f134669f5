"""host/local_files.py: the UI's reads go through the walk, regular files only, size bounded."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from acp_tui.host.local_files import (
    LocalFileError,
    private_draft,
    read_regular,
    read_regular_text,
)


def test_a_regular_file_is_read_and_a_missing_one_is_none(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"caf\xe9\n")
    assert read_regular(tmp_path / "a.txt") == b"caf\xe9\n"
    assert read_regular_text(tmp_path / "a.txt") == "caf\ufffd\n"
    assert read_regular(tmp_path / "missing.txt") is None
    assert read_regular(tmp_path / "a.txt" / "below") is None


def test_symlinks_are_refused_unless_followed(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "a.txt").write_text("a\n")
    (tmp_path / "link.txt").symlink_to(tmp_path / "real" / "a.txt")
    (tmp_path / "dir").symlink_to(tmp_path / "real")
    for path in (tmp_path / "link.txt", tmp_path / "dir" / "a.txt"):
        with pytest.raises(LocalFileError, match="symbolic link"):
            read_regular(path)
        assert read_regular(path, follow=True) == b"a\n"


def test_special_files_directories_and_large_files_are_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "big").write_bytes(b"x" * 100)
    with pytest.raises(LocalFileError, match="not a regular file"):
        read_regular(tmp_path / "pipe")
    with pytest.raises(LocalFileError, match="not a regular file"):
        read_regular(tmp_path)
    with pytest.raises(LocalFileError, match="too large"):
        read_regular(tmp_path / "big", max_bytes=99)


def test_the_draft_lives_in_a_private_directory_removed_afterwards() -> None:
    with private_draft("hello\n") as path:
        assert path.read_text() == "hello\n"
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert not path.parent.exists()


def test_path_kind_says_what_a_named_path_is_without_opening_it(tmp_path: Path) -> None:
    from acp_tui.host.local_files import path_kind

    (tmp_path / "f.txt").write_text("x")
    (tmp_path / "d").mkdir()
    os.mkfifo(tmp_path / "pipe")  # looked at, never opened: nothing blocks
    (tmp_path / "link").symlink_to(tmp_path / "d")
    assert path_kind(tmp_path / "f.txt") == "file"
    assert path_kind(tmp_path / "d") == "directory"
    assert path_kind(tmp_path / "link") == "directory"
    assert path_kind(tmp_path / "pipe") == "other"
    assert path_kind(tmp_path / "missing") is None
    assert path_kind(Path("/nul\0l")) is None


def test_settings_files_in_lists_the_named_files_sorted(tmp_path: Path) -> None:
    from acp_tui.host.settings_file import settings_files_in

    for name in ("b.toml", "a.toml", "notes.txt"):
        (tmp_path / name).write_text("")
    assert settings_files_in(tmp_path) == [tmp_path / "a.toml", tmp_path / "b.toml"]
    assert settings_files_in(tmp_path / "a.toml") == []  # not a directory
    assert settings_files_in(tmp_path / "missing") == []

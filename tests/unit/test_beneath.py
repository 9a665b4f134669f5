"""beneath.locate: the real path and the directory fd of a walk that reads symlinks itself."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from acp_tui.host import beneath
from acp_tui.host.beneath import PathChanged


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "f.txt").write_text("x")
    return tmp_path.resolve()


def real(path: Path | str, **options: bool) -> tuple[Path, bool]:
    with beneath.locate(path, **options) as location:
        return location.real, location.exists


@pytest.mark.parametrize(
    ("relative", "expected", "exists"),
    [
        ("a/b/f.txt", "a/b/f.txt", True),
        ("a/./b//f.txt", "a/b/f.txt", True),
        ("a/b/../b/f.txt", "a/b/f.txt", True),
        ("a/new/deeper/x.txt", "a/new/deeper/x.txt", False),
        ("a/new/../b/f.txt", "a/b/f.txt", True),  # `..` undoes a missing directory
        ("a/b", "a/b", True),
    ],
)
def test_plain_paths(root, relative, expected, exists):
    assert real(f"{root}/{relative}") == (root / expected, exists)


def test_symlinks_are_followed_and_spliced_like_the_kernel(root):
    (root / "rel").symlink_to("a/b")
    (root / "abs").symlink_to(root / "a")
    (root / "a" / "b" / "up").symlink_to("..")
    (root / "file-link").symlink_to("a/b/f.txt")
    (root / "dangling").symlink_to("a/nowhere/x.txt")
    assert real(root / "rel" / "f.txt") == (root / "a" / "b" / "f.txt", True)
    assert real(root / "abs" / "b" / "f.txt") == (root / "a" / "b" / "f.txt", True)
    assert real(root / "rel" / "up" / "b") == (root / "a" / "b", True)
    assert real(root / "file-link") == (root / "a" / "b" / "f.txt", True)
    assert real(root / "dangling") == (root / "a" / "nowhere" / "x.txt", False)
    for path in ("rel/f.txt", "abs/b", "a/b/up/b", "file-link", "dangling", "rel/up/b"):
        assert real(root / path)[0] == Path(os.path.realpath(root / path))


def test_a_symlink_loop_is_an_error(root):
    (root / "loop").symlink_to("loop")
    with pytest.raises(OSError) as caught:
        beneath.locate(root / "loop" / "x")
    assert caught.value.errno == errno.ELOOP


def test_a_file_in_the_middle_is_not_a_directory(root):
    with pytest.raises(NotADirectoryError):
        beneath.locate(root / "a" / "b" / "f.txt" / "x")


def test_without_following_symlinks_any_symlink_is_a_change(root):
    (root / "rel").symlink_to("a/b")
    with pytest.raises(PathChanged):
        beneath.locate(root / "rel" / "f.txt", follow_symlinks=False)
    assert real(root / "a" / "b" / "f.txt", follow_symlinks=False)[1]


def test_the_fd_is_the_directory_walked_even_after_a_swap(root, tmp_path):
    with beneath.locate(root / "a" / "b" / "new.txt") as location:
        assert beneath.same_directory(root / "a" / "b", location.dir_fd)
        os.rename(root / "a" / "b", root / "moved")
        (root / "a" / "b").symlink_to(root / "moved")
        assert not beneath.same_directory(root / "a" / "b", location.dir_fd)
        assert beneath.same_directory(root / "moved", location.dir_fd)


def test_make_parents_creates_below_the_held_directory(root):
    with beneath.locate(root / "a" / "n1" / "n2" / "x.txt") as location:
        created = beneath.make_parents(location)
        assert (location.dir, location.rest) == (root / "a" / "n1" / "n2", ("x.txt",))
        assert [made.name for made in created] == ["n1", "n2"]
        beneath.remove_created(created)
    assert sorted(os.listdir(root / "a")) == ["b"]

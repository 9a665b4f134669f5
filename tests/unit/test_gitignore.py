"""The one .gitignore reader (`acp_tui.host.gitignore`), and both of its users agreeing with it:
the change monitor's rules outside git and the @-mention file index's walk."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from acp_tui.composer.file_index import FileIndex
from acp_tui.host.gitignore import GitignoreRules
from acp_tui.host.ignore import IgnoreRules

TEXT = "\n".join(
    [
        "# a comment",
        r"\#hash.txt",  # escaped: a file named "#hash.txt"
        r"\!bang.txt",  # escaped: a file named "!bang.txt", not a negation
        "trailing.txt   ",  # unescaped trailing spaces are dropped
        "space\\ ",  # an escaped one is kept: "space "
        "*.log",
        "!keep.log",
        "build/",
        "/top.txt",
        "docs/**/*.tmp",
        "data[!0-9].csv",  # a negated class, never matching "/"
        "x[]]y",  # "]" first in a class is literal
    ]
)


def test_syntax() -> None:
    rules = GitignoreRules(TEXT)
    assert rules.verdict("#hash.txt", False) is True and rules.verdict("a comment", False) is None
    assert rules.verdict("!bang.txt", False) is True and rules.verdict("bang.txt", False) is None
    assert rules.ignores("trailing.txt", False) and rules.ignores("space ", False)
    assert not rules.ignores("space", False)
    assert rules.verdict("deep/x.log", False) is True and rules.verdict("keep.log", False) is False
    assert rules.ignores("build", True) and not rules.ignores("build", False)
    assert rules.ignores("top.txt", False) and not rules.ignores("a/top.txt", False)
    assert rules.ignores("docs/a/b/c.tmp", False) and rules.ignores("docs/c.tmp", False)
    assert rules.ignores("dataX.csv", False) and not rules.ignores("data1.csv", False)
    assert not rules.ignores("data/.csv", False)
    assert rules.ignores("x]y", False)
    assert not rules.ignores("line\nbreak.log.txt", False), "a newline is just a character"


def make_tree(root: Path) -> None:
    for name in ["#hash.txt", "!bang.txt", "space ", "dataX.csv", "data1.csv", "x]y", "ok.md"]:
        (root / name).write_text("x")
    (root / "docs" / "a").mkdir(parents=True)
    (root / "docs" / "a" / "c.tmp").write_text("x")
    (root / "build").mkdir()
    (root / "build" / "out.txt").write_text("x")
    (root / "keep.log").write_text("x")
    (root / "drop.log").write_text("x")
    (root / ".gitignore").write_text(TEXT + "\n")


KEPT = {".gitignore", "data1.csv", "keep.log", "ok.md"}


def test_the_change_monitor_and_the_file_index_read_it_alike(tmp_path: Path) -> None:
    make_tree(tmp_path)
    index = FileIndex(tmp_path, use_git=False)
    index.build()
    files = {p for p in index.snapshot.lines if not p.endswith("/")}
    assert files == KEPT

    monitor = IgnoreRules(tmp_path, git=False)
    every = [p for p in tmp_path.rglob("*") if p.is_file()]
    kept = {p.relative_to(tmp_path).as_posix() for p in monitor.filter(every)}
    assert kept == KEPT


@pytest.mark.parametrize("name", ["#hash.txt", "!bang.txt", "dataX.csv", "x]y", "keep.log"])
def test_git_agrees(tmp_path: Path, name: str) -> None:
    """What git itself says about the same file (the reader stands in for it outside git)."""
    make_tree(tmp_path)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    asked = subprocess.run(["git", "check-ignore", "-q", name], cwd=tmp_path, check=False)
    assert (asked.returncode == 0) == GitignoreRules(TEXT).ignores(name, False)

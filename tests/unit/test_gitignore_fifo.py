"""A .gitignore that is a FIFO nobody writes to: the readers of .gitignore files (the @-mention
file index's walk, the change monitor's rules) skip it instead of blocking in open(2) forever."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from acp_tui.composer.file_index import FileIndex
from acp_tui.host.ignore import IgnoreRules


@contextlib.contextmanager
def finishes(work: Callable[[], object], fifo: Path) -> Iterator[None]:
    """Run `work` in a thread and fail if it is still blocked after a generous guard (a hang,
    not a timing); a reader stuck on `fifo` is let go at the end, whatever happened."""
    runner = threading.Thread(target=work, daemon=True)
    runner.start()
    try:
        runner.join(timeout=60)
        assert not runner.is_alive(), f"blocked on the FIFO {fifo.name}"
        yield
    finally:
        with contextlib.suppress(OSError):  # ENXIO: nobody is reading, as it should be
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


def test_the_file_index_walk_does_not_open_a_fifo_gitignore(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    os.mkfifo(tmp_path / "a" / ".gitignore")
    (tmp_path / "a" / "kept.txt").write_text("x")
    (tmp_path / ".gitignore").write_text("*.log\n")
    (tmp_path / "x.log").write_text("x")
    index = FileIndex(tmp_path, use_git=False)
    with finishes(index.build, tmp_path / "a" / ".gitignore"):
        assert index.query("txt") == ["a/kept.txt"]
        assert index.query("log") == [], "a regular .gitignore still counts"


def test_the_change_monitor_rules_do_not_open_a_fifo_gitignore(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / ".gitignore")
    made: list[IgnoreRules] = []
    with finishes(lambda: made.append(IgnoreRules(tmp_path, git=False)), tmp_path / ".gitignore"):
        [rules] = made
        assert not rules.ignored(tmp_path / "a.txt")
        assert rules.ignored(tmp_path / ".git" / "HEAD")

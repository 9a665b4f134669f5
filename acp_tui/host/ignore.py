"""Which paths of the session directory the change monitor ignores.

In a git work tree git decides (`git check-ignore --stdin`, batched and cached per path; the
cache is dropped when a ``.gitignore`` changes). Elsewhere the root's ``.gitignore`` is read by
`gitignore.py` (the same reader as the @-mention file index's).
``.git/`` and acp-tui's own temporary files are always ignored.
These functions block (they may run git): call them from a thread in async code.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable
from pathlib import Path

from acp_tui.host.atomic_write import is_temp_file
from acp_tui.host.gitignore import GitignoreRules
from acp_tui.host.open_beneath import read_regular

ALWAYS_IGNORED_DIRS = frozenset({".git", ".hg", ".svn"})
GIT_TIMEOUT = 30.0
MAX_GITIGNORE_BYTES = 1 << 20


def git_root(path: Path) -> Path | None:
    """The top of the git work tree `path` is in, or None (not a work tree, or no git)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(path), "rev-parse", "--show-toplevel"],
            capture_output=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    top = done.stdout.decode("utf-8", "surrogateescape").strip()
    return Path(top).resolve() if top else None


def git_lines(root: Path, *args: str, stdin: bytes | None = None) -> list[str]:
    """NUL-separated output of a git command run in `root` (empty on any failure)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            input=stdin,
            capture_output=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    if done.returncode not in (0, 1):  # check-ignore answers 1 when nothing matched
        return []
    text = done.stdout.decode("utf-8", "surrogateescape")
    return [line for line in text.split("\0") if line]


class IgnoreRules:
    """Whether a path under `root` is ignored (see the module docstring)."""

    def __init__(self, root: Path, *, git: bool) -> None:
        self.root = root
        self.git = git
        self._cache: dict[Path, bool] = {}
        self._rules = GitignoreRules("")
        if not git:
            self.reload_patterns()

    def reload_patterns(self) -> None:
        """Read the root `.gitignore` again (a regular file only, bounded) and forget cached
        answers.
        """
        self._cache.clear()
        # a regular file only, bounded: a FIFO or a link to a device is not read (no hang)
        data = read_regular(self.root.absolute() / ".gitignore", MAX_GITIGNORE_BYTES)
        self._rules = GitignoreRules(data.decode("utf-8", "replace") if data is not None else "")

    def changed(self, path: Path) -> None:
        """`path` changed on disk: a changed ``.gitignore`` invalidates what was decided."""
        if path.name == ".gitignore":
            if self.git:
                self._cache.clear()
            else:
                self.reload_patterns()

    def always_ignored(self, path: Path) -> bool:
        """Ignored whatever the ignore files say (outside the root, VCS dirs, our temp files)."""
        try:
            parts = path.relative_to(self.root).parts
        except ValueError:
            return True
        return not parts or any(p in ALWAYS_IGNORED_DIRS for p in parts) or is_temp_file(path)

    def filter(self, paths: Iterable[Path]) -> list[Path]:
        """The paths that are not ignored, in order."""
        wanted = [p for p in paths if not self.always_ignored(p)]
        unknown = [p for p in wanted if p not in self._cache]
        if unknown:
            ignored = self._git_ignored(unknown) if self.git else None
            for path in unknown:
                is_ignored = path in ignored if ignored is not None else self._matches(path)
                self._cache[path] = is_ignored
        return [p for p in wanted if not self._cache[p]]

    def ignored(self, path: Path) -> bool:
        """Whether `path` is ignored (by git or the root `.gitignore`)."""
        return not self.filter([path])

    def ignored_dir(self, relative: str) -> bool:
        """For the non-git scan: whether directory `relative` (to the root) is ignored."""
        if relative.split("/")[-1] in ALWAYS_IGNORED_DIRS:
            return True
        return self._match_relative(relative, is_dir=True)

    def ignored_file(self, relative: str) -> bool:
        """Whether the file at `relative` is ignored, by the root `.gitignore` rules alone."""
        return self._match_relative(relative, is_dir=False)

    def _matches(self, path: Path) -> bool:
        relative = path.relative_to(self.root).as_posix()
        parts = relative.split("/")
        for depth in range(1, len(parts)):  # a file inside an ignored directory is ignored
            if self._match_relative("/".join(parts[:depth]), is_dir=True):
                return True
        return self._match_relative(relative, is_dir=path.is_dir())

    def _match_relative(self, relative: str, *, is_dir: bool) -> bool:
        return self._rules.ignores(relative, is_dir)

    def _git_ignored(self, paths: list[Path]) -> set[Path]:
        stdin = b"".join(str(p).encode("utf-8", "surrogateescape") + b"\0" for p in paths)
        found = git_lines(self.root, "check-ignore", "-z", "--stdin", stdin=stdin)
        return {Path(line) if Path(line).is_absolute() else self.root / line for line in found}

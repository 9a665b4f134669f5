"""What each file of the session directory held before the agent first touched it.

In a git work tree, files git tracks and that were clean at the start come from the index (they
matched it then, so nothing is read up front); the files that were modified or untracked (not
ignored) at the start are read once then (`git ls-files --modified --others`). Elsewhere one scan
at the start reads the text files under `max_file_bytes`, up to `budget_bytes` in all; a file it
saw but did not keep (too large, binary, over budget) is read when the agent announces a tool call
on it (`touch`), else its baseline stays unknown. A file that did not exist at the start has the
baseline None. These functions block: call them from a thread in async code.
"""

from __future__ import annotations

import os
import stat
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from acp_tui.host.ignore import GIT_TIMEOUT, IgnoreRules, git_lines

MAX_FILE_BYTES = 1024 * 1024
BUDGET_BYTES = 64 * 1024 * 1024
BINARY_PROBE = 8192


@dataclass(frozen=True)
class Before:
    """A baseline: `known` False when acp-tui cannot tell (then `data` is None too)."""

    known: bool
    data: bytes | None


UNKNOWN = Before(False, None)
ABSENT = Before(True, None)


def read_small(path: Path, limit: int) -> Before:
    """The bytes of a regular file of at most `limit` bytes; ABSENT if missing; else UNKNOWN."""
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return ABSENT
    except OSError:
        return UNKNOWN
    if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
        return UNKNOWN
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return ABSENT
    except OSError:
        return UNKNOWN
    with os.fdopen(fd, "rb") as file:
        data = file.read(limit + 1)
    return Before(True, data) if len(data) <= limit else UNKNOWN


class Baseline:
    """Baselines of the files under `root` (see the module docstring)."""

    def __init__(
        self,
        root: Path,
        ignore: IgnoreRules,
        *,
        git_top: Path | None,
        max_file_bytes: int = MAX_FILE_BYTES,
        budget_bytes: int = BUDGET_BYTES,
    ) -> None:
        self.root = root
        self.ignore = ignore
        self.git_top = git_top
        self.max_file_bytes = max_file_bytes
        self.budget_bytes = budget_bytes
        self.snapshot: dict[Path, bytes | None] = {}
        """Content kept at the start (None: listed by git but missing, e.g. deleted)."""
        self.unknown: set[Path] = set()
        """Files that existed at the start but were not kept."""
        self.kept_bytes = 0
        self.files_scanned = 0
        self.scans = 0
        self._lock = threading.Lock()

    # ---- the one scan at the start ------------------------------------------------------------

    def scan(self, stop: threading.Event | None = None) -> None:
        """Read what cannot be had later: untracked/modified files (git) or all text files.
        Returns at the next file once `stop` is set (the session is closing)."""
        self.scans += 1
        stopped = stop if stop is not None else threading.Event()
        if self.git_top is not None:
            for relative in git_lines(
                self.root, "ls-files", "-z", "--modified", "--others", "--exclude-standard"
            ):
                if stopped.is_set():
                    return
                self._keep(self.root / relative)
            return
        root = str(self.root)
        for directory, dirs, files in os.walk(root):
            base = os.path.relpath(directory, root)
            prefix = "" if base == "." else base.replace(os.sep, "/") + "/"
            dirs[:] = [d for d in dirs if not self.ignore.ignored_dir(prefix + d)]
            for name in files:
                if stopped.is_set():
                    return
                if not self.ignore.ignored_file(prefix + name):
                    self._keep(Path(directory, name))

    def _keep(self, path: Path) -> None:
        self.files_scanned += 1
        if self.ignore.always_ignored(path):
            return
        limit = min(self.max_file_bytes, self.budget_bytes - self.kept_bytes)
        before = read_small(path, max(limit, 0))
        with self._lock:
            if before is ABSENT:
                self.snapshot[path] = None
            elif before.data is not None and b"\0" not in before.data[:BINARY_PROBE]:
                self.snapshot[path] = before.data
                self.kept_bytes += len(before.data)
            else:
                self.unknown.add(path)

    # ---- later --------------------------------------------------------------------------------

    def touch(self, path: Path) -> None:
        """The agent announced a tool call on `path`: keep a file the scan did not keep."""
        with self._lock:
            if path not in self.unknown:
                return
        before = read_small(path, self.max_file_bytes)
        with self._lock:
            if before.known and path in self.unknown:
                self.unknown.discard(path)
                self.snapshot[path] = before.data

    def get(self, path: Path) -> Before:
        """The content `path` had before the agent first touched it."""
        with self._lock:
            if path in self.snapshot:
                return Before(True, self.snapshot[path])
            if path in self.unknown:
                return UNKNOWN
        if self.git_top is None:
            return ABSENT
        return self._from_index(path)

    def _from_index(self, path: Path) -> Before:
        try:
            relative = path.relative_to(self.git_top).as_posix() if self.git_top else ""
        except ValueError:
            return UNKNOWN
        try:
            done = subprocess.run(
                ["git", "-C", str(self.git_top), "cat-file", "blob", f":{relative}"],
                capture_output=True,
                timeout=GIT_TIMEOUT,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return UNKNOWN
        # not in the index: it was not there at the start (untracked files were all listed)
        return Before(True, done.stdout) if done.returncode == 0 else ABSENT

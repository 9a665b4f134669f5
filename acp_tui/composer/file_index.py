"""The files of the session directory, for the @-mention picker.

Built once in a worker thread: `git ls-files` (tracked and untracked, minus what git ignores)
when the directory is in a git work tree, else a walk with `os.scandir` that honours .gitignore
files (`acp_tui.host.gitignore`; read only when regular files, through the host's walk
`acp_tui.host.open_beneath`, so a FIFO cannot block the walk). `watch(watchers)` keeps it fresh
through the directory's watcher (`acp_tui.host.dir_watch`: one per directory, shared with the
change monitor and the other sessions there), so files the agent creates show up at once.
Directories are entries too (their paths end with `/`).

Queries are answered by a `PathSearch` snapshot (`path_search.py`), made in the thread that
built or changed the index, so the UI thread only reads: `search()` for a query that may be
shown in steps, `query()` for the whole answer at once.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

from acp_tui.composer.path_search import PathSearch, Search
from acp_tui.host.dir_watch import DirectoryWatchers
from acp_tui.host.gitignore import GitignoreRules
from acp_tui.host.inotify import DELETED, Event
from acp_tui.host.open_beneath import read_regular
from acp_tui.signal import Signal

SKIPPED_DIRS = frozenset({".git", ".hg", ".svn"})
MAX_ENTRIES = 500_000
MAX_GITIGNORE_BYTES = 1 << 20


class FileIndex:
    """The session directory's files and folders for @-completion: listed by git where it can,
    kept fresh by a watcher, never following links out.
    """

    def __init__(self, root: Path, *, use_git: bool = True) -> None:
        self.root = root.resolve()
        self.use_git = use_git
        self.git = False
        self._files: set[str] = set()
        self._dirs: set[str] = set()
        self._rules: dict[str, GitignoreRules] = {}
        self._search = PathSearch(())
        self.built = False
        self.watching = False
        """Whether `watch` listens to the directory's watcher now."""
        self.changed: Signal[None] = Signal("file index changed")
        """After files appeared or disappeared (not after `build`)."""

    # ------------------------------------------------------------------ building

    def build(self) -> None:
        """(Re)list the tree. Blocking: call it from a worker thread (listeners are not told)."""
        files: list[str] | None = self._git_files() if self.use_git else None
        self.git = files is not None
        if files is None:
            files = self._walk()
        self._files = set(files)
        self._dirs = {d for f in self._files for d in _parents(f)}
        self._prepare()
        self.built = True

    def _git_files(self) -> list[str] | None:
        try:
            inside = subprocess.run(
                ["git", "rev-parse", "--show-prefix"],
                cwd=self.root, capture_output=True, text=True, timeout=10,
            )  # fmt: skip
            if inside.returncode != 0:
                return None
            listed = subprocess.run(
                ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                cwd=self.root, capture_output=True, timeout=60,
            )  # fmt: skip
        except (OSError, subprocess.SubprocessError):
            return None
        if listed.returncode != 0:
            return None
        names = listed.stdout.decode("utf-8", "surrogateescape").split("\0")
        # deleted-but-tracked files are listed too: keep what exists (cheap: one stat each)
        return [n for n in names if n and os.path.lexists(os.path.join(self.root, n))]

    def _walk(self) -> list[str]:
        found: list[str] = []
        stack: list[tuple[str, list[tuple[str, GitignoreRules]]]] = [("", [])]
        while stack and len(found) < MAX_ENTRIES:
            relative, inherited = stack.pop()
            directory = os.path.join(self.root, relative) if relative else str(self.root)
            try:
                entries = list(os.scandir(directory))
            except OSError:
                continue
            rules = list(inherited)
            own = self._load_rules(entries, relative)
            if own is not None:
                rules.append((relative, own))
            for entry in entries:
                path = f"{relative}{entry.name}"
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if is_dir and entry.name in SKIPPED_DIRS:
                    continue
                if _ignored(path, is_dir, rules):
                    continue
                if is_dir:
                    stack.append((path + "/", rules))
                else:
                    found.append(path)
        return found

    def _load_rules(self, entries: list[os.DirEntry[str]], relative: str) -> GitignoreRules | None:
        """The rules of the directory's .gitignore: a regular file (not a FIFO a read would block
        on, nor a link to a device), read through the host's walk, at most `MAX_GITIGNORE_BYTES`."""
        found = next((entry for entry in entries if entry.name == ".gitignore"), None)
        try:
            if found is None or not found.is_file(follow_symlinks=False):
                return None
        except OSError:
            return None
        data = read_regular(Path(found.path), MAX_GITIGNORE_BYTES)
        if data is None:
            return None
        rules = GitignoreRules(data.decode("utf-8", "replace"))
        self._rules[relative] = rules
        return rules

    def ignored(self, relative: str, is_dir: bool) -> bool:
        """Whether a path is ignored by the .gitignore files loaded by the walk."""
        parts = relative.split("/")
        if any(part in SKIPPED_DIRS for part in (parts if is_dir else parts[:-1])):
            return True
        chain = [("", self._rules[""])] if "" in self._rules else []
        prefix = ""
        for part in parts[:-1]:
            prefix += part + "/"
            if prefix in self._rules:
                chain.append((prefix, self._rules[prefix]))
        # a path under an ignored directory is ignored too
        prefix = ""
        for part in parts[:-1]:
            prefix += part
            if _ignored(prefix, True, chain):
                return True
            prefix += "/"
        return _ignored(relative, is_dir, chain)

    # ------------------------------------------------------------------ keeping fresh

    def apply_changes(self, added: Iterable[str], removed: Iterable[str]) -> None:
        """Absolute paths that appeared or disappeared (as watchfiles reports them); listeners
        are told when the index changed."""
        if self._apply(added, removed):
            self._changed()

    def _apply(self, added: Iterable[str], removed: Iterable[str]) -> bool:
        """`apply_changes` without telling: may run in a thread (queries keep reading the
        previous snapshot until the new one replaces it). Whether anything changed."""
        changed = False
        for path in removed:
            relative = self._relative(path)
            if relative is None:
                continue
            if relative in self._files:
                self._files.discard(relative)
                changed = True
            elif relative in self._dirs:
                prefix = relative + "/"
                gone = {f for f in self._files if f.startswith(prefix)}
                self._files -= gone
                changed = True
        wanted = []
        for path in added:
            relative = self._relative(path)
            if relative is None or relative in self._files or not os.path.isfile(path):
                continue
            wanted.append(relative)
        if wanted:
            keep = self._git_keep(wanted) if self.git else [
                r for r in wanted if not self.ignored(r, False)
            ]  # fmt: skip
            if keep:
                self._files.update(keep)
                changed = True
        if changed:
            self._dirs = {d for f in self._files for d in _parents(f)}
            self._prepare()
        return changed

    def _git_keep(self, relatives: list[str]) -> list[str]:
        try:
            result = subprocess.run(
                ["git", "check-ignore", "--stdin", "-z"],
                cwd=self.root, input="\0".join(relatives).encode(), capture_output=True,
                timeout=10,
            )  # fmt: skip
        except (OSError, subprocess.SubprocessError):
            return relatives
        ignored = set(result.stdout.decode("utf-8", "surrogateescape").split("\0"))
        return [r for r in relatives if r not in ignored]

    def _relative(self, path: str) -> str | None:
        try:
            relative = Path(path).relative_to(self.root).as_posix()
        except ValueError:
            return None
        parts = relative.split("/")
        if relative == "." or any(part in SKIPPED_DIRS for part in parts):
            return None
        return relative

    async def watch(self, watchers: DirectoryWatchers) -> None:
        """Follow the tree until cancelled (batches that came meanwhile are applied at once)."""
        queue: asyncio.Queue[set[Event]] = asyncio.Queue()
        watching = await watchers.watch(self.root, lambda _at, events: queue.put_nowait(events))
        self.watching = True
        try:
            while True:
                events = await queue.get()
                while not queue.empty():
                    events |= queue.get_nowait()
                added: list[str] = []
                removed: list[str] = []
                for change, path in events:
                    (removed if change == DELETED else added).append(path)
                if await asyncio.to_thread(self._apply, added, removed):
                    self._changed()
        finally:
            self.watching = False
            watching.close()

    def _changed(self) -> None:
        self.changed.emit(None)

    # ------------------------------------------------------------------ asking

    def __len__(self) -> int:
        return len(self._files) + len(self._dirs)

    def __contains__(self, relative: str) -> bool:
        return relative in self._files or relative.rstrip("/") in self._dirs

    def _prepare(self) -> None:
        # one assignment: a query in another thread sees the old snapshot or the new one
        self._search = PathSearch([*self._files, *(d + "/" for d in self._dirs)])

    @property
    def snapshot(self) -> PathSearch:
        """What queries read now (replaced, never changed, when the index changes)."""
        return self._search

    def search(self, text: str, limit: int = 50) -> Search:
        """A query that can be answered in steps (`Search.run` with a time budget)."""
        return self._search.search(text, limit)

    def query(self, text: str, limit: int = 50) -> list[str]:
        """Up to `limit` paths matching `text` (its characters in order, case-insensitive),
        best first: the query starting the file name, in it, in the path, scattered; shorter
        paths first. An empty query lists the shortest paths."""
        return self._search.query(text, limit)


def _parents(relative: str) -> Iterable[str]:
    index = relative.find("/")
    while index != -1:
        yield relative[:index]
        index = relative.find("/", index + 1)


def _ignored(path: str, is_dir: bool, rules: list[tuple[str, GitignoreRules]]) -> bool:
    result = False
    for base, own in rules:
        verdict = own.verdict(path[len(base) :], is_dir)
        if verdict is not None:
            result = verdict
    return result

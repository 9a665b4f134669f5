"""acp-tui's own files: what acp-tui itself writes in or near the session directory (the
`--log FILE` traffic log, `/export`s, everything under ``<cwd>/.acp-tui/``, the logs and
snapshots a benchmark asks for by the environment), and everything in its own XDG directories
(data, cache, state: `app_dirs.py`), wherever they are, even inside the project (but the git
worktrees under the data directory, where sessions work).

They are never changes of the session: the change monitor skips them (no record, so no turn
summary, no Changes view entry and no revert can touch them), and a revert refuses them.
Some are kept from the agent too (`kept_from_agent`: `fs/read_text_file` and
`fs/write_text_file` refuse them): the traffic logs (every frame of every tab, tokens included,
and the record of what the agent did), the diagnostics a benchmark asks for, and the XDG
directories (the remembered permission rules, saved sessions, the error log; not the git
worktrees). An `/export` is the user's and stays the agent's to read.
Paths are kept resolved (symlinks followed, as `boundary.resolve_path` does), and compared
with the real paths the monitor and the change log carry.
"""

from __future__ import annotations

from pathlib import Path

from acp_tui.host import app_dirs, gc_pauses, memory_snapshots
from acp_tui.host.boundary import is_within, resolve_path
from acp_tui.protocol.traffic import is_tab_log_of

OWN_DIR = ".acp-tui"
"""The directory below the session directory where acp-tui keeps its own files (exports)."""


def both_forms(path: Path) -> set[Path]:
    """`path` made absolute, and resolved (symlinks followed): a path is looked up in either."""
    absolute = Path(path).absolute()
    return {absolute, resolve_path(absolute)}


class OwnFiles:
    """The set of acp-tui's own files and directories (everything below one counts)."""

    def __init__(self) -> None:
        self._files: set[Path] = set()
        self._dirs: set[Path] = set()
        self._not_own: set[Path] = set()
        self._log_bases: list[Path] = []
        self._kept: set[Path] = set()
        self._kept_dirs: set[Path] = set()
        for directory in (app_dirs.data_dir(), app_dirs.cache_dir(), app_dirs.state_dir()):
            self.add_dir(directory)
            self._kept_dirs |= both_forms(directory)
        self._not_own |= both_forms(app_dirs.data_dir() / app_dirs.WORKTREES)

    def add(self, path: Path) -> Path:
        """Count the file at `path` (absolute) as acp-tui's own; returns its resolved path."""
        absolute = Path(path).absolute()
        real = resolve_path(absolute)
        self._files |= {absolute, real}
        return real

    def add_tab_logs(self, path: Path) -> None:
        """Count the `--log` file `path` and every later tab's beside it (`tab_log_path`) as
        acp-tui's own, and kept from the agent: every tab of the app logs there."""
        absolute, real = Path(path).absolute(), self.add(path)
        self._kept |= {absolute, real}
        self._log_bases += [absolute, real]

    def add_dir(self, path: Path) -> None:
        """Count everything below the directory `path` (absolute) as acp-tui's own."""
        self._dirs |= both_forms(path)

    def add_diagnostics(self) -> None:
        """Count what a benchmark has the process write (`gc_pauses`, `memory_snapshots`): a
        collection log in the project would otherwise be a change of the session at every
        collection, each record keeping the whole growing file twice."""
        gc_log = gc_pauses.log_path()
        if gc_log is not None:
            self._kept |= {Path(gc_log).absolute(), self.add(gc_log)}
        snapshots = memory_snapshots.directory()
        if snapshots is not None:
            self.add_dir(snapshots)
            self._kept_dirs |= both_forms(snapshots)

    def kept_from_agent(self, real: Path) -> bool:
        """Whether the agent's `fs/*` requests are refused at the real path `real`: a traffic
        log (any tab's), a diagnostics file, anything in acp-tui's XDG directories but the git
        worktrees (see the module doc)."""
        return self._listed(real, self._kept, self._kept_dirs)

    def __contains__(self, path: object) -> bool:
        return isinstance(path, Path) and self._listed(path, self._files, self._dirs)

    def _listed(self, path: Path, files: set[Path], dirs: set[Path]) -> bool:
        """Whether `path` is one of `files`, a tab's log, or below one of `dirs` (but not below
        the worktrees)."""
        if path in files or any(is_tab_log_of(path, base) for base in self._log_bases):
            return True
        if any(is_within(path, d) for d in self._not_own):
            return False
        return any(is_within(path, d) for d in dirs)

"""A session's sandbox: what the user asked for (`--sandbox`, the preset, the settings) and the
session's roots, planned into the `SandboxPolicy` its agent and terminals run in."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from acp_tui.host.local_files import read_regular_text
from acp_tui.presets import Preset
from acp_tui.sandbox.agent_dirs import program_id
from acp_tui.sandbox.modes import SandboxMode
from acp_tui.sandbox.policy import SandboxError, SandboxPolicy, SandboxRequest, plan_sandbox


class SandboxSettings(Protocol):
    """What the sandbox reads of the settings (`Settings`, or the prestart's quick guess)."""

    @property
    def sandbox(self) -> SandboxMode | None:
        """The `sandbox` setting."""

    @property
    def sandbox_writable(self) -> list[Path]:
        """The `sandbox_writable` setting."""

    @property
    def sandbox_secrets(self) -> list[Path]:
        """The `sandbox_secrets` setting."""

    @property
    def extra_allowed_roots(self) -> list[Path]:
        """The `extra_allowed_roots` setting."""


def sandbox_request(
    settings: SandboxSettings,
    preset: Preset | None,
    argv: Sequence[str],
    *,
    asked: SandboxMode | str | None = None,
    writable: Sequence[Path] = (),
    home: Path | None = None,
) -> SandboxRequest:
    """The request for an agent: the mode `--sandbox` asked for, else the preset's, else the
    setting's; the places the user allows (settings, preset and `writable`: the run's
    `--sandbox-writable`); a built-in's own directories. `home`: the agent's home directory
    when it is not the user's (else the preset's `HOME`)."""
    if home is None and preset is not None and os.path.isabs(preset.env.get("HOME", "")):
        home = Path(preset.env["HOME"])
    agent_home = home if home is not None else Path.home()
    mode = SandboxMode(asked) if asked is not None else None
    if mode is None and preset is not None:
        mode = preset.sandbox
    if mode is None:
        mode = settings.sandbox
    state = tuple(
        agent_home / entry[2:] if entry.startswith("~/") else Path(entry)
        for entry in (preset.state_dirs if preset is not None else ())
    )
    return SandboxRequest(
        mode,
        preset.name if preset is not None else program_id(argv),
        writable=(
            *settings.sandbox_writable,
            *(preset.sandbox_writable if preset else ()),
            *writable,
        ),
        state_dirs=state,
        secrets=tuple(settings.sandbox_secrets),
        home=home,
    )


def session_roots(cwd: Path, settings: SandboxSettings) -> list[Path]:
    """Where the session's agent works: its directory, the `extra_allowed_roots` that exist, and
    for a linked git worktree (a worktree tab's) the parts of the repository's git directory
    that git writes from a worktree."""
    roots = [cwd, *(root for root in settings.extra_allowed_roots if root.exists())]
    return roots + worktree_git_dirs(cwd)


def _small_text(path: Path) -> str | None:
    """A git pointer file (`.git`, `gitdir`), through the host: a regular file of at most 4 KiB,
    never a FIFO the agent put there (a blocking read at every start)."""
    return read_regular_text(path, max_bytes=4096, follow=True)


def worktree_git_dirs(cwd: Path) -> list[Path]:
    """For a directory in a linked worktree: its own git directory (`.git/worktrees/NAME`: index,
    HEAD) and the shared objects, refs and logs, never the rest (hooks, config). The `.git`
    file is the agent's to change, so it counts only when the git directory it names points
    back to it (`gitdir`), as git's own worktree does."""
    for top in (cwd, *cwd.parents):
        marker = top / ".git"
        if marker.is_dir():
            return []  # the main checkout: its .git is inside the project already
        if not marker.is_file():
            continue
        try:
            text = (_small_text(marker) or "").strip()
            gitdir = Path(text.removeprefix("gitdir:").strip())
            if not text.startswith("gitdir:") or not gitdir.is_absolute():
                return []
            back = Path((_small_text(gitdir / "gitdir") or "").strip())
        except (OSError, ValueError):  # ValueError: a NUL in a name the agent wrote
            return []
        common = gitdir.parent.parent
        if gitdir.parent.name != "worktrees" or os.path.realpath(back) != os.path.realpath(marker):
            return []
        found = [gitdir, *(common / part for part in ("objects", "refs", "logs"))]
        return [path for path in found if path.is_dir()]
    return []


def session_sandbox(
    request: SandboxRequest,
    cwd: Path,
    settings: SandboxSettings,
    argv: Sequence[str],
    *,
    environ: Mapping[str, str] | None = None,
) -> tuple[SandboxPolicy | None, str | None]:
    """A session's sandbox, else (None and) why the one asked for cannot be set up: the agent
    is then not started (see `plan_session_sandbox`)."""
    try:
        return plan_session_sandbox(request, cwd, settings, argv, environ=environ), None
    except SandboxError as error:
        return None, str(error)


def plan_session_sandbox(
    request: SandboxRequest,
    cwd: Path,
    settings: SandboxSettings,
    argv: Sequence[str],
    *,
    environ: Mapping[str, str] | None = None,
    abi: int | None = None,
) -> SandboxPolicy:
    """The policy of a session in `cwd` (raises `SandboxError` with the user's reason).
    `environ`: the agent's environment (its `HOME` and XDG variables place its directories)."""
    environ = os.environ if environ is None else environ
    agent_home = environ.get("HOME", "")
    if request.home is None and os.path.isabs(agent_home) and Path(agent_home) != Path.home():
        request = replace(request, home=Path(agent_home))
    return plan_sandbox(
        request, session_roots(cwd, settings), argv, home=Path.home(), environ=environ, abi=abi
    )

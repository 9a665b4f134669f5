"""What the agent's sandbox allows, planned from the settings, and the Landlock ruleset for it.

`plan_sandbox` turns a `SandboxRequest` (the mode asked for, the agent, the user's extra paths)
and the session's roots into a `SandboxPolicy`: the directories the agent may write, the
secrets it may not read (`strict`), and what was skipped. `SandboxPolicy.ruleset()` builds the
Landlock ruleset each spawn restricts its child with.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from acp_tui.sandbox import landlock
from acp_tui.sandbox.agent_dirs import DEFAULT_SECRETS, default_state_dirs
from acp_tui.sandbox.modes import SandboxMode
from acp_tui.sandbox.readable import readable_around

__all__ = [
    "SandboxError",
    "SandboxMode",
    "SandboxPolicy",
    "SandboxRequest",
    "plan_sandbox",
    "shown_path",
]


class SandboxError(Exception):
    """The sandbox asked for cannot be set up; str() says why, in one line, for the user."""


DEVICE_FILES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx",
                "/dev/random", "/dev/urandom")  # fmt: skip
"""Devices any program may write (`> /dev/null`): written, never created or removed."""
DEVICE_DIRS = ("/dev/pts", "/dev/shm")
"""Terminals and POSIX shared memory (Node and Chromium make files there)."""


@dataclass(frozen=True)
class SandboxRequest:
    """What the user asked for, before it meets the kernel and the disk."""

    mode: SandboxMode | None = None
    """None: `project` where the kernel offers Landlock, else off with a notice."""
    agent_id: str = ""
    """The preset's name, or the program's, for the rule of `~/.<id>` and the XDG directories."""
    writable: tuple[Path, ...] = ()
    """Directories the user allows the agent to write (settings, preset): must exist."""
    state_dirs: tuple[Path, ...] = ()
    """The agent's own directories a built-in preset names (skipped when not there)."""
    secrets: tuple[Path, ...] = ()
    """More paths `strict` keeps unreadable (settings)."""
    home: Path | None = None
    """The agent's home directory, where its environment gives it another than the user's
    (the rule's `~/.<id>`); the secrets are always the user's."""

    @property
    def forced(self) -> bool:
        """Whether a confining mode was asked for by name (then no Landlock is an error)."""
        return self.mode in (SandboxMode.PROJECT, SandboxMode.STRICT)


@dataclass(frozen=True)
class SandboxPolicy:
    """The sandbox a session's agent runs in."""

    mode: SandboxMode
    writable: tuple[Path, ...] = ()
    """Real paths the agent may write beneath (existing)."""
    unreadable: tuple[Path, ...] = ()
    """Real paths whose files the agent may not read (`strict`)."""
    skipped: tuple[Path, ...] = ()
    """Default directories not there, so not allowed (the agent cannot create them)."""
    abi: int = 0
    notice: str = ""
    """Said once when the sandbox is off for want of Landlock."""

    @property
    def active(self) -> bool:
        """Whether the agent is confined."""
        return self.mode is not SandboxMode.OFF

    def summary(self) -> str:
        """One line for the sidebar and `check`."""
        if not self.active:
            return "off: the agent runs unsandboxed" if self.notice else "off"
        what = f"{self.mode.value}: writes only in {len(self.writable)} places"
        if self.mode is SandboxMode.STRICT:
            count = len(self.unreadable)
            what += f", {count} secret{'' if count == 1 else 's'} unreadable"
        return what + f" (Landlock ABI {self.abi})"

    def describe(self, home: Path | None = None) -> list[str]:
        """Every line of what the sandbox allows (home shown as ~)."""
        lines = [f"sandbox: {self.summary()}"]
        if self.notice:
            lines.append(self.notice)
        if not self.active:
            return lines
        lines += [f"  writable: {shown_path(path, home)}" for path in self.writable]
        lines += [f"  unreadable: {shown_path(path, home)}" for path in self.unreadable]
        if self.skipped:
            missing = ", ".join(shown_path(path, home) for path in self.skipped)
            lines.append(f"  not there, so not writable: {missing}")
        return lines

    def ruleset(self) -> landlock.Ruleset | None:
        """The Landlock ruleset to restrict a child with (None when off); the caller closes it
        once the child is started. Raises SandboxError."""
        if not self.active:
            return None
        handled = landlock.write_rights(self.abi)
        rules = [landlock.Rule(str(path), handled) for path in self.writable]
        rules += [landlock.Rule(path, landlock.WRITE_FILE | landlock.TRUNCATE)
                  for path in DEVICE_FILES if os.path.exists(path)]  # fmt: skip
        rules += [landlock.Rule(path, handled) for path in DEVICE_DIRS if os.path.isdir(path)]
        if self.mode is SandboxMode.STRICT:
            handled |= landlock.READ_FILE
            rules = [self._readable_too(rule) for rule in rules]
            readable = readable_around(self.unreadable)  # (what is there now)
            rules += [landlock.Rule(path, landlock.READ_FILE) for path in readable]
        try:
            return landlock.build_ruleset(self.abi, handled, rules)
        except OSError as error:
            raise SandboxError(f"cannot set up the sandbox: {error}") from error

    def _readable_too(self, rule: landlock.Rule) -> landlock.Rule:
        # a place the agent writes it reads too, unless a secret lies beneath it (`~` given as
        # writable: the secrets in it stay unreadable, the rest is read through `readable`)
        path = Path(rule.path)
        if any(secret.is_relative_to(path) for secret in self.unreadable):
            return rule
        return landlock.Rule(rule.path, rule.rights | landlock.READ_FILE)


def shown_path(path: Path, home: Path | None) -> str:
    """A path with the home directory as `~`."""
    if home is not None and path.is_relative_to(home):
        return "~" if path == home else f"~/{path.relative_to(home)}"
    return str(path)


def temp_dirs(environ: Mapping[str, str]) -> list[Path]:
    """The system's temporary directory and `$TMPDIR` (they are usually the same)."""
    import tempfile  # (only when a sandbox is planned: the command line does not need it)

    found = [Path(tempfile.gettempdir())]
    if environ.get("TMPDIR"):
        found.append(Path(environ["TMPDIR"]))
    return found


def plan_sandbox(
    request: SandboxRequest,
    roots: Sequence[Path],
    argv: Sequence[str],
    *,
    home: Path,
    environ: Mapping[str, str],
    abi: int | None = None,
    temp: Sequence[Path] | None = None,
) -> SandboxPolicy:
    """The policy for an agent started with `argv` whose session has `roots` (its directory,
    `extra_allowed_roots`). Raises SandboxError: a confining mode asked for by name on a kernel
    without Landlock, a user-given path that does not exist. `abi`: the kernel's, unless
    given; `temp`: the temporary directories, unless given."""
    if request.mode is SandboxMode.OFF:
        return SandboxPolicy(SandboxMode.OFF)
    abi = landlock.abi_version() if abi is None else abi
    if abi < 1:
        if request.forced:
            raise SandboxError(
                f"sandbox {request.mode} needs Linux Landlock, which this kernel does not "
                "offer (Linux 5.13 or later with Landlock enabled); use --sandbox off to run "
                "the agent unsandboxed"
            )
        return SandboxPolicy(
            SandboxMode.OFF, notice="Landlock is not available here: the agent runs unsandboxed"
        )
    mode = request.mode or SandboxMode.PROJECT
    for path in request.writable:
        if not path.exists():
            raise SandboxError(f"sandbox: the writable path {path} does not exist")
    writable: list[Path] = [*roots, *request.writable]
    skipped: list[Path] = []
    defaults = [
        *(temp_dirs(environ) if temp is None else temp),
        *request.state_dirs,
        *default_state_dirs(request.agent_id, argv, request.home or home, environ),
    ]
    for path in defaults:
        (writable if path.exists() else skipped).append(path)
    real = _unique(Path(os.path.realpath(path)) for path in writable)
    if mode is not SandboxMode.STRICT:
        return SandboxPolicy(mode, tuple(real), skipped=tuple(_unique(skipped)), abi=abi)
    secrets = [home / name for name in DEFAULT_SECRETS] + list(request.secrets)
    unreadable = _unique(Path(os.path.realpath(path)) for path in secrets if os.path.lexists(path))
    return SandboxPolicy(
        mode,
        tuple(real),
        tuple(unreadable),
        tuple(_unique(skipped)),
        abi,
    )


def _unique(paths: Iterable[Path]) -> list[Path]:
    return list(dict.fromkeys(paths))

"""Running git for the workspace: asyncio subprocesses (the UI never blocks on git), a bounded
time, no prompt for credentials (`GIT_TERMINAL_PROMPT=0`), no pager, C locale messages, and
output bounded in size. Failures are `GitError`s with a one-line message for the user.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

GIT_TIMEOUT = 30.0
"""Seconds one git command may take before it is killed."""

CHECKOUT_TIMEOUT = 600.0
"""Seconds for a command that writes a whole working tree (`worktree add`, `worktree remove`)."""

SAFE_CONFIG = ("-c", "core.quotepath=off", "-c", "core.fsmonitor=false")
"""Paths printed as they are; no file-system monitor command run from a repository's config."""

MAX_OUTPUT = 64 * 1024 * 1024
"""Bytes of standard output kept from one git command (more is an error, not a truncation)."""


class GitError(Exception):
    """A git command that could not run or failed; the message is one line for the user."""

    def __init__(self, message: str, *, returncode: int | None = None, stderr: str = "") -> None:
        super().__init__(message)
        self.returncode = returncode
        self.stderr = stderr


class GitMissing(GitError):
    """git is not installed (not found on PATH)."""


@dataclass(frozen=True)
class GitResult:
    returncode: int
    stdout: bytes
    stderr: str

    @property
    def text(self) -> str:
        """Standard output as text, without the final newline."""
        return self.stdout.decode("utf-8", errors="surrogateescape").rstrip("\n")


def git_env() -> dict[str, str]:
    """The environment git runs with: the user's, never prompting, never paging."""
    env = dict(os.environ)
    env.update(
        GIT_TERMINAL_PROMPT="0",
        GIT_PAGER="cat",
        PAGER="cat",
        GIT_OPTIONAL_LOCKS="0",
        LC_ALL="C",
        LANGUAGE="C",
    )
    env.pop("GIT_DIR", None)
    env.pop("GIT_WORK_TREE", None)
    env.pop("GIT_INDEX_FILE", None)
    return env


def first_line(text: str) -> str:
    """The first non-empty line of `text` ("fatal: " kept off), for a one-line message."""
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line.removeprefix("fatal: ").removeprefix("error: ")
    return ""


async def git(
    cwd: Path,
    *args: str,
    check: bool = True,
    time_limit: float = GIT_TIMEOUT,
    input_data: bytes | None = None,
) -> GitResult:
    """Run `git -C cwd ARGS` and return its result; `check` raises `GitError` on a non-zero exit."""
    argv: Sequence[str] = ("git", "--no-pager", *SAFE_CONFIG, "-C", str(cwd), *args)
    command = next((a for a in args if not a.startswith("-")), "")
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE if input_data is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=git_env(),
            start_new_session=True,  # its own group: a timeout stops hooks and helpers too
        )
    except FileNotFoundError:
        raise GitMissing("git is not installed (no `git` on PATH)") from None
    except OSError as error:
        raise GitError(f"cannot run git: {error.strerror or error}") from None
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(input_data), time_limit)
    except TimeoutError:
        raise GitError(f"git {command} took longer than {time_limit:g} s and was stopped") from None
    finally:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            await process.wait()
    if len(stdout) > MAX_OUTPUT:
        raise GitError(f"git {command} wrote more than {MAX_OUTPUT} bytes: stopped")
    message = stderr.decode("utf-8", errors="replace")
    result = GitResult(process.returncode or 0, stdout, message)
    if check and result.returncode != 0:
        reason = first_line(message) or f"exit status {result.returncode}"
        raise GitError(
            f"git {command} failed: {reason}", returncode=result.returncode, stderr=message
        )
    return result

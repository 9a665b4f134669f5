"""What the agent said the sandbox refused (its stderr, a tool's output, a turn's error), and
the directory it needed, as a notice naming it and the exact line that allows it.

The agent's text is untrusted: the line quoted is made safe here, and the path it names is
only looked at (`is_dir`), never written.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from acp_tui.safe_text import safe_line
from acp_tui.sandbox.policy import SandboxPolicy, shown_path

REFUSED = re.compile(
    r"EACCES|EPERM|EROFS|[Pp]ermission denied|[Oo]peration not permitted|[Rr]ead-only file system"
)
NAMES_A_PATH = re.compile(r"(?:^|[\s'\"`(=:\u2018\u201c])/[^\s'\"`)]")
"""A line that names an absolute path (Node's `code: 'EACCES',` names none: its `Error:` or
`path:` line does)."""
QUOTED_PATH = re.compile(r"'(/[^'\n]+)'|\"(/[^\"\n]+)\"|\u2018(/[^\u2019\n]+)\u2019")
"""Node (`open '/x'`), Python (`Permission denied: '/x'`), Rust (`path: "/x"`), coreutils in a
UTF-8 locale (`cannot create directory` and the path in U+2018 and U+2019)."""
BARE_PATH = re.compile(r"(?<![\w/:.~-])(/[^\s'\"`:,;()\[\]\u2019\u201d]+)")
"""Bash (`script: line 18: /x: Permission denied`); not a URL's (`file:///x`)."""
XDG_DEPTH = {".config": 1, ".cache": 1, ".local": 2}
"""Below these, the directory an agent owns is one (two for `.local/share/X`) further down."""
MKDIR = re.compile(r"\bmkdir\b")
"""A refused `mkdir` (Node's `mkdir '/x'`, coreutils' `mkdir: cannot create directory`): the
path is a directory."""
SHELL_WORD = re.compile(r"[\w@%+=:,./~-]+")


@dataclass(frozen=True)
class Refusal:
    """One refusal the agent reported: the line (made safe), the path it names, and the
    directory that would let it write there (None when no path, or none outside the sandbox)."""

    line: str
    path: Path | None = None
    directory: Path | None = None


def refused_path(line: str) -> Path | None:
    """The absolute path a refusal line names: the last quoted one, else the last bare one
    (bash names its script before the path it was refused); None if it names none."""
    quoted = ["".join(groups) for groups in QUOTED_PATH.findall(line)]
    found = quoted or BARE_PATH.findall(line)
    return Path(os.path.normpath(found[-1])) if found else None


def needed_directory(path: Path, *, is_dir: bool = False) -> Path | None:
    """The directory to allow for a refused `path` (a directory itself when `is_dir`: a
    refused `mkdir`): the agent's own directory it lies in (the last hidden one on the way,
    `~/.gemini`; below `.config`, `.cache` and `.local/share` the one named after the agent),
    else the directory it is in. It may not exist yet. None for `/`."""
    parts = path.parts if is_dir else path.parts[:-1]
    hidden = [index for index, part in enumerate(parts) if part.startswith(".")]
    top = len(parts)  # the file's directory, when nothing hidden is on the way
    if hidden:
        top = min(hidden[-1] + 1 + XDG_DEPTH.get(parts[hidden[-1]], 0), len(parts))
    candidate = Path(*parts[:top]) if top > 0 else Path("/")
    return None if candidate == candidate.parent else candidate


def existing_above(path: Path) -> Path:
    """`path`, or the nearest directory above it that exists."""
    while not path.is_dir() and path != path.parent:
        path = path.parent
    return path


def find_refusals(policy: SandboxPolicy | None, lines: Iterable[str]) -> list[Refusal]:
    """The refusals in `lines`, for an agent in an active sandbox (none otherwise); a path in a
    place the sandbox lets the agent write, or the user may not write either, was refused for
    another reason: it names no directory."""
    if policy is None or not policy.active:
        return []
    found = []
    for raw in lines:
        for line in raw.splitlines() or [raw]:
            if not REFUSED.search(line):
                continue
            path = refused_path(line) if NAMES_A_PATH.search(line) else None
            directory = None
            if path is not None:
                directory = needed_directory(path, is_dir=MKDIR.search(line) is not None)
            if directory is not None and not _sandbox_refuses(policy, directory):
                directory = None
            found.append(Refusal(safe_line(line.strip())[:300], path, directory))
    return found


def _sandbox_refuses(policy: SandboxPolicy, directory: Path) -> bool:
    """Whether the sandbox is what keeps the agent from writing in `directory`: the user may
    write there (acp-tui runs as the user), the sandbox does not allow it."""
    real = Path(os.path.realpath(existing_above(directory)))
    if any(real.is_relative_to(place) for place in policy.writable):
        return False
    return os.access(real, os.W_OK)


def refusal_hint(
    policy: SandboxPolicy | None, stderr_tail: Sequence[str], home: Path | None = None
) -> str | None:
    """A notice naming the refusal the agent wrote last before it ended, and the directory it
    needed, when it ran in a sandbox; None when nothing it wrote looks like one."""
    refusals = find_refusals(policy, stderr_tail)
    if policy is None or not refusals:
        return None
    chosen = next((r for r in reversed(refusals) if r.directory is not None), None)
    chosen = chosen or next((r for r in reversed(refusals) if r.path is not None), refusals[-1])
    return hint_for(policy, chosen, home)


def hint_for(policy: SandboxPolicy, refusal: Refusal, home: Path | None = None) -> str:
    """The notice for one refusal: what was refused, the directory it needed and the option and
    the setting that allow it."""
    home = home if home is not None else Path.home()
    if refusal.directory is None or refusal.path is None:
        return (
            f"The agent ran in the {policy.mode.value} sandbox and was refused: {refusal.line}."
            " If it needs that place, add it to sandbox_writable (or start it with --sandbox off)."
        )
    shown = safe_line(shown_path(refusal.directory, home))
    word = shown if SHELL_WORD.fullmatch(shown) else _shell_quoted(str(refusal.directory))
    make = "" if refusal.directory.is_dir() else f" make it (mkdir -p {word}) and"
    return (
        f"The {policy.mode.value} sandbox refused the agent"
        f" {safe_line(shown_path(refusal.path, home))}. If it needs the directory {shown},"
        f"{make} allow it for one run with --sandbox-writable {word}, or always with the line"
        f" sandbox_writable = [{json.dumps(shown, ensure_ascii=False)}] in config.toml"
        " (or start it with --sandbox off)."
    )


def _shell_quoted(text: str) -> str:
    import shlex

    return safe_line(shlex.quote(text))

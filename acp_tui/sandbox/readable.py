"""What `strict` lets the agent read: everything but the secrets, as the few paths that cover it.

Landlock only grants, so "all but ~/.ssh" is granted as every entry beside the way down to each
secret: the entries of `/` but the one holding the secret, the entries of that directory but
the next one, and so on. An entry that is (or leads through a symbolic link to) a secret, or
holds one, is never granted whole. Walked again for every process started in the sandbox (the
agent, each terminal command): what appears later beside a secret's way is readable to the
processes started after it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path


def readable_around(secrets: Sequence[Path]) -> list[Path]:
    """The paths (real, existing) whose whole subtrees hold no secret and that together cover
    everything reachable from `/` but the secrets. `secrets`: real paths."""
    if not secrets:
        return [Path("/")]
    found: list[Path] = []
    _walk(Path("/"), list(secrets), found)
    return found


def _walk(directory: Path, secrets: list[Path], found: list[Path]) -> None:
    try:
        entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
    except OSError:
        return  # not listable: nothing in it is granted
    for entry in entries:
        path = Path(entry.path)
        if path in secrets:
            continue
        if entry.is_symlink():
            target = Path(os.path.realpath(path))
            if not _touches(target, secrets):
                found.append(path)  # (the rule lands on the link's target)
            continue  # a link to, into or above a secret: never granted
        if entry.is_dir(follow_symlinks=False) and _touches(path, secrets):
            _walk(path, secrets, found)  # a directory on the way down to a secret
            continue
        found.append(path)


def _touches(path: Path, secrets: list[Path]) -> bool:
    """Whether `path` is a secret, is inside one or holds one."""
    return any(path.is_relative_to(secret) or secret.is_relative_to(path) for secret in secrets)

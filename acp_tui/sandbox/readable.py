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


def readable_around(secrets: Sequence[Path]) -> list[str]:
    """The paths (real, existing) whose whole subtrees hold no secret and that together cover
    everything reachable from `/` but the secrets. `secrets`: real paths. (Walked with strings,
    never `Path`s, and `scandir`'s own file types: a few hundred entries in well under a
    millisecond.)"""
    if not secrets:
        return ["/"]
    found: list[str] = []
    _walk("/", [str(secret) for secret in secrets], found)
    return found


def _walk(directory: str, secrets: list[str], found: list[str]) -> None:
    try:
        with os.scandir(directory) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
    except OSError:
        return  # not listable: nothing in it is granted
    for entry in entries:
        path = entry.path
        if path in secrets:
            continue
        try:
            if entry.is_symlink():
                if not _touches(os.path.realpath(path), secrets):
                    found.append(path)  # (the rule lands on the link's target)
                continue  # a link to, into or above a secret: never granted
            if entry.is_dir(follow_symlinks=False) and _touches(path, secrets):
                _walk(path, secrets, found)  # a directory on the way down to a secret
                continue
        except OSError:
            continue  # gone meanwhile
        found.append(path)


def _touches(path: str, secrets: list[str]) -> bool:
    """Whether `path` is a secret, is inside one or holds one."""
    below = path.rstrip("/") + "/"
    return any(
        path == secret or path.startswith(secret + "/") or secret.startswith(below)
        for secret in secrets
    )

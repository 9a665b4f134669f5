"""Test support: a shell line that leaves a hard-to-kill process tree, and a /proc census.

Every process of the tree runs `sleep` with an argument unique to the test (the tag), so the
census finds exactly them, whoever their parent is now and whatever their group or session.
`survivors(tag)` lists them; `cleanup(tag)` SIGKILLs any (tests call it in `finally`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
from collections.abc import Callable

TIMEOUT = 20.0


def new_tag() -> str:
    """A sleep duration no other process uses: 90000.<random digits> seconds."""
    return f"90000.{random.randrange(10**8, 10**9)}"


def tree_command(tag: str, *, cleared_env: bool = False) -> str:
    """A shell line whose tree escapes a process-group kill in every usual way.

    setsid (new session and group), nohup (ignores SIGHUP), a shell ignoring HUP that execs a
    sleep (ignored signals survive exec), a double fork (the orphan is re-parented at once),
    and the foreground sleep. With `cleared_env`, also a double-forked orphan started with an
    empty environment (no marker can be inherited), in its own session.
    """
    parts = [
        f"setsid sleep {tag}1 &",
        f"nohup sleep {tag}2 >/dev/null 2>&1 &",
        f"sh -c 'trap \"\" HUP; exec sleep {tag}3' &",
        f"sh -c 'sleep {tag}4 &' &",
    ]
    if cleared_env:
        parts.append(f"env -i /bin/sh -c 'setsid /bin/sleep {tag}5 &' &")
    parts.append(f"echo tree-started; sleep {tag}6")
    return " ".join(parts)


def tree_sleeps(*, cleared_env: bool = False) -> tuple[int, ...]:
    """The numbers of the sleeps `tree_command` starts (tag + number is each one's argument)."""
    return (1, 2, 3, 4, 5, 6) if cleared_env else (1, 2, 3, 4, 6)


def tree_started(tag: str, *, cleared_env: bool = False) -> bool:
    """Whether every sleep of the tree runs (has exec'd: nohup and `trap '' HUP` in effect).

    Counted by the sleeps, not by tagged processes: the shell running the line carries the tag
    too, and whether it stays (dash) or execs its last command (bash) depends on `$SHELL`.
    """
    return all(execed_sleep(f"{tag}{n}") for n in tree_sleeps(cleared_env=cleared_env))


def survivors(tag: str) -> list[int]:
    """Live (non-zombie) processes whose command line carries the tag."""
    found = []
    needle = tag.encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as file:
                cmdline = file.read()
            with open(f"/proc/{entry}/stat", "rb") as file:
                state = file.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in cmdline and state != b"Z":
            found.append(int(entry))
    return found


def execed_sleep(tag: str) -> bool:
    """Whether a process runs exactly `sleep TAG` (has exec'd): a tagged process is seen from
    its fork on, before `nohup` or `trap '' HUP` made it immune to the hangup."""
    wanted = [b"sleep", tag.encode(), b""]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as file:
                    argv = file.read().split(b"\0")
            except OSError:
                continue
            if argv[1:] == wanted[1:] and os.path.basename(argv[0]) == wanted[0]:
                return True
    return False


def cleanup(tag: str) -> None:
    for pid in survivors(tag):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


async def poll(condition: Callable[[], bool], what: str) -> None:
    """Poll (no event exists for the process table) until `condition`, with a deadline."""
    try:
        async with asyncio.timeout(TIMEOUT):
            while not condition():  # noqa: ASYNC110
                await asyncio.sleep(0.02)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what}") from None

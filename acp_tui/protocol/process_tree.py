"""Process trees on Linux, read from /proc: find every member of a tree and kill it as a whole.

A process group is not a tree: `setsid`, `nohup` plus a new group, or a daemon's double fork all
leave it. What stays true is the parent chain (ppid) while the parents live, an environment
variable inherited from the process we started (a *marker*, read from /proc/PID/environ), and,
once acp-tui is a child subreaper (`set_child_subreaper`), that an orphan is re-parented to
acp-tui rather than to init. A member is named by (pid, start time) so a reused pid is never
mistaken for it.

`kill_tree` stops (SIGSTOP) every member it finds and scans again until nothing new appears (a
stopped process cannot fork), then SIGKILLs them all: a process that forks in a loop cannot
outrun it. Everything here is synchronous and cheap (one /proc scan is ~1 ms for 100 processes).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import time
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

PR_SET_CHILD_SUBREAPER = 36
KILL_ROUNDS = 50
SETTLE_SECONDS = 1.0  # how long kill_tree waits for the killed to be gone (or zombies)
STOP_SECONDS = 0.5  # how long kill_tree waits for the processes it stopped to have stopped


@dataclass(frozen=True)
class Proc:
    """One /proc/PID/stat line: enough to walk the tree and to recognise the process later."""

    pid: int
    ppid: int
    pgid: int
    sid: int
    state: str
    start: int  # clock ticks after boot: (pid, start) names one process even if the pid is reused


def read_proc(pid: int) -> Proc | None:
    """One process's `/proc/PID/stat` facts; None if it is gone or unreadable."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            data = file.read()
    except OSError:
        return None
    # the command name (field 2) is in parentheses and may itself contain ") "
    fields = data[data.rfind(b")") + 2 :].split()
    try:
        return Proc(
            pid, int(fields[1]), int(fields[2]), int(fields[3]), fields[0].decode(), int(fields[19])
        )
    except (IndexError, ValueError):
        return None


def snapshot() -> dict[int, Proc]:
    """Every process visible now, by pid."""
    procs: dict[int, Proc] = {}
    with contextlib.suppress(OSError):
        for name in os.listdir("/proc"):
            if name.isdigit():
                proc = read_proc(int(name))
                if proc is not None:
                    procs[proc.pid] = proc
    return procs


def start_time(pid: int) -> int | None:
    """A process's start time in clock ticks (with the pid, an identity pid reuse cannot fake); None
    if it is gone."""
    proc = read_proc(pid)
    return None if proc is None else proc.start


def descendants(roots: Iterable[int], procs: Mapping[int, Proc]) -> set[int]:
    """The roots (those alive) and every process below them by parent pid."""
    children: dict[int, list[int]] = {}
    for proc in procs.values():
        children.setdefault(proc.ppid, []).append(proc.pid)
    found: set[int] = set()
    todo = [pid for pid in roots if pid in procs]
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, ()))
    return found


def has_marker(pid: int, marker: str) -> bool:
    """Whether the process was started with the environment variable `marker` (any value).

    /proc/PID/environ is the environment at exec time, readable for our own user's processes.
    """
    try:
        with open(f"/proc/{pid}/environ", "rb") as file:
            data = file.read()
    except OSError:
        return False
    prefix = marker.encode() + b"="
    return data.startswith(prefix) or b"\0" + prefix in data


def alive(known: Mapping[int, int], procs: Mapping[int, Proc]) -> set[int]:
    """The pids of `known` (pid → start time) that still name the same process."""
    return {pid for pid, start in known.items() if pid in procs and procs[pid].start == start}


def members(
    procs: Mapping[int, Proc],
    *,
    known: Mapping[int, int] = {},
    marker: str | None = None,
    checked: dict[tuple[int, int], bool] | None = None,
) -> set[int]:
    """The tree: known processes still alive, processes carrying `marker`, and all below them.

    `checked` caches marker answers by (pid, start) across calls (environ never changes).
    """
    roots = alive(known, procs)
    if marker is not None:
        cache = checked if checked is not None else {}
        uid = os.getuid()
        for proc in procs.values():
            key = (proc.pid, proc.start)
            if key not in cache:
                cache[key] = (
                    proc.state != "Z" and _owned_by(proc.pid, uid) and has_marker(proc.pid, marker)
                )
            if cache[key]:
                roots.add(proc.pid)
    return descendants(roots, procs)


def _owned_by(pid: int, uid: int) -> bool:
    try:
        return os.stat(f"/proc/{pid}").st_uid == uid
    except OSError:
        return False


def _signal(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


def kill_tree(
    *,
    known: Mapping[int, int] = {},
    marker: str | None = None,
    below: Collection[int] = (),
    exclude: Collection[int] = (),
    watched: Collection[int] | None = (),
) -> dict[int, Proc]:
    """SIGKILL the whole tree (see `members`; `below` adds every descendant of those pids).

    Returns what was killed. Then waits briefly for the killed to die and reaps the zombies
    that are acp-tui's own children (orphans re-parented to it), except the `watched` pids (an
    asyncio child watcher waits for those) and `exclude`. `watched=None`: reap nothing.
    """
    me = os.getpid()
    skip = {me, *exclude}
    stopped: dict[int, Proc] = {}
    checked: dict[tuple[int, int], bool] = {}
    for _ in range(KILL_ROUNDS):
        procs = snapshot()
        found = members(procs, known=known, marker=marker, checked=checked)
        found |= descendants(below, procs) | descendants(stopped, procs)
        new = [
            procs[pid]
            for pid in found
            if pid not in skip and pid not in stopped and procs[pid].state not in "ZX"
        ]
        if not new:
            break
        for proc in new:
            _signal(proc.pid, signal.SIGSTOP)
            stopped[proc.pid] = proc
        # SIGSTOP is delivered asynchronously: until they have stopped they may still fork,
        # so the next look must come after they did, or a child forked meanwhile is missed
        _wait_stopped({proc.pid: proc for proc in new})
    for pid in stopped:
        _signal(pid, signal.SIGKILL)
    if stopped:
        _settle(stopped)
        if watched is not None:
            reap_orphans(stopped, keep={*watched, *exclude})
    return stopped


def _wait_stopped(procs: Mapping[int, Proc]) -> None:
    """Wait (up to STOP_SECONDS) until each of `procs` is stopped, a zombie or gone."""
    _wait_for_states(procs, "TtZX", STOP_SECONDS, 0.001)


def _settle(killed: Mapping[int, Proc]) -> None:
    """Wait (up to SETTLE_SECONDS) until each of `killed` is a zombie or gone."""
    _wait_for_states(killed, "ZX", SETTLE_SECONDS, 0.002)


def _wait_for_states(procs: Mapping[int, Proc], states: str, seconds: float, pause: float) -> None:
    """Poll /proc until each of `procs` is in one of `states`, gone or replaced, or `seconds`
    have passed."""
    deadline = time.monotonic() + seconds
    waiting = dict(procs)
    while waiting and time.monotonic() < deadline:
        for pid, proc in list(waiting.items()):
            now = read_proc(pid)
            if now is None or now.start != proc.start or now.state in states:
                del waiting[pid]
        if waiting:
            time.sleep(pause)


def reap_orphans(procs: Mapping[int, Proc], keep: Collection[int] = ()) -> list[int]:
    """waitpid() the zombies among `procs` that are our children (orphans re-parented to us as
    subreaper), never a pid in `keep`. Returns the pids reaped."""
    me = os.getpid()
    reaped = []
    for pid, proc in procs.items():
        if pid in keep:
            continue
        now = read_proc(pid)
        if now is None or now.start != proc.start or now.ppid != me or now.state != "Z":
            continue
        with contextlib.suppress(ChildProcessError):
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                reaped.append(pid)
    return reaped


def end_group(pgid: int, keep: Collection[int] = ()) -> list[int]:
    """SIGKILL what is left of process group `pgid` (an agent's, which it leads) and reap those
    of its members that are our children, except `keep` (an asyncio watcher waits for those).

    A kill that looks for the agent's marker or its descendants misses two kinds of its group:
    a child that died with it (of the group's SIGTERM) after it did, re-parented to us already
    a zombie (no marker can be read from a zombie); and one that outlived it (SIGTERM ignored)
    with no marker (a cleared environment), re-parented to us. Returns the pids reaped."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)  # the group's id is not reused while it has members
    members = {pid: proc for pid, proc in snapshot().items() if proc.pgid == pgid}
    _settle(members)
    return reap_orphans(members, keep)


def set_child_subreaper() -> bool:
    """Make orphaned descendants re-parent to this process (Linux prctl). False if refused."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False

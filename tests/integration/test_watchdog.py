"""The watchdog: `kill -9` of acp-tui while a terminal's command keeps spawning children that
carry no marker (a cleared environment) and leave its session, and the watchdog still kills the
whole tree; the PTY copies it holds are let go when the command ends.

acp-tui records what it sees of a tree every half second, so children started since then are
known to nobody but their parent. The process below is acp-tui as far as processes go (the real
`ProcessGuard` and `TerminalHost`, see tests/guarded_terminal.py); it is SIGKILLed while the
command spawns such children ten times a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from acp_tui.host.process_guard import OWNER_MARKER_PREFIX
from acp_tui.protocol.process_tree import read_proc
from acp_tui.protocol.watchdog import Watchdog
from tests.process_trees import cleanup, new_tag, poll, survivors, tree_command, tree_started

GUARDED = Path(__file__).resolve().parents[1] / "guarded_terminal.py"


@pytest.fixture
def tag() -> Iterator[str]:
    value = new_tag()
    yield value
    cleanup(value)  # whatever the outcome, nothing of the test outlives it


def spawner(tag: str) -> str:
    """A loop starting, ten times a second, children that clear their environment (no marker
    can be inherited), some of them in a session of their own, ignoring the hangup, with
    children of their own; and setsid/nohup ones that keep the environment."""
    cleared = f"env -i /bin/sh -c 'sleep {tag}1'"
    cleared_setsid = f"env -i setsid /bin/sh -c 'trap \"\" HUP; sleep {tag}2 & sleep {tag}3'"
    marked = f"setsid sleep {tag}4 & nohup sleep {tag}5 >/dev/null 2>&1"
    return f"while :; do {cleared} & {cleared_setsid} & {marked} & sleep 0.1; done"


def running(pid: int) -> bool:
    proc = read_proc(pid)
    return proc is not None and proc.state not in "ZX"


async def kill_9_when(
    tmp_path: Path, tag: str, args: list[str], started: Callable[[], bool], what: str
) -> None:
    """Run the stand-in acp-tui (`GUARDED`) with `args`, kill it with -9 once `started()`: its
    watchdog acts and exits, and no process of the tree (`tag`) is left."""
    guarded = await asyncio.create_subprocess_exec(
        sys.executable,
        str(GUARDED),
        *args,
        cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert guarded.stdout is not None
        watchdog = int(await asyncio.wait_for(guarded.stdout.readline(), 20))
        await poll(started, what)
        os.kill(guarded.pid, signal.SIGKILL)
        assert await guarded.wait() == -signal.SIGKILL
        await poll(lambda: not running(watchdog), "the watchdog to act and exit")
        await poll(lambda: not survivors(tag), "no process of the tree")
    finally:
        if guarded.returncode is None:
            guarded.kill()
            await guarded.wait()


async def test_kill_9_while_the_command_spawns_unmarked_children(tmp_path: Path, tag: str) -> None:
    # a few rounds of the loop: children older and younger than the last record
    await kill_9_when(
        tmp_path,
        tag,
        [spawner(tag)],
        lambda: len(survivors(tag)) >= 40,
        "the command to spawn children",
    )


def holds(pid: int, tty_index: str) -> bool:
    """Whether process `pid` has the master of PTY number `tty_index` open (/proc fdinfo)."""
    for name in os.listdir(f"/proc/{pid}/fd"):
        with contextlib.suppress(OSError):
            info = Path(f"/proc/{pid}/fdinfo/{name}").read_text()
            if f"tty-index:\t{tty_index}\n" in info:
                return True
    return False


async def test_the_watchdog_holds_a_terminal_pty_until_dropped() -> None:
    """A finished terminal's PTY is not kept open by the watchdog (one descriptor per terminal
    the session ever ran would pile up in it)."""
    watchdog = Watchdog.spawn(OWNER_MARKER_PREFIX + "test" + new_tag().replace(".", ""))
    master, slave = os.openpty()
    try:
        tty_index = os.ttyname(slave).rsplit("/", 1)[1]
        assert holds(os.getpid(), tty_index)
        # (pid, start) of no process: the watchdog's sweep at close must kill nothing here
        watchdog.hold(master, os.getpid(), 1)
        await poll(lambda: holds(watchdog.pid, tty_index), "the watchdog to hold the PTY")
        watchdog.drop(os.getpid(), 1)
        await poll(lambda: not holds(watchdog.pid, tty_index), "the watchdog to close it")
    finally:
        os.close(master)
        os.close(slave)
        watchdog.close(wait=10.0)
    assert watchdog.process.returncode == 0


async def test_a_burst_of_records_is_not_lost(tag: str) -> None:
    """Thousands of processes recorded at once (a build in a terminal), while the watchdog is
    still starting: the last one, with no marker to be found by, is killed all the same."""
    process = await asyncio.create_subprocess_exec(
        "sleep", f"{tag}1", env={"PATH": os.environ["PATH"]}, start_new_session=True
    )
    watchdog = Watchdog.spawn(OWNER_MARKER_PREFIX + "test" + tag.replace(".", ""))
    try:
        for fake in range(3000):  # pids above any pid_max: no process has them
            watchdog.record(2**22 + fake, 1)
        proc = read_proc(process.pid)
        assert proc is not None
        watchdog.record(process.pid, proc.start)
        watchdog.flush()
        watchdog.close(wait=20.0)
        assert watchdog.process.returncode == 0
        assert await asyncio.wait_for(process.wait(), 20) == -signal.SIGKILL
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        watchdog.close(wait=10.0)


async def test_kill_9_right_after_a_terminal_started_before_acp_tui_looked_at_it(
    tmp_path: Path, tag: str
) -> None:
    """acp-tui killed while busy right after a terminal's command started (its loop had not run
    since the spawn: nothing of the command recorded yet). Its PTY master was handed to the
    watchdog before the command started, so the death does not hang the command up and scatter
    its tree (a cleared-environment orphan, no marker, would escape to init): the watchdog
    finds the command by its marker and kills all below it. (About 1 run in 10 of the real app
    under load lost that race: tests/integration/test_no_orphans_app.py.)"""
    await kill_9_when(
        tmp_path,
        tag,
        [tree_command(tag, cleared_env=True), "--stall-after-spawn"],
        lambda: tree_started(tag, cleared_env=True),
        "the terminal's tree to start",
    )

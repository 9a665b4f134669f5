"""No orphans: a terminal's tree (setsid, nohup, HUP-ignoring, double-forked children) dies on
terminal/kill, release and close_all; the agent's tree dies on shutdown and when it crashes."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from acp_tui.host.terminals import Terminal, TerminalHost
from acp_tui.protocol.process import AgentProcess
from acp_tui.protocol.process_tree import kill_tree, snapshot
from tests.process_trees import (
    cleanup,
    new_tag,
    poll,
    survivors,
    tree_command,
    tree_started,
)
from tests.routed import RoutedTerminals

SID = "sess-1"


@pytest.fixture
def tag() -> Iterator[str]:
    value = new_tag()
    yield value
    cleanup(value)  # whatever the outcome, nothing of the test outlives it


@pytest.fixture
async def host(tmp_path: Path) -> AsyncIterator[RoutedTerminals]:
    terminal_host = TerminalHost(tmp_path)
    yield RoutedTerminals(terminal_host)
    await terminal_host.close_all()


async def start_tree(host: RoutedTerminals, tag: str) -> tuple[dict[str, str], Terminal]:
    created = await host.create({"sessionId": SID, "command": tree_command(tag)})
    await poll(lambda: tree_started(tag), "the whole tree to start")
    terminal = host.get(created["terminalId"])
    assert isinstance(terminal, Terminal)
    return {"sessionId": SID, "terminalId": created["terminalId"]}, terminal


async def test_terminal_kill_kills_the_whole_tree(host: RoutedTerminals, tag: str) -> None:
    ref, _ = await start_tree(host, tag)
    # before the kill: the tree really has left the command's process group
    groups = {proc.pgid for pid, proc in snapshot().items() if pid in survivors(tag)}
    assert len(groups) > 1
    assert await host.kill(ref) == {}
    await poll(lambda: not survivors(tag), "no process of the tree")
    status = await host.wait_for_exit(ref)
    assert status == {"exitCode": None, "signal": "SIGKILL"}
    assert "tree-started" in (await host.output(ref))["output"]


async def test_release_kills_the_whole_tree(host: RoutedTerminals, tag: str) -> None:
    ref, _ = await start_tree(host, tag)
    assert await host.release(ref) == {}
    await poll(lambda: not survivors(tag), "no process of the tree")


async def test_close_all_kills_orphans_of_a_command_that_already_ended(
    host: RoutedTerminals, tag: str
) -> None:
    _, terminal = await start_tree(host, tag)
    root = terminal._process
    assert root is not None
    os.kill(root.pid, signal.SIGKILL)  # the command ends; its children become orphans
    await terminal.wait_for_exit()
    # the children immune to the hangup live on, re-parented away from the tree's root
    immune = [f"{tag}{n}" for n in (1, 2, 3)]
    assert all(survivors(t) for t in immune)
    assert all(snapshot()[pid].ppid != root.pid for t in immune for pid in survivors(t))
    await host.close_all()
    await poll(lambda: not survivors(tag), "no orphan left")


async def test_kill_tree_outruns_a_process_that_keeps_forking(tag: str) -> None:
    import asyncio

    script = f"while true; do sleep {tag}1 & done"
    process = await asyncio.create_subprocess_exec(
        "sh", "-c", script, start_new_session=True, env={"PATH": "/usr/bin:/bin", "FORKER": "1"}
    )
    try:
        await poll(lambda: len(survivors(tag)) > 20, "the forks to pile up")
        start = snapshot()[process.pid].start
        await asyncio.to_thread(kill_tree, known={process.pid: start}, watched=(process.pid,))
        assert await process.wait() == -9
        await poll(lambda: not survivors(tag), "no fork left")
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_agent_shutdown_kills_children_that_left_its_group(tag: str, tmp_path: Path) -> None:
    # an agent ignoring stdin EOF and SIGTERM, with a child in its own session (like
    # codex-acp's native child that outlives SIGTERM to the node wrapper)
    script = f"trap '' TERM; setsid sleep {tag}1 & sh -c 'sleep {tag}2 &'; exec sleep {tag}3"
    process = await AgentProcess.spawn(["sh", "-c", script], cwd=str(tmp_path))
    await poll(lambda: len(survivors(tag)) == 3, "the agent's tree")
    exit_ = await process.shutdown(grace=0.2)
    assert exit_.signal_name == "SIGKILL"
    await poll(lambda: not survivors(tag), "no process of the agent's tree")


async def test_agent_tree_kill_after_the_agent_exited_by_itself(tag: str, tmp_path: Path) -> None:
    script = f"setsid sleep {tag}1 & exit 0"
    process = await AgentProcess.spawn([sys.executable, "-c", _SPAWN_AND_EXIT, script])
    await poll(lambda: len(survivors(tag)) == 1, "the orphan")
    await process.wait()
    assert await process.kill_tree() == 1
    await poll(lambda: not survivors(tag), "the orphan gone")
    await process.shutdown(grace=0.1)


_SPAWN_AND_EXIT = "import subprocess, sys; subprocess.run(['sh', '-c', sys.argv[1]])"


ROOT = Path(__file__).resolve().parents[2]

# acp-tui (a child subreaper) shuts an agent down whose children share its process group, as
# codex-acp's native child does: one dies of the group's SIGTERM after the agent (re-parented to
# acp-tui already a zombie: no marker can be read from it), one ignores SIGTERM and carries no
# marker (a cleared environment) and is orphaned when the agent dies. Neither is left: no
# zombie of acp-tui's, no process of the tree.
_SUBREAPER_SHUTDOWN = """
import asyncio, os, sys
from acp_tui.protocol.process import AgentProcess
from acp_tui.protocol.process_tree import set_child_subreaper, snapshot
from tests.process_trees import execed_sleep, poll, survivors

async def main(tag):
    assert set_child_subreaper()
    ignores = f"env -i /bin/sh -c 'trap \\"\\" TERM; exec sleep {tag}2'"
    agent = await AgentProcess.spawn(["sh", "-c", f"sleep {tag}1 & {ignores} & wait"])
    await poll(lambda: execed_sleep(f"{tag}1") and execed_sleep(f"{tag}2"), "the children")
    await agent.shutdown(grace=0.2)
    me = os.getpid()
    zombies = sorted(p.pid for p in snapshot().values() if p.ppid == me and p.state == "Z")
    print(zombies, [pid for pid in survivors(tag) if pid != me])  # this script carries the tag

asyncio.run(main(sys.argv[1]))
"""


async def test_the_agents_group_is_ended_and_reaped(tag: str) -> None:
    """A zombie per closed tab (or agent restart) piled up in acp-tui until it exited, and a
    child of the agent's group without its marker outlived it."""
    checker = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _SUBREAPER_SHUTDOWN, tag, cwd=ROOT, stdout=asyncio.subprocess.PIPE
    )
    try:
        out, _ = await asyncio.wait_for(checker.communicate(), 30)
    finally:
        cleanup(tag)
    assert checker.returncode == 0
    assert out.decode().strip() == "[] []", "zombies of acp-tui's, processes of the agent's group"

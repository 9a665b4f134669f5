"""One terminal's release, kill or exit touches its own process tree only.

A scripted agent speaks to the real client core (`AgentSession`: connection, router, terminal
host) over a real connection. It opens several terminals whose trees leave the command's process
group (setsid, nohup, HUP ignored, double forks, background jobs), then, once the test has seen
every tree up and prompts it, releases or kills one of them (B). Every process of the other
terminals, named by (pid, start time), must still run, their commands too, and B's tree must be
gone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from acp_tui.client.session.agent_session import AgentSession
from acp_tui.protocol.process_tree import snapshot
from acp_tui.thread.thread_changes import TurnStateChanged
from bench.headless import HeadlessUi
from tests.agents.scenarios import (
    ScriptedAgent,
    Step,
    client_request,
    end_turn,
    expect_prompt,
    initialize_ok,
    new_session_ok,
    write_scenario,
)
from tests.process_trees import (
    TIMEOUT,
    cleanup,
    execed_sleep,
    new_tag,
    poll,
    survivors,
    tree_command,
    tree_started,
)

SID = "sess-iso"
B = "$saved.b.result.terminalId"


@pytest.fixture
def tags() -> Iterator[list[str]]:
    made: list[str] = []
    yield made
    for tag in made:
        cleanup(tag)  # whatever the outcome, nothing of the test outlives it


def finished_tree(tag: str) -> str:
    """A command that exits at once (exit code 3), leaving background children that ignore the
    hangup of its terminal (inherited from the shell, so before they even run): one in its own
    session, a nohup one, a double-forked one, a plain background job."""
    return (
        f"trap '' HUP; setsid sleep {tag}1 & nohup sleep {tag}2 >/dev/null 2>&1 &"
        f" sh -c 'sleep {tag}3 &'; sleep {tag}4 & echo hi; exit 3"
    )


def finished_tree_started(tag: str) -> bool:
    return all(execed_sleep(f"{tag}{n}") for n in (1, 2, 3, 4))


def identities(tags: list[str]) -> set[tuple[int, int]]:
    """(pid, start time) of the lasting processes of the trees of `tags`: the sleeps and the
    shell running the line (not the double fork's middle process, which exits by itself)."""
    procs = snapshot()
    found = set()
    for tag in tags:
        for pid in survivors(tag):
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            sleeps = Path(argv[0].decode()).name == "sleep" and argv[1].startswith(tag.encode())
            line = argv[1:3] == [b"-c", tree_command(tag).encode()]
            if pid in procs and (sleeps or line):
                found.add((pid, procs[pid].start))
    return found


def running(identity: tuple[int, int]) -> bool:
    proc = snapshot().get(identity[0])
    return proc is not None and proc.start == identity[1] and proc.state not in "ZX"


def answers(agent: ScriptedAgent) -> list[dict[str, Any]]:
    """The results the client sent the agent, in order."""
    return [f["result"] for f in agent.transcript() if isinstance(f, dict) and "result" in f]


def terminal_ids(agent: ScriptedAgent) -> list[str]:
    """The ids of the terminals the agent created, in order."""
    return [answer["terminalId"] for answer in answers(agent) if "terminalId" in answer]


async def run_scenario(
    tmp_path: Path,
    *,
    others: list[str],
    b_tag: str,
    b_command: str,
    b_started: Callable[[str], bool],
    ops: list[Step],
    b_exit: dict[str, Any],
) -> None:
    """Open the others' terminals and B's (B second), wait for every tree, then let the agent
    run `ops` on B; check that the others lived through it, untouched, and B's tree is gone."""
    commands = [
        ("a", tree_command(others[0])),
        ("b", b_command),
        *[(None, tree_command(tag)) for tag in others[1:]],
    ]
    create = [
        client_request("terminal/create", {"sessionId": SID, "command": command}, name)
        for name, command in commands
    ]
    steps = [initialize_ok(), new_session_ok(SID), *create, expect_prompt(), *ops, end_turn()]
    agent = write_scenario(tmp_path, steps)
    project = tmp_path / "project"
    project.mkdir()
    session = AgentSession(agent.argv, project, HeadlessUi())
    ended = asyncio.Event()
    session.thread.subscribe(
        lambda change: (
            ended.set() if isinstance(change, TurnStateChanged) and not change.running else None
        )
    )
    try:
        assert await session.start(), session.error or session.crash
        await poll(lambda: all(tree_started(tag) for tag in others), "the other trees to start")
        await poll(lambda: b_started(b_tag), "B's tree to start")
        before = identities(others)
        assert len(before) >= 5 * len(others)  # every sleep of every other tree is named
        created = len(others) + 1
        await poll(lambda: len(terminal_ids(agent)) == created, "the agent to get every answer")
        ids = terminal_ids(agent)
        b_id = ids.pop(1)

        session.submit("go")
        await asyncio.wait_for(ended.wait(), TIMEOUT)

        await poll(lambda: not survivors(b_tag), "no process of B's tree")
        assert [i for i in before if not running(i)] == [], "another terminal's process died"
        for terminal_id in ids:
            terminal = session.terminal(terminal_id)
            assert terminal is not None and terminal.running
        b = session.terminal(b_id)
        assert b is not None and b.exit_status is not None
        assert b_exit in answers(agent)  # terminal/wait_for_exit of B: its own status, exact
    finally:
        await session.close()
    await poll(lambda: not any(survivors(t) for t in [*others, b_tag]), "no tree after close")


@pytest.mark.parametrize("count", [2, 5])
async def test_release_after_exit_leaves_the_other_terminals_alive(
    tmp_path: Path, tags: list[str], count: int
) -> None:
    tags += [new_tag() for _ in range(count)]
    b_tag, others = tags[1], [tags[0], *tags[2:]]
    agent_ops = [
        client_request("terminal/wait_for_exit", {"sessionId": SID, "terminalId": B}, "exit"),
        client_request("terminal/release", {"sessionId": SID, "terminalId": B}, "released"),
    ]
    await run_scenario(
        tmp_path,
        others=others,
        b_tag=b_tag,
        b_command=finished_tree(b_tag),
        b_started=finished_tree_started,
        ops=agent_ops,
        b_exit={"exitCode": 3, "signal": None},
    )


@pytest.mark.parametrize("count", [2, 5])
async def test_kill_leaves_the_other_terminals_alive(
    tmp_path: Path, tags: list[str], count: int
) -> None:
    tags += [new_tag() for _ in range(count)]
    b_tag, others = tags[1], [tags[0], *tags[2:]]
    agent_ops = [
        client_request("terminal/kill", {"sessionId": SID, "terminalId": B}, "killed"),
        client_request("terminal/wait_for_exit", {"sessionId": SID, "terminalId": B}, "exit"),
    ]
    await run_scenario(
        tmp_path,
        others=others,
        b_tag=b_tag,
        b_command=tree_command(b_tag),
        b_started=tree_started,
        ops=agent_ops,
        b_exit={"exitCode": None, "signal": "SIGKILL"},
    )

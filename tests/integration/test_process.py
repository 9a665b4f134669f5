"""AgentProcess over real pipes: spawn, stderr flood, exit codes, shutdown, spawn errors."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest

from acp_tui.protocol.connection import ConnectionClosed
from acp_tui.protocol.process import AgentExit, AgentProcess, AgentSpawnError
from tests.agents.scenarios import initialize_ok, stderr_flood, write_scenario

INITIALIZE = {"protocolVersion": 1, "clientCapabilities": {}}


async def test_initialize_and_clean_shutdown(spawn_agent, tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, [initialize_ok()])
    process, conn = await spawn_agent(agent.argv)
    assert process.exit is None
    result = await asyncio.wait_for(conn.request("initialize", INITIALIZE), 10)
    assert result["protocolVersion"] == 1
    exit_ = await process.shutdown(grace=5.0)  # stdin EOF: the agent ends by itself
    assert exit_ == AgentExit(0, None)
    assert exit_.describe() == "agent exited normally"
    assert agent.received("initialize")[0]["params"] == INITIALIZE


async def test_stderr_flood_before_initialize_does_not_block(spawn_agent, tmp_path) -> None:
    flood = stderr_flood(1024 * 1024, "x" * 63 + "\n")
    agent = write_scenario(tmp_path, [flood, {"stderr": "ready\n"}, initialize_ok()])
    process, conn = await spawn_agent(agent.argv, stderr_ring_bytes=4096)
    await asyncio.wait_for(conn.request("initialize", INITIALIZE), 20)
    # stderr is drained concurrently; it has all arrived once the agent exits
    await process.shutdown(grace=5.0)
    assert process.stderr_bytes >= 1024 * 1024
    tail = process.stderr_tail(3)
    assert tail[-1] == "ready" and tail[0] == "x" * 63
    assert len(process.stderr_tail(1000)) <= 4096 // 64 + 1  # the ring is bounded


async def test_crash_with_exit_code(spawn_agent, tmp_path) -> None:
    steps = [initialize_ok(), {"stderr": "fatal: out of tokens\n"}, {"exit": 3}]
    agent = write_scenario(tmp_path, steps)
    process, conn = await spawn_agent(agent.argv)
    await asyncio.wait_for(conn.request("initialize", INITIALIZE), 10)
    exit_ = await asyncio.wait_for(process.wait(), 10)
    assert exit_ == AgentExit(3, None)
    assert exit_.describe() == "agent exited with code 3"
    await asyncio.wait_for(conn.wait_closed(), 10)
    with pytest.raises(ConnectionClosed):
        await conn.request("session/new", {"cwd": "/", "mcpServers": []})
    await process.shutdown(grace=1.0)  # stderr fully read after exit
    assert "fatal: out of tokens" in process.stderr_tail()


async def test_pending_request_fails_when_agent_dies(spawn_agent) -> None:
    script = "import sys; sys.stdin.readline(); sys.exit(5)"
    process, conn = await spawn_agent([sys.executable, "-c", script])
    with pytest.raises(ConnectionClosed):
        await asyncio.wait_for(conn.request("initialize", INITIALIZE), 10)
    assert (await asyncio.wait_for(process.wait(), 10)).returncode == 5


IGNORES_STDIN_EOF = "import time\nwhile True: time.sleep(1)\n"
IGNORES_SIGTERM = (
    "import signal, sys, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "print('ready', flush=True)\nwhile True: time.sleep(1)\n"
)


async def test_shutdown_sends_sigterm_after_grace() -> None:
    process = await AgentProcess.spawn([sys.executable, "-c", IGNORES_STDIN_EOF])
    exit_ = await asyncio.wait_for(process.shutdown(grace=0.2), 10)
    assert exit_ == AgentExit(None, "SIGTERM")
    assert exit_.describe() == "agent was killed by SIGTERM"


async def test_shutdown_kills_an_agent_that_ignores_sigterm() -> None:
    process = await AgentProcess.spawn([sys.executable, "-c", IGNORES_SIGTERM])
    assert await asyncio.wait_for(process.reader.readline(), 10) == b"ready\n"
    exit_ = await asyncio.wait_for(process.shutdown(grace=0.1), 10)
    assert exit_ == AgentExit(None, "SIGKILL")


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


async def test_grandchild_holding_pipes_does_not_block_exit_or_shutdown(tmp_path) -> None:
    # the agent starts a long-lived child that inherits stdout/stderr, prints its pid, exits
    script = (
        "import subprocess, sys\n"
        "child = subprocess.Popen(['sleep', '300'])\n"
        "print(child.pid, flush=True)\n"
        "sys.exit(4)\n"
    )
    process = await AgentProcess.spawn([sys.executable, "-c", script])
    grandchild = int(await asyncio.wait_for(process.reader.readline(), 10))
    assert (await asyncio.wait_for(process.wait(), 10)).returncode == 4
    exit_ = await asyncio.wait_for(process.shutdown(grace=0.1), 10)
    assert exit_.returncode == 4
    deadline = time.monotonic() + 10
    while not _gone(grandchild):  # SIGKILL to the group is asynchronous: wait for it
        assert time.monotonic() < deadline, "the agent's child survived shutdown"
        await asyncio.sleep(0.02)


async def test_environment_is_inherited_plus_extras(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("ACP_TUI_TEST_INHERITED", "from-parent")
    script = (
        "import json, os\n"
        "print(json.dumps([os.environ.get('ACP_TUI_TEST_INHERITED'), os.environ.get('EXTRA'),"
        " os.getcwd()]), flush=True)\n"
    )
    process = await AgentProcess.spawn(
        [sys.executable, "-c", script], cwd=str(tmp_path), env_extra={"EXTRA": "yes"}
    )
    line = await asyncio.wait_for(process.reader.readline(), 10)
    assert line.decode().strip() == f'["from-parent", "yes", "{tmp_path.resolve()}"]'
    await process.shutdown(grace=5.0)


async def test_agent_runs_in_its_own_process_group() -> None:
    script = "import os; print(os.getpgid(0), os.getpid(), flush=True)"
    process = await AgentProcess.spawn([sys.executable, "-c", script])
    pgid, pid = map(int, (await asyncio.wait_for(process.reader.readline(), 10)).split())
    assert pgid == pid == process.pid != os.getpgid(0)
    await process.shutdown(grace=5.0)


async def test_spawn_errors_are_one_line_with_a_hint(tmp_path) -> None:
    with pytest.raises(AgentSpawnError) as info:
        await AgentProcess.spawn(["gemni-does-not-exist", "--acp"])
    assert str(info.value) == (
        "agent command not found: 'gemni-does-not-exist' (is it installed and on PATH?)"
    )
    script = tmp_path / "agent.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o644)
    with pytest.raises(AgentSpawnError, match=r"not executable.*chmod"):
        await AgentProcess.spawn([str(script)])
    with pytest.raises(AgentSpawnError, match="is a directory"):
        await AgentProcess.spawn([str(tmp_path)])
    with pytest.raises(AgentSpawnError, match="no such file"):
        await AgentProcess.spawn([str(tmp_path / "missing")])
    with pytest.raises(AgentSpawnError, match="working directory does not exist"):
        await AgentProcess.spawn([sys.executable], cwd=str(tmp_path / "nope"))
    with pytest.raises(AgentSpawnError, match="no agent command"):
        await AgentProcess.spawn([])
    for error in [info.value]:
        assert "\n" not in str(error)

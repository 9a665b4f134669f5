"""`acp-tui check` against an agent that never answers `session/new` and leaves a hard-to-kill
tree (setsid, nohup, HUP ignored, double forks, a cleared environment): each step is told as it
goes and bounded, and however the check ends (the bound, SIGTERM, SIGINT) no process of the
agent's tree survives it."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tui.client.check import format_report, run_check
from acp_tui.client.check_steps import StepLimits
from tests.process_trees import cleanup, new_tag, poll, survivors, tree_command, tree_started

pytestmark = pytest.mark.timeout(90)

ROOT = Path(__file__).resolve().parents[2]
STDERR_LINE = "--dangerously-skip-permissions cannot be used with root/sudo privileges"


def silent_agent(tmp_path: Path, tag: str, *, cleared_env: bool = True) -> list[str]:
    """The argv of an agent that answers `initialize`, starts the tree of `tag` (waiting until
    every process of it runs), says why on stderr, and never answers `session/new`."""
    script = tmp_path / "silent_agent.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import json, subprocess, sys
            sys.path.insert(0, {str(ROOT)!r})
            from tests.process_trees import tree_started
            tag = {tag!r}
            for line in sys.stdin:
                message = json.loads(line)
                if message.get("method") != "initialize":
                    continue  # session/new: never answered
                subprocess.Popen(["sh", "-c", {tree_command(tag, cleared_env=cleared_env)!r}],
                                 stdout=subprocess.DEVNULL)
                while not tree_started(tag, cleared_env={cleared_env!r}):
                    pass
                print({STDERR_LINE!r}, file=sys.stderr, flush=True)
                result = {{"protocolVersion": 1, "agentCapabilities": {{}}, "authMethods": []}}
                reply = {{"jsonrpc": "2.0", "id": message["id"], "result": result}}
                print(json.dumps(reply), flush=True)
            """
        )
    )
    return [sys.executable, str(script)]


@pytest.fixture
def tag() -> Iterator[str]:
    made = new_tag()
    try:
        yield made
    finally:
        cleanup(made)


async def test_a_step_past_its_bound_ends_the_check_and_the_agent_tree(
    tmp_path: Path, tag: str
) -> None:
    """In the test's process: no subreaper, so the tree is the processes with the marker (the
    command line's guard also finds an orphan with a cleared environment, below)."""
    told: list[str] = []
    agent = silent_agent(tmp_path, tag, cleared_env=False)
    report = await run_check(agent, cwd=tmp_path, limits=StepLimits(step=2.0), say=told.append)
    assert report.error == "session/new: no answer after 2 s"
    assert report.stderr_tail == [STDERR_LINE]
    said = "".join(told).splitlines()
    assert said[0].startswith("initialize… ") and said[0].endswith(" s"), said
    assert said[1] == "session/new… no answer after 2 s", said
    assert "error:            session/new: no answer after 2 s" in format_report(report)
    assert survivors(tag) == []


def start_check(tmp_path: Path, tag: str, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "acp_tui",
            "check",
            "--json",
            "--cwd",
            str(tmp_path),
            *extra,
            "--",
            *silent_agent(tmp_path, tag),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_the_command_prints_each_step_and_stops_at_the_bound(tmp_path: Path, tag: str) -> None:
    check = start_check(tmp_path, tag, "--timeout", "2")
    out, err = check.communicate(timeout=60)
    assert check.returncode == 2, err
    assert err.splitlines()[0].startswith("initialize… ")
    assert err.splitlines()[1] == "session/new… no answer after 2 s"
    report = json.loads(out)
    assert report["error"] == "session/new: no answer after 2 s"
    assert report["stderr_tail"] == [STDERR_LINE]
    assert survivors(tag) == []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
async def test_a_signal_to_the_check_ends_the_agent_tree(
    tmp_path: Path, tag: str, sig: signal.Signals
) -> None:
    check = start_check(tmp_path, tag, "--timeout", "600")
    try:
        await poll(lambda: tree_started(tag, cleared_env=True), "the agent's tree")
        check.send_signal(sig)
        out, err = await asyncio.to_thread(check.communicate, timeout=60)
    finally:
        if check.poll() is None:
            check.kill()
            check.wait()
    assert check.returncode == 128 + sig, err
    assert f"acp-tui check: stopped by {sig.name}; the agent's processes were ended" in err
    assert out == ""
    assert survivors(tag) == []

"""The interop suite: acp-tui against real third-party agents and the fake LLM.

Every test here is marked `interop` and deselected by default (see `addopts` in pyproject);
run them with `uv run pytest -m interop`. A test skips when the kit or its agent is missing.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.interop.agents import BY_NAME, InteropAgent, kit_dir

NOTES = "first\nold line\nlast\n"
STARTUP_SECONDS = 20.0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.interop)
            item.add_marker(pytest.mark.timeout(420))


@pytest.fixture
def kit() -> Path:
    found = kit_dir()
    if found is None:
        pytest.skip("no interop kit (../shared/interop or $ACP_TUI_INTEROP)")
    return found


def agent_for(name: str) -> InteropAgent:
    agent = BY_NAME[name]
    if not agent.installed:
        pytest.skip(f"{name} is not installed (run the interop kit's setup.sh)")
    return agent


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """The agent's project: notes.txt to read and edit."""
    path = tmp_path / "project"
    path.mkdir()
    (path / "notes.txt").write_text(NOTES)
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class FakeLlm:
    port: int
    process: asyncio.subprocess.Process
    log: Path

    @property
    def env(self) -> dict[str, str]:
        return {"FAKE_LLM_PORT": str(self.port)}


async def _accepting(port: int, process: asyncio.subprocess.Process) -> None:
    async with asyncio.timeout(STARTUP_SECONDS):
        while True:
            if process.returncode is not None:
                raise RuntimeError(f"fake_llm.py exited with code {process.returncode}")
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                await asyncio.sleep(0.05)  # polling a port that is not open yet
                continue
            writer.close()
            return


@contextlib.asynccontextmanager
async def start_fake_llm(kit: Path, cwd: Path, log: Path, *options: str) -> AsyncIterator[FakeLlm]:
    """The scripted LLM server on a free port, for an agent working in `cwd`; stopped after.
    `options`: more of fake_llm.py's (`--task`: the Claude agent hands the work to a subagent)."""
    port = free_port()
    argv = [sys.executable, str(kit / "fake_llm.py"), "--port", str(port), "--cwd", str(cwd),
            "--max-seconds", "400", "--log", str(log), *options]  # fmt: skip
    process = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL
    )
    try:
        await _accepting(port, process)
        yield FakeLlm(port, process, log)
    finally:
        if process.returncode is None:
            process.terminate()
        try:
            await asyncio.wait_for(process.wait(), 5)
        except TimeoutError:
            process.kill()
            await process.wait()


@pytest.fixture
async def fake_llm(kit: Path, workdir: Path, tmp_path: Path) -> AsyncIterator[FakeLlm]:
    """The scripted LLM server on a free port, for the agent in `workdir`."""
    async with start_fake_llm(kit, workdir, tmp_path / "fake_llm.jsonl") as llm:
        yield llm

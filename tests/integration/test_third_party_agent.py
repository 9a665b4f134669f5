"""Our Connection against agents nobody here wrote: the `agent-client-protocol` SDK examples.

The examples ship only in the sdist, which is fetched (once) into tests/.cache/ with pip: this
needs PyPI, so the test is under the `interop` marker (deselected by default; run it with
`uv run pytest -m interop tests/integration/test_third_party_agent.py`; skipped, saying why,
when the download fails).
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.interop

CACHE = Path(__file__).resolve().parents[1] / ".cache"
EXAMPLES = ("echo_agent.py", "agent.py")
INITIALIZE = {
    "protocolVersion": 1,
    "clientCapabilities": {"fs": {"readTextFile": False, "writeTextFile": False}},
    "clientInfo": {"name": "acp-tui-tests", "version": "0"},
}


def _python_with_pip() -> str:
    """The venv (made by uv) usually has no pip: fall back to its base or a python3 on PATH."""
    candidates = [sys.executable, getattr(sys, "_base_executable", None)]
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        candidates.append(shutil.which("python3", path=directory))
    for python in dict.fromkeys(c for c in candidates if c):
        probe = subprocess.run([python, "-m", "pip", "--version"], capture_output=True)
        if probe.returncode == 0:
            return python
    return "python3"


def _download_sdist(version: str) -> Path:
    existing = sorted(CACHE.glob(f"agent_client_protocol-{version}.tar.gz"))
    if existing:
        return existing[0]
    command = [
        _python_with_pip(),
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--no-binary",
        ":all:",
        f"agent-client-protocol=={version}",
        "-d",
        str(CACHE),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    found = sorted(CACHE.glob(f"agent_client_protocol-{version}.tar.gz"))
    if done.returncode != 0 or not found:  # offline, most likely: nothing of acp-tui's failed
        pytest.skip(
            f"could not download the agent-client-protocol {version} sdist with "
            f"`{' '.join(command)}` (exit {done.returncode}); this test needs PyPI: "
            f"{done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ''}"
        )
    return found[0]


@pytest.fixture(scope="session")
def sdk_examples() -> dict[str, Path]:
    version = importlib.metadata.version("agent-client-protocol")
    CACHE.mkdir(parents=True, exist_ok=True)
    target = CACHE / f"acp-examples-{version}"
    if not all((target / name).exists() for name in EXAMPLES):
        sdist = _download_sdist(version)
        target.mkdir(exist_ok=True)
        with tarfile.open(sdist) as archive:
            for member in archive.getmembers():
                name = Path(member.name).name
                if name in EXAMPLES and Path(member.name).parent.name == "examples":
                    source = archive.extractfile(member)
                    assert source is not None
                    (target / name).write_bytes(source.read())
    missing = [name for name in EXAMPLES if not (target / name).exists()]
    if missing:
        pytest.fail(f"the agent-client-protocol {version} sdist has no examples/{missing}")
    return {name: target / name for name in EXAMPLES}


@pytest.mark.parametrize(
    ("example", "expected"),
    [
        ("echo_agent.py", ["hello from acp-tui", "second block"]),
        ("agent.py", ["Client sent:", "hello from acp-tui", "second block"]),
    ],
)
async def test_sdk_example_agent_round_trip(
    spawn_agent, sdk_examples, tmp_path, example, expected
) -> None:
    texts: list[str] = []
    all_arrived = asyncio.Event()
    session_ids: list[str] = []

    def on_update(params: Any) -> None:
        session_ids.append(params["sessionId"])
        update = params["update"]
        if update["sessionUpdate"] == "agent_message_chunk":
            texts.append(update["content"]["text"])
        if len(texts) >= len(expected):
            all_arrived.set()

    process, conn = await spawn_agent(
        [sys.executable, str(sdk_examples[example])],
        notification_handlers={"session/update": on_update},
        cwd=str(tmp_path),
    )
    init = await asyncio.wait_for(conn.request("initialize", INITIALIZE), 30)
    assert init["protocolVersion"] == 1
    session = await asyncio.wait_for(
        conn.request("session/new", {"cwd": str(tmp_path), "mcpServers": []}), 30
    )
    sid = session["sessionId"]
    prompt = [
        {"type": "text", "text": "hello from acp-tui"},
        {"type": "text", "text": "second block"},
    ]
    result = await asyncio.wait_for(
        conn.request("session/prompt", {"sessionId": sid, "prompt": prompt}), 30
    )
    assert result["stopReason"] == "end_turn"
    await asyncio.wait_for(all_arrived.wait(), 30)
    assert texts == expected
    assert set(session_ids) == {sid}
    await conn.close()
    exit_ = await process.shutdown(grace=5.0)
    assert exit_.signal_name is None, (exit_.describe(), process.stderr_tail())

"""`acp-tui -- AGENT_CMD` reads the registry's cached index (its agents and problems are the
preset table's) but imports no refresh or download machinery: no registry agent is named.
Each case runs in a fresh interpreter, so `sys.modules` says what was imported (the whole
launch: `test_startup_imports.py`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from acp_tui.registry.cache import IndexCache, cache_root
from tests.registry_server import binary_agent, index_with

UNREACHABLE = "http://127.0.0.1:9/registry.json"
"""A registry URL nothing answers: a fetch would fail, and none must be tried."""

NETWORK = ("acp_tui.registry.fetch", "acp_tui.registry.install")

PARSE = """
import sys
from acp_tui.cli import parse_args
options = parse_args(["--", sys.executable, "-c", "pass"])
print(sorted(m for m in {network!r} if m in sys.modules))
print(len(options.messages))
"""


def run_parse(env: dict[str, str]) -> list[str]:
    code = PARSE.format(network=NETWORK)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


@pytest.fixture
def env() -> dict[str, str]:
    return {**os.environ, "ACP_TUI_REGISTRY_URL": UNREACHABLE}


def test_an_agent_command_imports_no_registry_download(env: dict[str, str]) -> None:
    assert run_parse(env) == ["[]", "0"]


def test_with_a_cached_index_it_is_read_and_still_nothing_is_fetched(
    env: dict[str, str], tmp_path: Path
) -> None:
    cache = IndexCache(UNREACHABLE, cache_root(env))
    cache.dir.mkdir(parents=True)
    broken = {"id": "Not An Id", "name": "x", "version": "1.0.0", "distribution": {}}
    index = index_with(binary_agent("cached-agent", "https://example.invalid/a.tgz"), broken)
    (cache.dir / "registry.json").write_text(json.dumps(index))
    assert cache.cached() is not None
    # the cached index's problem (the broken entry) is among the messages, as before
    assert run_parse(env) == ["[]", "1"]

"""Modules on the way to "ready" whose regular expressions serve only later events (a mode
switch, an agent that ended early, a v2 agent's terminal, a sandbox refusal, a terminal's
output) compile them when first used: importing them compiles none (each compile is a few
hundred microseconds of the launch).

Checked in a fresh interpreter, `re.compile` watched while the modules are imported; then each
still does its job (the patterns compiled on demand)."""

from __future__ import annotations

import json
import subprocess
import sys

LATER = (
    "acp_tui.thread.permissive_modes",
    "acp_tui.client.unavailable_package",
    "acp_tui.thread.v2.agent_terminals",
    "acp_tui.client.refusal_notices",
    "acp_tui.host.terminals",
)

PROBE = """
import importlib, json, re, sys

later = json.loads(sys.argv[1])
compile_now = re.compile
seen = []

def watched(pattern, flags=0):
    seen.append(sys._getframe(1).f_globals.get("__name__"))
    return compile_now(pattern, flags)

re.compile = watched
for name in later:
    importlib.import_module(name)
print(json.dumps(sorted({name for name in seen if str(name).startswith("acp_tui")})))
"""


def test_importing_them_compiles_no_regular_expression() -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(LATER)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    compiled = json.loads(result.stdout)
    assert [name for name in compiled if name in LATER] == []


def test_the_patterns_still_work_when_first_used() -> None:
    from acp_tui.client.unavailable_package import unavailable_package
    from acp_tui.thread.permissive_modes import skips_permissions
    from acp_tui.thread.v2.agent_terminals import as_terminal_shows

    assert skips_permissions("bypassPermissions")
    assert not skips_permissions("default", "Default", "asks before each tool")
    found = unavailable_package(["npm error code ETARGET", "No matching version found for x@9."])
    assert found is not None and found.spec == "x@9"
    assert as_terminal_shows(b"a\nb\r\nc") == b"a\r\nb\r\nc"

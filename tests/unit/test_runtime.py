"""The process-wide policy has one owner (`acp_tui.ui.runtime`): no other module of acp-tui
sets the garbage collector's mode, the switch interval or Textual's key table, and the entry
point sets them up, not the app or a widget."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from tests.unit.test_startup_imports import headless_launch, run_python

PACKAGE = Path(__file__).resolve().parents[2] / "acp_tui"
RUNTIME = PACKAGE / "ui" / "runtime.py"

PROCESS_WIDE = {
    "gc.freeze", "gc.unfreeze", "gc.disable", "gc.enable", "gc.set_threshold",
    "sys.setswitchinterval", "read_alt_digits",
}  # fmt: skip
"""Calls that change the whole process: the collector's mode, the switch interval, Textual's
key table."""
MEASURING = {PACKAGE / "host" / "memory_snapshots.py": {"gc.unfreeze", "gc.freeze"}}
"""Where a benchmark's measurement may touch the collector: a memory snapshot counts the frozen
objects too (unfreeze, count, collect, freeze again), only when the environment asks for it."""


def called(path: Path) -> list[tuple[int, str]]:
    """The calls in `path` of a name in `PROCESS_WIDE` (``gc.freeze()``, or ``freeze()``
    imported by name), with their lines."""
    calls = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        function = node.func
        if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name):
            name = f"{function.value.id}.{function.attr}"
        elif isinstance(function, ast.Name):
            name = function.id
        else:
            continue
        imported = {n.split(".")[-1] for n in PROCESS_WIDE}  # (`from gc import freeze`)
        if name in PROCESS_WIDE or name in imported:
            calls.append((node.lineno, name))
    return calls


def test_no_module_but_the_runtime_sets_process_wide_policy() -> None:
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {name}()"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != RUNTIME
        for line, name in called(path)
        if name not in MEASURING.get(path, set())
    ]
    assert found == [], "process-wide policy set outside acp_tui/ui/runtime.py:\n" + "\n".join(
        found
    )


def test_the_scan_finds_the_calls_it_looks_for() -> None:
    names = {name for _, name in called(RUNTIME)}
    assert {"gc.freeze", "gc.disable", "gc.enable", "sys.setswitchinterval"} <= names
    assert "read_alt_digits" in names


# A real launch on the headless driver: the key table as the app runs, and whether building
# the app (not the entry point) changed it.
LAUNCH_KEYS = """
import json, sys
from textual._ansi_sequences import ANSI_SEQUENCES_KEYS
from acp_tui.cli import main
from acp_tui.ui.app import AcpApp

out, cwd = sys.argv[1], sys.argv[2]
seen = {"before": repr(ANSI_SEQUENCES_KEYS.get("\\x1b1"))}
init = AcpApp.__init__
mount = AcpApp.on_mount

def built(self, *args, **kwargs):
    before = repr(ANSI_SEQUENCES_KEYS.get("\\x1b1"))
    init(self, *args, **kwargs)
    seen["changed by the app"] = repr(ANSI_SEQUENCES_KEYS.get("\\x1b1")) != before

async def on_mount(self):
    await mount(self)
    seen["mounted"] = [getattr(key, "value", key) for key in ANSI_SEQUENCES_KEYS["\\x1b1"]]
    self.exit(0)

AcpApp.__init__ = built
AcpApp.on_mount = on_mount
code = main(["--cwd", cwd, "--demo"])
with open(out, "w") as stream:
    json.dump(seen, stream)
sys.exit(code)
"""


def test_the_launch_reads_esc_digit_as_alt_digit_and_the_app_does_not_set_it(
    tmp_path: Path,
) -> None:
    out = tmp_path / "keys.json"
    env, project = headless_launch(tmp_path)
    run_python(LAUNCH_KEYS, str(out), str(project), env=env)
    seen = json.loads(out.read_text())
    assert seen["mounted"] == ["alt+1"]
    assert "alt" not in seen["before"]
    assert seen["changed by the app"] is False

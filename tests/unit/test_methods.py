"""The method table (`protocol/methods.py`) against the current schema, and its use everywhere."""

from __future__ import annotations

import ast
from pathlib import Path

from acp_tui.protocol import methods
from tests.schema_check import schema_methods

PACKAGE = Path(methods.__file__).resolve().parents[1]


def _table() -> dict[str, str]:
    return {
        name: value
        for name, value in vars(methods).items()
        if name.isupper() and isinstance(value, str)
    }


def test_v1_groups_are_the_schemas_lists() -> None:
    v1 = schema_methods(1)
    assert v1["agent"] == methods.AGENT_METHODS
    assert v1["client"] == methods.CLIENT_METHODS
    assert v1["protocol"] == methods.PROTOCOL_METHODS


def test_unstable_and_v2_groups_are_in_their_schemas() -> None:
    unstable = schema_methods(1, unstable=True)
    assert methods.UNSTABLE_AGENT_METHODS.issubset(unstable["agent"] - methods.AGENT_METHODS)
    assert methods.UNSTABLE_CLIENT_METHODS.issubset(unstable["client"] - methods.CLIENT_METHODS)
    assert not methods.UNSCHEMED_AGENT_METHODS & unstable["agent"]
    assert all(name.startswith("_") for name in methods.EXTENSION_CLIENT_METHODS)
    v2 = schema_methods(2)
    assert v2["agent"] == methods.V2_AGENT_METHODS
    assert v2["client"] == methods.V2_CLIENT_METHODS


def test_every_constant_is_in_a_group() -> None:
    grouped = (
        methods.AGENT_METHODS
        | methods.CLIENT_METHODS
        | methods.PROTOCOL_METHODS
        | methods.UNSTABLE_AGENT_METHODS
        | methods.UNSTABLE_CLIENT_METHODS
        | methods.EXTENSION_CLIENT_METHODS
        | methods.UNSCHEMED_AGENT_METHODS
        | methods.V2_AGENT_METHODS
        | methods.V2_CLIENT_METHODS
    )
    assert set(_table().values()) == grouped


def test_no_method_name_is_spelled_out_elsewhere() -> None:
    """A method name with a `/` appears as a string literal only in the table (bare words such
    as "initialize" are also phase names and choice ids, so only the table's constants for them
    are checked by the tests above)."""
    names = {value for value in _table().values() if "/" in value}
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "methods.py" and path.parent.name == "protocol":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Constant) and node.value in names:
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.value}")
    assert not found, "method names spelled out instead of methods.*:\n" + "\n".join(found)

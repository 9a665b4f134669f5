"""The default suite reads nothing outside the repository: the ACP schemas and the registry
snapshot are vendored under tests/data with their source and licence (a fresh clone with nothing
beside it failed 200 tests on a missing ../shared)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.registry_server import SNAPSHOT
from tests.schema_check import SCHEMA_ROOT

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"


def test_the_test_data_is_in_the_repository() -> None:
    assert SCHEMA_ROOT.is_relative_to(DATA) and SNAPSHOT.is_relative_to(DATA)
    for version in ("v1", "v2", "current/v1", "current/v2"):
        for name in ("schema.json", "schema.unstable.json"):
            assert (SCHEMA_ROOT / version / name).is_file(), f"{version}/{name}"
    assert SNAPSHOT.is_file()


def test_each_source_and_licence_is_said() -> None:
    notice = (DATA / "README.md").read_text()
    assert "Apache License 2.0" in notice and "b7f0005493b98de32fabee3e9540e2b64da68535" in notice
    assert "@agentclientprotocol/sdk` 2.4.0" in notice and "3de1678" in notice
    for licence in (SCHEMA_ROOT / "LICENSE", SCHEMA_ROOT / "current" / "LICENSE"):
        assert licence.read_text().lstrip().startswith("Apache License")


def test_no_test_outside_interop_names_a_path_beside_the_repository() -> None:
    """`Path(...).parent / "shared"`, `parents[2] / "shared"`: what ../shared held is vendored;
    only the interop kit (tests/interop, deselected by default) lives beside the repository."""
    offenders = []
    for path in sorted((REPO / "tests").rglob("*.py")):
        if "interop" in path.relative_to(REPO).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.BinOp)
                and isinstance(node.op, ast.Div)
                and isinstance(node.right, ast.Constant)
                and node.right.value == "shared"
                and _beside_a_file(node.left)
            ):
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert offenders == []


def _beside_a_file(node: ast.expr) -> bool:
    """`X.parent` or `X.parents[N]`: a directory found from a file's path."""
    if isinstance(node, ast.Attribute):
        return node.attr == "parent"
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute):
        return node.value.attr == "parents"
    return False

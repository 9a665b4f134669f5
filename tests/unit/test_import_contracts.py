"""Every module of acp_tui is under an import contract (pyproject.toml [tool.importlinter]):
each top-level package or module is a layer of the layers contract or the source of a
forbidden one, so `lint-imports` says where it may import from."""

from __future__ import annotations

import pkgutil
import tomllib
from pathlib import Path
from typing import Any

import acp_tui

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def covered(contracts: list[dict[str, Any]]) -> set[str]:
    """The modules the contracts constrain: every layer, every forbidden contract's source."""
    names: set[str] = set()
    for contract in contracts:
        for layer in contract.get("layers", []):
            names.update(part.strip() for part in layer.split("|"))
        names.update(contract.get("source_modules", []))
    return names


def top_level_modules() -> set[str]:
    return {f"acp_tui.{info.name}" for info in pkgutil.iter_modules(acp_tui.__path__)}


def test_every_top_level_module_is_under_a_contract() -> None:
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    modules = top_level_modules()
    assert {"acp_tui.demo", "acp_tui.presets", "acp_tui.cli", "acp_tui.ui"} <= modules
    assert sorted(modules - covered(contracts)) == []


def test_a_module_left_out_is_found() -> None:
    contracts = [{"layers": ["acp_tui.ui | acp_tui.check_cli", "acp_tui.client"]}]
    contracts.append({"source_modules": ["acp_tui.safe_text"]})
    assert covered(contracts) == {
        "acp_tui.ui",
        "acp_tui.check_cli",
        "acp_tui.client",
        "acp_tui.safe_text",
    }

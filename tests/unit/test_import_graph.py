"""No import cycle anywhere in acp_tui: every package and top-level module, no exemption.

Every module of `acp_tui` is parsed with `ast` (never imported); each import is classed as
runtime-at-import (module level, `try`/`if` blocks included), TYPE_CHECKING (inside
`if TYPE_CHECKING:`) or lazy (inside a function or method). A cycle of any kind counts: a
TYPE_CHECKING or lazy import back into a module that imports you is still one graph that
cannot be built or read in parts. `python tests/unit/test_import_graph.py [PACKAGE...]` prints
the strongly connected components (with the kinds of their edges) of the whole tree or of the
packages named.
"""

from __future__ import annotations

import ast
import functools
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "acp_tui"


class Kind(Enum):
    RUNTIME = "runtime"
    TYPE_CHECKING = "type-checking"
    LAZY = "lazy"


@dataclass
class Graph:
    """Module -> imported acp_tui module -> the kinds of import between them."""

    edges: dict[str, dict[str, set[Kind]]] = field(default_factory=dict)

    def add(self, source: str, target: str, kind: Kind) -> None:
        self.edges.setdefault(source, {}).setdefault(target, set()).add(kind)

    def within(self, prefix: str) -> Graph:
        """The subgraph of the modules under `prefix` (a package, dotted)."""
        inside = {m for m in self.edges if _under(m, prefix)}
        sub = Graph({m: {} for m in inside})
        for source in inside:
            for target, kinds in self.edges[source].items():
                if target in inside:
                    sub.edges[source][target] = set(kinds)
        return sub

    def only(self, kinds: set[Kind]) -> Graph:
        """The edges with at least one import of `kinds`."""
        sub = Graph({m: {} for m in self.edges})
        for source, targets in self.edges.items():
            for target, ks in targets.items():
                if ks & kinds:
                    sub.edges[source][target] = ks & kinds
        return sub


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _imports(node: ast.AST, kind: Kind) -> Iterator[tuple[ast.Import | ast.ImportFrom, Kind]]:
    """Every import under `node`, with its kind (the innermost context decides)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child, kind
        elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            yield from _imports(child, Kind.LAZY)
        elif isinstance(child, ast.If) and _is_type_checking(child.test) and kind is Kind.RUNTIME:
            for stmt in child.body:
                yield from _imports_in_stmt(stmt, Kind.TYPE_CHECKING)
            for stmt in child.orelse:
                yield from _imports_in_stmt(stmt, kind)
        else:
            yield from _imports(child, kind)


def _imports_in_stmt(
    stmt: ast.stmt, kind: Kind
) -> Iterator[tuple[ast.Import | ast.ImportFrom, Kind]]:
    if isinstance(stmt, ast.Import | ast.ImportFrom):
        yield stmt, kind
    else:
        yield from _imports(stmt, kind)


def _targets(
    node: ast.Import | ast.ImportFrom, module: str, is_package: bool, known: set[str]
) -> Iterable[str]:
    """The acp_tui modules an import statement loads (`from pkg import mod` names the module)."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield from _longest_known(alias.name, known)
        return
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join([*package, node.module] if node.module else package)
    else:
        base = node.module or ""
    for alias in node.names:
        candidate = f"{base}.{alias.name}"
        if candidate in known:
            yield candidate
        else:
            yield from _longest_known(base, known)


def _longest_known(name: str, known: set[str]) -> Iterable[str]:
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in known:
            yield candidate
            return
        parts.pop()


def build_graph() -> Graph:
    modules = all_modules()
    known = set(modules)
    graph = Graph({m: {} for m in modules})
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        for node, kind in _imports(tree, Kind.RUNTIME):
            for target in _targets(node, module, is_package, known):
                if target != module:
                    graph.add(module, target, kind)
    return graph


def cycles(graph: Graph) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph.edges):
        if v not in index:
            visit(v)
    return sorted(found)


def describe(graph: Graph, components: list[list[str]]) -> str:
    """Each component with its internal edges and their kinds."""
    lines = []
    for component in components:
        members = set(component)
        lines.append(f"cycle of {len(component)} modules:")
        for source in component:
            for target, kinds in sorted(graph.edges[source].items()):
                if target in members:
                    how = ", ".join(sorted(k.value for k in kinds))
                    lines.append(f"  {source} -> {target}  ({how})")
    return "\n".join(lines)


@functools.cache
def graph() -> Graph:
    """The whole tree's graph, built once, when a test first needs it (not at collection: every
    test worker collects this module)."""
    return build_graph()


def test_the_parser_sees_all_three_kinds() -> None:
    # a sanity check of the classifier on a module written for it
    source = (
        "from typing import TYPE_CHECKING\n"
        "import acp_tui.signal\n"
        "if TYPE_CHECKING:\n"
        "    from acp_tui import tasks\n"
        "def f():\n"
        "    from acp_tui.safe_text import safe_text\n"
    )
    found = {
        (kind, tuple(_targets(node, "acp_tui.x", False, set(all_modules()))))
        for node, kind in _imports(ast.parse(source), Kind.RUNTIME)
    }
    assert (Kind.RUNTIME, ("acp_tui.signal",)) in found
    assert (Kind.TYPE_CHECKING, ("acp_tui.tasks",)) in found
    assert (Kind.LAZY, ("acp_tui.safe_text",)) in found


def test_cycles_are_found() -> None:
    graph = Graph()
    graph.add("a", "b", Kind.RUNTIME)
    graph.add("b", "c", Kind.TYPE_CHECKING)
    graph.add("c", "a", Kind.LAZY)
    graph.add("c", "d", Kind.RUNTIME)
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles(graph.only({Kind.RUNTIME})) == []


def test_every_module_is_in_the_graph() -> None:
    # the whole tree is checked, so a new package is covered without being listed here
    on_disk = {module_name(p) for p in ROOT.rglob("*.py")}
    assert set(graph().edges) == on_disk
    packages = {m.split(".")[1] for m in on_disk if m.count(".") >= 1}
    assert {"cli", "check_cli", "client", "demo", "host", "protocol", "ui"} <= packages


def test_no_import_cycle_in_acp_tui() -> None:
    found = cycles(graph())
    assert not found, f"import cycles in acp_tui:\n{describe(graph(), found)}"


if __name__ == "__main__":
    prefixes = sys.argv[1:] or ["acp_tui"]
    for prefix in prefixes:
        for label, kinds in (
            ("all kinds", set(Kind)),
            ("runtime-at-import only", {Kind.RUNTIME}),
            ("runtime + TYPE_CHECKING", {Kind.RUNTIME, Kind.TYPE_CHECKING}),
        ):
            sub = graph().within(prefix).only(kinds)
            found = cycles(sub)
            print(f"== {prefix}, {label}: {len(found)} cycle(s)")
            if found:
                print(describe(sub, found))

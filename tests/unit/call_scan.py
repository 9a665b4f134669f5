"""The walk the source scans share: every call in a module's source, named by its owner and
attribute, handed to a scan's own rule (`test_files_through_host.py`: what opens a file;
`test_ui_no_disk_io.py`: what so much as looks at the disk)."""

from __future__ import annotations

import ast
from collections.abc import Callable

Rule = Callable[[str | None, str, ast.Call], str | None]
"""(owner, name, call) -> what the scan calls it, or None if it is not one of its calls.
`owner` is the source of what the name is looked up on (`os`, `path`, `Path('a')`), None for a
bare name (`open`)."""


def scan(source: str, rule: Rule) -> list[tuple[int, str]]:
    """(line, what the rule called it) of every call in `source` the rule names."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name):
            name = rule(None, func.id, node)
        elif isinstance(func, ast.Attribute):
            name = rule(ast.unparse(func.value), func.attr, node)
        else:
            continue
        if name is not None:
            found.append((node.lineno, name))
    return found

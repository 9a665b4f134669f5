"""The Thread has one writer: the v2 reducer changes it only through its public API.

`thread/v2/updates.py` is read with `ast`: it touches no private member of anything but itself
(`thread._new_id`, `entry._blocks`), never emits the thread's signal (`thread.changed`), and
assigns no attribute of the thread or of its entries (`entry.status = ...`, `setattr`).
"""

from __future__ import annotations

import ast
from pathlib import Path

import acp_tui.thread.v2.updates as updates

SOURCE = Path(updates.__file__)


def _chain(node: ast.expr) -> list[str]:
    """`self.thread.background` -> ["self", "thread", "background"] (subscripts skipped)."""
    names: list[str] = []
    while isinstance(node, ast.Attribute | ast.Subscript):
        if isinstance(node, ast.Attribute):
            names.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        names.append(node.id)
    return names[::-1]


def _writes_thread_state(target: ast.expr) -> bool:
    """An assignment to an attribute of the thread or of one of its entries."""
    if not isinstance(target, ast.Attribute):
        return False
    chain = _chain(target)
    if chain[:2] == ["self", "thread"] or chain[0] == "thread":
        return True
    return chain[0] == "entry"


def violations(source: str) -> list[str]:
    """What in `source` writes the thread's state other than through its public API."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Attribute):
            private = node.attr.startswith("_") and not node.attr.startswith("__")
            owner = _chain(node.value)
            if private and (owner[:1] != ["self"] or owner[:2] == ["self", "thread"]):
                found.append(f"{line}: private member {node.attr}")
            if node.attr == "changed":
                found.append(f"{line}: the thread's signal")
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        found += [f"{line}: assigns {ast.unparse(t)}" for t in targets if _writes_thread_state(t)]
        call = node.func if isinstance(node, ast.Call) else None
        if isinstance(call, ast.Name) and call.id in ("setattr", "delattr"):
            found.append(f"{line}: {call.id}")
    return sorted(found, key=lambda f: (int(f.split(":")[0]), f))


def test_the_v2_reducer_writes_the_thread_only_through_its_public_api() -> None:
    assert violations(SOURCE.read_text(encoding="utf-8")) == []


def test_the_scan_finds_what_the_reducer_used_to_do() -> None:
    # what updates.py did before the Thread had an API for it: each is found
    before = """
def add(self, thread, entry, update, fields, name, value):
    entry = MessageEntry(role, blocks, message_id, id=thread._new_id())
    thread._add_entry(entry)
    entry = self.thread._create_tool_call(update, fields)
    stamp_times(entry, self.thread._clock())
    entry._blocks = None
    self.thread.changed.emit(ch.EntryChanged(entry))
    thread.background_work = ()
    entry.can_cancel = True
    setattr(entry, name, value)
"""
    found = violations(before)
    assert [f.split(": ", 1)[1] for f in found] == [
        "private member _new_id",
        "private member _add_entry",
        "private member _create_tool_call",
        "private member _clock",
        "assigns entry._blocks",
        "private member _blocks",
        "the thread's signal",
        "assigns thread.background_work",
        "assigns entry.can_cancel",
        "setattr",
    ]

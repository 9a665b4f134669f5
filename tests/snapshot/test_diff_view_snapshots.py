"""How the diff viewer looks: unified and side-by-side, on a small Python change."""

from __future__ import annotations

from textual.app import App, ComposeResult

from acp_tui.thread.diff import compute_diff
from acp_tui.ui.widgets.diff_view import DiffLayout, DiffView

OLD = '''import os


def total(price, qty):
    """Compute the total."""
    return price * qty


def greet(name):
    print("hello", name)
    return None


class Cart:
    def __init__(self):
        self.items = []

    def add(self, item):
        self.items.append(item)
'''

NEW = '''import os
import sys


def total(price, qty, tax=0.0):
    """Compute the total."""
    return price * qty * (1 + tax)


def greet(name):
    print("hello", name)
    return None


class Cart:
    def __init__(self):
        self.items: list[str] = []

    def add(self, item):
        self.items.append(item)
        return len(self.items)
'''


class DiffApp(App[None]):
    def __init__(self, layout: DiffLayout) -> None:
        super().__init__()
        self.diff = compute_diff("/work/project/shop.py", OLD, NEW)
        self.layout_choice = layout

    def compose(self) -> ComposeResult:
        yield DiffView(self.diff, layout=self.layout_choice)


def test_unified_layout(snap_compare) -> None:
    assert snap_compare(DiffApp("unified"), terminal_size=(100, 30))


def test_split_layout_chosen_automatically_when_wide(snap_compare) -> None:
    assert snap_compare(DiffApp("auto"), terminal_size=(140, 30))


def test_second_hunk_current_with_review_marks(snap_compare) -> None:
    def mark(pilot) -> None:
        view = pilot.app.query_one(DiffView)
        view.set_hunk_state(0, "accepted")
        view.set_hunk_state(1, "rejected")

    assert snap_compare(DiffApp("unified"), terminal_size=(100, 30), press=["n"], run_before=mark)

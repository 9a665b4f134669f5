"""The keymap check: its list of binding ids is every id the UI binds, and bad keys are named."""

from __future__ import annotations

import importlib
import pkgutil

from textual.binding import Binding
from textual.dom import DOMNode

import acp_tui.ui
from acp_tui.ui.keymap import BINDING_IDS, checked_keymap, key_problem


def _subclasses(cls: type) -> list[type]:
    found: list[type] = []
    stack = [cls]
    while stack:
        subclasses: list[type] = stack.pop().__subclasses__()
        for sub in subclasses:
            found.append(sub)
            stack.append(sub)
    return found


def test_the_binding_ids_are_every_id_the_ui_binds() -> None:
    for module in pkgutil.walk_packages(acp_tui.ui.__path__, "acp_tui.ui."):
        importlib.import_module(module.name)
    ids = {
        binding.id
        for cls in _subclasses(DOMNode)
        if cls.__module__.startswith("acp_tui.")
        for binding in cls.__dict__.get("BINDINGS", [])
        if isinstance(binding, Binding) and binding.id
    }
    assert ids == BINDING_IDS


def test_keys() -> None:
    for good in ("f5", "ctrl+q", "escape,ctrl+x", "A", "?", "question_mark", "minus", "space",
                 "shift+tab", "ctrl+shift+up", "pagedown", "slash", "1"):  # fmt: skip
        assert key_problem(good) is None, good
    assert key_problem("fnord") == "'fnord' is not a key"
    assert key_problem("ctrl+") == "'ctrl+' is not a key"
    assert key_problem("cntrl+a") == "'cntrl' is not a modifier"
    assert key_problem("f5,") == "an empty key"
    assert key_problem("") == "an empty key"


def test_checked_keymap_keeps_the_good_entries() -> None:
    keymap, problems = checked_keymap({"main.changes": "f7", "nope": "f8", "main.rules": "x y"})
    assert keymap == {"main.changes": "f7"}
    assert problems == [
        "keymap: 'nope': no such binding; ignored",
        "keymap: 'main.rules' = 'x y': 'x y' is not a key; ignored",
    ]

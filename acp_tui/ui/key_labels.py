"""A binding's key as the user has it (the keymap applied), written for a sentence ("esc",
"ctrl+r", "f1", "?"): what a hint, a banner or the help screen says to press."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.binding import Binding

from acp_tui.ui.textual_internals import bound_keys

_WORDS = {"⏎": "enter"}


def key_text(app: App[Any], key: str) -> str:
    """One key ("ctrl+question_mark") as a person writes it ("ctrl+?")."""
    *modifiers, name = key.split("+") if key != "+" else [key]
    if not name:  # "ctrl++"
        modifiers, name = modifiers[:-1], "+"
    shown = app.get_key_display(Binding(name, ""))
    return "+".join([*modifiers, _WORDS.get(shown, shown)])


def key_label(app: App[Any], binding_id: str, default: str) -> str:
    """The first key bound to `binding_id` (the user's keymap, else `default`)."""
    return key_text(app, bound_keys(app, binding_id, default).split(",")[0].strip())


def keys_label(app: App[Any], binding_id: str, default: str) -> str:
    """Every key bound to `binding_id`, joined by " / "."""
    keys = [key.strip() for key in bound_keys(app, binding_id, default).split(",") if key.strip()]
    return " / ".join(key_text(app, key) for key in keys)

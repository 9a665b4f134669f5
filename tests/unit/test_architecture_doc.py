"""docs/ARCHITECTURE.md stays short and true: no line over 120 characters, and every `Screen`
subclass in acp_tui/ui (a `Screen` or `ModalScreen` subclass, directly or through another class
of acp_tui/ui) named in it.

The screens are found by reading the sources with `ast` (importing the UI would import Textual
and every screen's dependencies); a base is known by its name, as the code spells it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "ARCHITECTURE.md"
UI = ROOT / "acp_tui" / "ui"
MAX_LINE = 120
TEXTUAL_SCREENS = frozenset({"Screen", "ModalScreen"})


def long_lines(text: str, limit: int = MAX_LINE) -> list[tuple[int, int]]:
    """(line number, length in characters) of every line longer than `limit`."""
    lines = text.split("\n")
    return [(number, len(line)) for number, line in enumerate(lines, 1) if len(line) > limit]


def _base_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Subscript):  # Screen[None]
        node = node.value
    if isinstance(node, ast.Attribute):  # textual.screen.Screen
        return node.attr
    return node.id if isinstance(node, ast.Name) else None


def class_bases(sources: dict[str, str]) -> dict[str, set[str]]:
    """Every class of the sources (by name) and the names of its bases."""
    bases: dict[str, set[str]] = {}
    for source in sources.values():
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ClassDef):
                names = {_base_name(base) for base in node.bases}
                bases.setdefault(node.name, set()).update(n for n in names if n is not None)
    return bases


def screen_classes(sources: dict[str, str]) -> set[str]:
    """The classes that are Textual screens, directly or through other classes of `sources`."""
    bases = class_bases(sources)
    screens: set[str] = set()
    grew = True
    while grew:
        found = {
            name
            for name, own in bases.items()
            if name not in screens and own & (TEXTUAL_SCREENS | screens)
        }
        screens |= found
        grew = bool(found)
    return screens


def unnamed(screens: set[str], doc: str) -> list[str]:
    """The screens `doc` does not name (as a whole word)."""
    return sorted(name for name in screens if not re.search(rf"\b{re.escape(name)}\b", doc))


def ui_sources() -> dict[str, str]:
    return {str(path): path.read_text(encoding="utf-8") for path in sorted(UI.rglob("*.py"))}


def test_no_line_of_the_architecture_doc_is_longer_than_120_characters() -> None:
    assert long_lines(DOC.read_text(encoding="utf-8")) == []


def test_every_screen_of_the_ui_is_named_in_the_architecture_doc() -> None:
    screens = screen_classes(ui_sources())
    assert {"MainScreen", "QuestionScreen", "ApplyQuestionScreen", "InspectorScreen"} <= screens
    assert unnamed(screens, DOC.read_text(encoding="utf-8")) == []


def test_the_checks_find_a_long_line_and_a_screen_left_out() -> None:
    assert long_lines("short\n" + "x" * 121 + "\n" + "é" * 120) == [(2, 121)]
    sources = {
        "a.py": "class Base(ModalScreen[None]): ...\nclass Picker(Base): ...\nclass Plain: ...",
        "b.py": "class Main(textual.screen.Screen): ...\nclass Card(Widget): ...",
    }
    screens = screen_classes(sources)
    assert screens == {"Base", "Picker", "Main"}
    assert unnamed(screens, "`Base` and `Main` (and `PickerScreen`)") == ["Picker"]

"""docs/ARCHITECTURE.md stays short and true: at most 300 lines, none over 120 characters, every
`Screen` subclass in acp_tui/ui (a `Screen` or `ModalScreen` subclass, directly or through another
class of acp_tui/ui) named in it, and every package and top-level module of acp_tui in it.

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
MAX_LINES = 300
PACKAGE = ROOT / "acp_tui"
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


def packages(package: Path) -> list[str]:
    """Every package below `package` as its path relative to it (`client/session/`), and every
    top-level module by its name (`cli`)."""
    below = [p.parent.relative_to(package).as_posix() + "/" for p in package.rglob("__init__.py")]
    modules = [p.stem for p in package.glob("*.py") if p.stem != "__init__"]
    return sorted(name for name in below + modules if name != "./")


def unlisted(names: list[str], doc: str) -> list[str]:
    """The names `doc` never spells as code (`client/session/`, `cli`)."""
    return [name for name in names if f"`{name}`" not in doc]


def ui_sources() -> dict[str, str]:
    return {str(path): path.read_text(encoding="utf-8") for path in sorted(UI.rglob("*.py"))}


def test_no_line_of_the_architecture_doc_is_longer_than_120_characters() -> None:
    assert long_lines(DOC.read_text(encoding="utf-8")) == []


def test_the_architecture_doc_is_at_most_300_lines() -> None:
    assert len(DOC.read_text(encoding="utf-8").splitlines()) <= MAX_LINES


def test_every_package_and_top_level_module_is_in_the_architecture_doc() -> None:
    names = packages(PACKAGE)
    assert {"client/session/", "ui/textual_internals/", "protocol/models/", "cli"} <= set(names)
    assert unlisted(names, DOC.read_text(encoding="utf-8")) == []


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


def test_the_package_check_finds_a_package_left_out(tmp_path: Path) -> None:
    files = ("__init__.py", "cli.py", "host/__init__.py", "host/boundary.py", "ui/x/__init__.py")
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    names = packages(tmp_path)
    assert names == ["cli", "host/", "ui/x/"]
    assert unlisted(names, "| `host/` | ... | `ui/x` | and cli") == ["cli", "ui/x/"]

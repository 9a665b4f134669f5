"""Every toast goes through `acp_tui.ui.plain.notify`, which cannot parse markup, and every option
of an `OptionList`, `Select` or `SelectionList` is plain text (sources scanned)."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from textual.content import Content

from acp_tui.safe_text import safe_text
from acp_tui.ui.plain import literal

UI = Path(__file__).resolve().parents[2] / "acp_tui" / "ui"


def test_no_toast_bypasses_the_plain_notify_helper() -> None:
    direct = re.compile(r"\.notify\(")
    offenders = [
        f"{path.relative_to(UI)}:{number}: {line.strip()}"
        for path in sorted(UI.rglob("*.py"))
        if path.name != "plain.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if direct.search(line)
    ]
    assert offenders == []


def test_literal_markup_shows_the_text_exactly() -> None:
    for text in ("[/]", "a\\[b]", "[bold red]x[/bold red]", "[@click=app.quit]q[/]", "x\\", "]["):
        assert Content.from_markup(literal(text)).plain == text
    assert Content.from_markup(literal("t\x1b]0;x\x07")).plain == "t\u241b]0;x\u2407"


@given(st.text(alphabet=st.sampled_from("[]/\\=@ab $.:\n\t\x1b")))
def test_literal_markup_never_fails_and_never_styles(text: str) -> None:
    content = Content.from_markup(literal(text))
    assert content.plain == safe_text(text)
    assert not content.spans


# ---- the options of `OptionList`s and `Select`s --------------------------------------------------
# `OptionList` draws a `str` prompt as content markup, and `Select` both in its overlay and in the
# box showing the current value: each option's prompt must be `Text`/`Content`, never a `str`.

PLAIN_CALLS = {"Text", "Content", "assemble", "from_ansi"}
"""Calls that make plain text (`Text(...)`, `Content(...)`, `Text.assemble(...)`)."""


def _returns_plain(tree: ast.Module) -> set[str]:
    """Names of the functions and methods of the UI annotated to return `Text` or `Content`."""
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and isinstance(node.returns, ast.Name)
        and node.returns.id in ("Text", "Content")
    }


def _callee(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Subscript):  # Select[str](...)
        func = func.value
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


class _PromptCheck:
    """Whether an expression given as an option's prompt is plain text, in one module."""

    def __init__(self, tree: ast.Module, plain_functions: set[str]) -> None:
        self.plain_functions = plain_functions
        self.scopes: dict[ast.AST, ast.AST] = {}
        """Each node's innermost function (or the module)."""
        for scope in ast.walk(tree):  # breadth first: an inner function comes later, and wins
            if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Module):
                self.scopes.update(dict.fromkeys(ast.walk(scope), scope))
        self.assigned: dict[tuple[ast.AST, str], list[ast.expr]] = {}
        """(scope, name) → every value assigned to it there."""
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        key = (self.scopes[node], target.id)
                        self.assigned.setdefault(key, []).append(node.value)

    def bound_to(self, name: ast.Name, test: Callable[[ast.expr], bool]) -> bool:
        """Every value `name` is assigned in its function passes `test`, or it is a parameter
        annotated as `Text`, `Content` or `Option`(s)."""
        scope = self.scopes.get(name, name)
        if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
            for arg in scope.args.args + scope.args.kwonlyargs:
                if arg.arg == name.id and arg.annotation is not None:
                    annotation = ast.unparse(arg.annotation)
                    return any(kind in annotation for kind in ("Text", "Content", "Option"))
        values = self.assigned.get((scope, name.id), [])
        return bool(values) and all(test(value) for value in values)

    def plain(self, expr: ast.expr, seen: frozenset[str] = frozenset()) -> bool:
        if isinstance(expr, ast.Call):
            name = _callee(expr)
            return name in PLAIN_CALLS or name in self.plain_functions
        if isinstance(expr, ast.IfExp):
            return self.plain(expr.body, seen) and self.plain(expr.orelse, seen)
        if isinstance(expr, ast.Name) and expr.id not in seen:
            return self.bound_to(expr, lambda value: self.plain(value, seen | {expr.id}))
        return False  # a str literal, an f-string, a loop variable, a parameter, ...

    def options_plain(self, expr: ast.expr, seen: frozenset[str] = frozenset()) -> bool:
        """`expr` is a `Select`'s options: (prompt, value) pairs with plain prompts."""
        if isinstance(expr, ast.List | ast.Tuple | ast.Set):
            return all(self._pair_plain(e, seen) for e in expr.elts)
        if isinstance(expr, ast.ListComp | ast.GeneratorExp):
            return self._pair_plain(expr.elt, seen)
        if isinstance(expr, ast.Name) and expr.id not in seen:
            return self.bound_to(expr, lambda value: self.options_plain(value, seen | {expr.id}))
        return False

    def _pair_plain(self, pair: ast.expr, seen: frozenset[str]) -> bool:
        return isinstance(pair, ast.Tuple) and bool(pair.elts) and self.plain(pair.elts[0], seen)


def markup_option_prompts(source: str, plain_functions: set[str]) -> list[int]:
    """Lines of `source` where an option is given a prompt that is not plain text: `Option(...)`,
    `Selection(...)`, a `Select`'s options (built or `set_options`), `add_option(s)` and
    `OptionList(...)` given anything but `Option`s."""
    tree = ast.parse(source)
    check = _PromptCheck(tree, plain_functions)
    lines: list[int] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _callee(node)
        first = node.args[0] if node.args else None
        if name in ("Option", "Selection"):
            prompt = first or next((k.value for k in node.keywords if k.arg == "prompt"), None)
            ok = prompt is not None and check.plain(prompt)
        elif name == "Select" or (name == "set_options" and first is not None
                                  and not _holds_options(first, check)):  # fmt: skip
            ok = first is None or check.options_plain(first)
        elif name in ("add_option", "OptionList"):
            ok = all(_is_option(a, check) for a in node.args)
        elif name == "add_options":
            ok = first is None or _holds_options(first, check)
        else:
            continue
        if not ok:
            lines.append(node.lineno)
    return lines


def _is_option(expr: ast.expr, check: _PromptCheck) -> bool:
    """`Option(...)`, a call that makes options (`_options()`: its `Option(...)` are checked
    where made), `*options`, or a name bound to one of those or annotated as options."""
    if isinstance(expr, ast.Starred):
        return True
    if isinstance(expr, ast.Call):
        return _callee(expr).lower().endswith(("option", "options"))
    if isinstance(expr, ast.Name):
        return check.bound_to(expr, lambda value: _is_option(value, check))
    return False


def _holds_options(expr: ast.expr, check: _PromptCheck) -> bool:
    """A list of `Option`s (or a call building one), not of (prompt, value) pairs."""
    if isinstance(expr, ast.List | ast.Tuple):
        return all(_is_option(e, check) for e in expr.elts)
    if isinstance(expr, ast.ListComp | ast.GeneratorExp):
        return _is_option(expr.elt, check)
    if isinstance(expr, ast.Call):
        return _is_option(expr, check)
    if isinstance(expr, ast.Name):
        return check.bound_to(expr, lambda value: _holds_options(value, check))
    return False


def test_every_option_of_a_list_or_a_select_is_plain_text() -> None:
    trees = {path: path.read_text() for path in sorted(UI.rglob("*.py"))}
    plain_functions: set[str] = set()
    for source in trees.values():
        plain_functions |= _returns_plain(ast.parse(source))
    offenders = [
        f"{path.relative_to(UI)}:{line}"
        for path, source in trees.items()
        for line in markup_option_prompts(source, plain_functions)
    ]
    assert offenders == []


def test_the_option_scan_finds_markup_prompts() -> None:
    found = markup_option_prompts(
        "def f(names: list[str]) -> None:\n"
        "    select.set_options([(p, p) for p in names])\n"  # 2
        "    Select([(f'{x}', 1)])\n"  # 3
        "    Option(name)\n"  # 4
        "    Selection('[b]x[/b]', 1)\n"  # 5
        "    label = Text(name)\n"
        "    Option(label)\n"
        "    options = [(Text(n), n) for n in names]\n"
        "    Select(options)\n"
        "    listing.add_option('[/]')\n"  # 10
        "    listing.add_options([Option(Text(n)) for n in names])\n"
        "    OptionList(*[Option(Text(n)) for n in names])\n",
        set(),
    )
    assert found == [2, 3, 4, 5, 10]

"""Every toast goes through `acp_tui.ui.plain.notify`, which cannot parse markup."""

from __future__ import annotations

import re
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

"""`safe_text`: what the agent sends is made safe for the terminal, one character for one."""

from __future__ import annotations

import io
import unicodedata

from hypothesis import example, given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text
from textual.content import Content

from acp_tui.safe_text import REPLACEMENT, continued_safely, is_safe, safe_line, safe_text

BIDI_CONTROLS = [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))]


def test_c0_controls_become_control_pictures_except_tab_and_newline() -> None:
    for code in range(0x20):
        char = chr(code)
        if char in "\t\n":
            assert safe_text(f"a{char}b") == f"a{char}b"
        else:
            assert safe_text(f"a{char}b") == f"a{chr(0x2400 + code)}b", hex(code)


def test_del_c1_bidi_and_lone_surrogates_become_visible() -> None:
    assert safe_text("x\x7fy") == "x\u2421y"
    for code in range(0x80, 0xA0):
        assert safe_text(f"x{chr(code)}y") == f"x{REPLACEMENT}y", hex(code)
    for char in BIDI_CONTROLS:
        assert safe_text(f"x{char}y") == f"x{REPLACEMENT}y", hex(ord(char))
    assert safe_text("x\ud800y\udfffz") == f"x{REPLACEMENT}y{REPLACEMENT}z"


def test_terminal_attacks_from_the_issue_are_inert() -> None:
    title = "\x1b]0;pwned\x07"
    clear = "\x1b[2J\x1b[H"
    clipboard = "\x1b]52;c;ZWNobyBwd25lZA==\x07"
    shown = safe_text(title + clear + clipboard + "\x9b31m")
    assert shown == (
        "\u241b]0;pwned\u2407\u241b[2J\u241b[H\u241b]52;c;ZWNobyBwd25lZA==\u2407"
        + REPLACEMENT
        + "31m"
    )
    assert "\x1b" not in shown and "\x07" not in shown


def test_crlf_is_a_line_break_a_lone_cr_is_shown() -> None:
    assert safe_text("one\r\ntwo\rthree") == "one\ntwo\u240dthree"


def test_ordinary_text_is_returned_untouched() -> None:
    text = "héllo\twörld\n→ 日本語 emoji 👍🏽 زيت RTL text עברית"
    assert safe_text(text) is text
    assert is_safe(text)


def test_safe_line_also_shows_newlines() -> None:
    assert safe_line("a\nb\tc\x1b") == "a\u240ab\tc\u241b"
    assert safe_line("plain") == "plain"


@given(st.text())
def test_any_text_comes_out_safe_and_the_same_length(text: str) -> None:
    shown = safe_text(text)
    assert is_safe(shown)
    assert safe_text(shown) == shown
    assert len(shown) == len(text) - text.count("\r\n")
    line = safe_line(text)
    assert is_safe(line) and "\n" not in line and len(line) == len(text)


@given(st.text(alphabet=st.characters(codec="utf-8")))
def test_nothing_a_terminal_treats_as_control_survives(text: str) -> None:
    for char in safe_text(text):
        category = unicodedata.category(char)
        assert category != "Cc" or char in "\t\n", repr(char)
        assert char not in BIDI_CONTROLS


JOINED_PIECES = [
    "a",
    " ",
    "\n",
    "漢字",
    "👍",
    "👨",
    "e\u0301",
    "\u200d",
    "\u200b",
    "\u200c",
    "\ufe0f",
]
CONSOLE = Console(file=io.StringIO(), width=200)


def test_a_joiner_after_a_joiner_is_shown_and_real_sequences_are_kept() -> None:
    assert safe_text("\u200d\u200d漢字") == "\u200d\ufffd漢字"
    assert safe_text("a\u200d\u200d\u200db") == "a\u200d\ufffd\ufffdb"
    assert not is_safe("x\u200d\u200d")
    family = "👨\u200d👩\u200d👧"  # one joiner between each: a real sequence
    assert safe_text(family) is family and is_safe(family)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(JOINED_PIECES), max_size=10), st.integers(1, 12))
@example(["\u200d", "\u200d", "漢字"], 1)  # Rich: ZeroDivisionError
@example(["a", " ", "\u200d", "\u200d", "漢字", "漢字"], 3)  # Rich and Textual: IndexError
def test_safe_text_always_wraps(pieces: list[str], width: int) -> None:
    """Rich's and Textual's wraps fail on a word that begins with two joiners: the safe text
    of anything wraps at any width."""
    text = safe_text("".join(pieces))
    Text(text).wrap(CONSOLE, width, overflow="fold")
    Content(text).wrap(width)


def test_chunks_that_would_put_two_joiners_together_are_joined_safely() -> None:
    assert continued_safely("a\u200d", "\u200d漢字") == "\ufffd漢字"
    assert continued_safely("a\u200d", "b") == "b"
    assert continued_safely("a", "\u200db") == "\u200db"

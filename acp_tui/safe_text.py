"""Text from outside made safe to draw on a terminal: the one implementation, used by every layer.

Agent text (and anything else acp-tui did not write: stderr, file contents in the diff view)
may carry bytes a terminal acts on. `safe_text` replaces each of them with a visible symbol, one
character for one character, so nothing reaches the screen that could retitle the terminal
(``ESC]0;…``), clear it (``ESC[2J``), write the clipboard (``ESC]52;…``) or reorder what the user
reads (bidi overrides, "Trojan Source"):

- C0 controls other than tab and newline become their Unicode control pictures (ESC → ``␛``,
  CR → ``␍``, BEL → ``␇``, …); DEL becomes ``␡``;
- C1 controls (U+0080-U+009F, which some terminals treat like ESC sequences), the bidi
  embedding/override/isolate controls (U+202A-U+202E, U+2066-U+2069), the direction marks
  (U+061C, U+200E, U+200F), the line and paragraph separators (U+2028, U+2029) and lone
  surrogates (which cannot be encoded for output) become ``�`` (U+FFFD).

- a zero-width joiner (U+200D) right after another becomes ``�``: two joiners in a row join
  nothing, and Rich and Textual both fail to wrap a word that begins with them (a
  ZeroDivisionError or IndexError at some widths: one ``\u200d\u200d漢字`` in a title or a
  table cell could stop the app). Text streamed in chunks is joined with `continued_safely`.

A CR LF pair is a line break, not a control to show: it becomes LF first. Otherwise the mapping
is one character to one character, so offsets into the original text stay valid.

This module imports nothing from acp-tui or Textual: protocol models, the client core and the
UI all use it.
"""

from __future__ import annotations

import re

REPLACEMENT = "\ufffd"
JOINER = "\u200d"

_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_TWO_JOINERS = JOINER + JOINER
"""Looked for apart (a substring search): in the class's scan, a lookbehind made a 9 KB text's
scan four times as slow."""
_JOINED = re.compile("(?<=\u200d)\u200d")

_PICTURES: dict[str, str] = {chr(code): chr(0x2400 + code) for code in range(0x20)}
_PICTURES["\x7f"] = "\u2421"


def _visible(match: re.Match[str]) -> str:
    return _PICTURES.get(match.group(), REPLACEMENT)


def _shown(text: str) -> str:
    text = _UNSAFE.sub(_visible, text)
    if _TWO_JOINERS in text:
        text = _JOINED.sub(REPLACEMENT, text)
    return text


def is_safe(text: str) -> bool:
    """True if `text` has nothing `safe_text` would replace."""
    return _UNSAFE.search(text) is None and _TWO_JOINERS not in text


def safe_text(text: str) -> str:
    """`text` with every control, bidi override and lone surrogate shown as a visible symbol
    (and a joiner that follows a joiner).

    Tab and newline are kept (CR LF becomes LF). Text that needs no change is returned as is,
    so calling this on every streamed chunk costs one regex scan and one substring search.
    """
    if is_safe(text):
        return text
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    return _shown(text)


def safe_line(text: str) -> str:
    """`safe_text` for a one-line place (a diff line, a stderr line): newlines are shown too."""
    if is_safe(text) and "\n" not in text:
        return text
    return _shown(text).replace("\n", "\u240a")


def continued_safely(before: str, text: str) -> str:
    """`text` (made safe) to be appended to `before` (made safe): a joiner that would follow a
    joiner becomes U+FFFD, as within one text (a streamed chunk may end with one and the next
    begin with one)."""
    if text.startswith(JOINER) and before.endswith(JOINER):
        return REPLACEMENT + text[1:]
    return text

"""Agent-given names and descriptions made safe to draw: no control characters, one line each.

(Shown through `rich.text.Text`, never as markup.)
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def safe_text(value: str, *, limit: int = 500) -> str:
    """`value` without control or bidi-override characters, newlines as spaces, at most `limit`."""
    text = _CONTROL.sub("", value.replace("\n", " ").replace("\t", " "))
    return text if len(text) <= limit else text[: limit - 1] + "…"

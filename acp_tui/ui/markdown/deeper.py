"""Nesting past `MAX_DEPTH`: what is deeper is drawn flat at the last level, marked.

Block quotes and list items hold an inner splitter each, so every level of nesting costs a
level of calls when a line is split and again when it is drawn. An agent can nest thousands
of levels in a few kilobytes (`> > > …`, `- - - …`, or lines indented further and further):
that used to end in a `RecursionError` or in minutes of rendering lines one column wide.
A splitter `MAX_DEPTH` containers deep starts no container: a line that would open one is
taken into a `Deeper` block with its quote and list markers stripped (in one pass, not one
call per marker), and drawn with `DEEPER_MARK` before it.
"""

from __future__ import annotations

import re

from acp_tui.ui.markdown.block_base import Kind, LinesBlock
from acp_tui.ui.markdown.lines import QUOTE, is_blank, match_item

MAX_DEPTH = 12
"""Containers (block quotes, list items) nest at most this deep; deeper is drawn flat."""
DEEPER_MARK = "\u203a\u203a\u203a "  # three single right-pointing angle quotation marks
"""Drawn before each line nested deeper than `MAX_DEPTH`."""

_MARKERS = re.compile(r"(?:[ \t]*(?:>|(?:[-+*]|\d{1,9}[.)])(?=[ \t]|$)))*[ \t]*")
"""Any run of quote and list markers at the start of a line (each alternative starts with a
non-blank character, so the match is linear)."""


def opens_container(line: str) -> bool:
    """Whether ``line`` would start a block quote or a list item."""
    return QUOTE.match(line) is not None or match_item(line) is not None


def flatten(line: str) -> str:
    """``line`` without its leading quote and list markers and indentation."""
    found = _MARKERS.match(line)
    return line[found.end() :] if found is not None else line.lstrip()


class Deeper(LinesBlock):
    """Lines nested deeper than `MAX_DEPTH`, markers stripped; ends at a blank line."""

    kind = Kind.DEEPER

    def accept(self, line: str) -> bool:
        if self.closed or is_blank(line):
            return False
        self.lines.append(flatten(line))
        return True

"""Classifying single Markdown lines (pure: used by the block splitter)."""

from __future__ import annotations

import re
from dataclasses import dataclass

ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*))?$")
ATX_CLOSE = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
RULE = re.compile(r" {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
FENCE = re.compile(r"( {0,3})(`{3,}|~{3,})[ \t]*(.*)$")
QUOTE = re.compile(r" {0,3}> ?(.*)$")
ITEM = re.compile(r"( {0,3})([-+*]|(\d{1,9})([.)]))(?:( {1,4})(.*)| *)$")
HTML = re.compile(r" {0,3}<(?:[A-Za-z][A-Za-z0-9-]*(?:[\s/>]|$)|/[A-Za-z]|!--|\?|![A-Z])")
SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*$")
DELIM_CELL = re.compile(r"[ \t]*(:?)-+(:?)[ \t]*$")
CELL_SPLIT = re.compile(r"(?<!\\)\|")


def is_blank(line: str) -> bool:
    """Whether the line holds only whitespace."""
    return not line.strip()


def indent_of(line: str) -> int:
    """How many leading spaces the line has."""
    return len(line) - len(line.lstrip(" "))


def split_row(line: str) -> list[str]:
    """Cells of a table row (outer pipes optional, ``\\|`` escapes a pipe)."""
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    return [cell.strip().replace("\\|", "|") for cell in CELL_SPLIT.split(text)]


def parse_delimiter_row(line: str) -> list[str] | None:
    """Column alignments ("left", "center", "right", "") of a delimiter row, or None."""
    if "|" not in line or "-" not in line:
        return None
    aligns: list[str] = []
    for cell in split_row(line):
        m = DELIM_CELL.match(cell)
        if m is None:
            return None
        left, right = bool(m.group(1)), bool(m.group(2))
        aligns.append("center" if left and right else "right" if right else "left" if left else "")
    return aligns


@dataclass(frozen=True)
class ItemStart:
    indent: int  # column of the content
    ordered: bool
    delimiter: str  # "-", "*", "+", "." or ")"
    number: int
    content: str


def match_item(line: str) -> ItemStart | None:
    """The list item the line starts (marker, number, indent, content), or None."""
    m = ITEM.match(line)
    if m is None or RULE.match(line):
        return None
    lead, marker, digits, delim, spaces, content = m.groups()
    ordered = digits is not None
    width = len(lead) + len(marker)
    indent = width + (len(spaces) if spaces else 1)
    return ItemStart(
        indent=indent,
        ordered=ordered,
        delimiter=delim if ordered else marker,
        number=int(digits) if ordered else 0,
        content=content or "",
    )


def interrupts_paragraph(line: str) -> bool:
    """True when ``line`` starts a block that may interrupt a paragraph."""
    if ATX.match(line) or FENCE.match(line) or QUOTE.match(line) or RULE.match(line):
        return FENCE.match(line) is None or "`" not in fence_info(line)
    if HTML.match(line):
        return True
    item = match_item(line)
    return item is not None and bool(item.content.strip()) and item.number in (0, 1)


def fence_info(line: str) -> str:
    """The info string of a backtick fence line, or ""."""
    m = FENCE.match(line)
    return m.group(3) if m and m.group(2)[0] == "`" else ""

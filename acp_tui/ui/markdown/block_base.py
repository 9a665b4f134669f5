"""The base of every Markdown block (pure: no Textual, no Rich): kinds, `Block`, `LinesBlock`."""

from __future__ import annotations

from enum import StrEnum
from typing import cast


class Kind(StrEnum):
    PARAGRAPH = "paragraph"
    HEADING = "heading"
    CODE = "code"
    TABLE = "table"
    LIST = "list"
    QUOTE = "quote"
    RULE = "rule"
    HTML = "html"
    DEEPER = "deeper"


class Block:
    """A Markdown block.  ``closed`` blocks never change again (outside a preview)."""

    kind: Kind

    def __init__(self) -> None:
        self.closed = False

    def accept(self, line: str) -> bool:
        """Consume ``line`` if it belongs to this open block; False means "I am done"."""
        return False

    def close(self) -> None:
        """Mark the block finished: no later line can extend it."""
        self.closed = True

    def mark(self) -> object:
        """An opaque snapshot of the block's state (`rollback` restores it)."""
        return self.closed

    def rollback(self, mark: object) -> None:
        """Return to the state `mark` recorded (used to re-feed a line that turned out to
        belong elsewhere).
        """
        self.closed = cast(bool, mark)

    def outline(self) -> tuple[object, ...]:
        """A plain, comparable description of the block (for tests)."""
        return (self.kind.value,)

    @property
    def continues_paragraph(self) -> bool:
        """True when the deepest open block is a paragraph (lazy continuation allowed)."""
        return False


class LinesBlock(Block):
    """A block whose content is a growing list of lines."""

    def __init__(self, lines: list[str] | None = None) -> None:
        super().__init__()
        self.lines: list[str] = lines if lines is not None else []

    def mark(self) -> object:
        return (self.closed, len(self.lines))

    def rollback(self, mark: object) -> None:
        """Return to the recorded state: closed flag and line count."""
        self.closed, n = cast(tuple[bool, int], mark)
        del self.lines[n:]

    def outline(self) -> tuple[object, ...]:
        return (self.kind.value, tuple(self.lines))

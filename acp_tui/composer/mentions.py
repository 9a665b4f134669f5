"""@-mentions in prompt text: `@src/app.py`, `@src/app.py:10-40`, `@src/`, `@"a file.txt"`.

A mention starts at the beginning of the text or after whitespace or an opening bracket (so an
e-mail address is not one) and runs to the next whitespace, or to the closing quote. A trailing
`:N` or `:N-M` selects lines. Whether the path exists is decided when the prompt is sent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_MENTION = re.compile(r'(?<![^\s(\[{])@(?:"(?P<quoted>[^"\n]+)"|(?P<bare>[^\s"]+))')
_LINES = re.compile(r":(?P<start>\d+)(?:-(?P<end>\d+))?$")
_TRAILING = ".,;!?)]}"


@dataclass(frozen=True, slots=True)
class Mention:
    path: str
    start_line: int | None = None
    end_line: int | None = None
    start: int = 0  # span in the text, the `@` included
    end: int = 0

    @property
    def label(self) -> str:
        """The mention as written back: the path, with its line or line range."""
        if self.start_line is None:
            return self.path
        if self.end_line is None or self.end_line == self.start_line:
            return f"{self.path}:{self.start_line}"
        return f"{self.path}:{self.start_line}-{self.end_line}"


def find_mentions(text: str) -> list[Mention]:
    """Every @mention in the prompt text (quoted or bare, with optional :line or :start-end)."""
    found = []
    for match in _MENTION.finditer(text):
        raw = match.group("quoted") or match.group("bare")
        end = match.end()
        if match.group("bare") is not None:
            stripped = raw.rstrip(_TRAILING)
            end -= len(raw) - len(stripped)
            raw = stripped
        if not raw:
            continue
        start_line = end_line = None
        lines = _LINES.search(raw)
        if lines is not None:
            raw = raw[: lines.start()]
            start_line = int(lines.group("start"))
            end_line = int(lines.group("end")) if lines.group("end") else None
            if end_line is not None and end_line < start_line:
                start_line, end_line = end_line, start_line
        if raw:
            found.append(Mention(raw, start_line, end_line, match.start(), end))
    return found


def mention_at(text: str, cursor: int) -> tuple[int, str] | None:
    """The `@query` being typed at `cursor`: (offset of the `@`, the query after it)."""
    start = cursor
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    word = text[start:cursor]
    if not word.startswith("@") or '"' in word:
        return None
    return start, word[1:]


def mention_text(path: str) -> str:
    """How a picked path is written into the prompt (quoted when it has spaces)."""
    if any(c.isspace() or c == '"' for c in path):
        return f'@"{path}"'
    return f"@{path}"

"""A tool call's raw output as text a person reads (the card's "raw output" section).

Agents put a failure's text in their raw output in ways `json.dumps` makes unreadable: codex-acp
returns a dict whose `stdout`, `aggregated_output` and `formatted_output` each hold a 20-line
panic, dumped as one line of `\\n` escapes apiece. Here:

- a string is shown as its lines (a string that is itself JSON is read first; a one-line string
  with `\\n` escapes, doubly encoded, has them turned into lines);
- an object with a top-level `error` or `message` string (or an `error` object's `message`)
  shows that text first, then the rest of its fields;
- fields are laid out as `json.dumps(indent=2)` does, except that a string of several lines is
  shown as an indented block of those lines under its key.

Pure functions of the raw value; the text is made safe for the terminal here (raw values stay
exact in the model). The card bounds how many lines it shows (`card_lines`).
"""

from __future__ import annotations

import json

from acp_tui.safe_text import safe_text

_BLOCK = "\ue000"
"""Marks where a multi-line string goes in the dumped JSON (a private-use character)."""
_DECODE_LIMIT = 1_000_000
"""Longest string read as JSON."""


def readable_raw(value: object) -> str:
    """`value` (a raw output) as readable, terminal-safe text (see the module docstring)."""
    value = _decoded(value)
    if isinstance(value, str):
        return safe_text(_unescaped(value))
    error_key = _error_key(value)
    if error_key is None or not isinstance(value, dict):
        return safe_text(_pretty(value))
    error = value[error_key]
    text = _unescaped(error if isinstance(error, str) else error["message"])
    rest = {key: item for key, item in value.items() if key != error_key}
    if isinstance(error, dict):
        others = {key: item for key, item in error.items() if key != "message"}
        if others:
            rest = {error_key: others, **rest}
    return safe_text(text.rstrip("\n") + ("\n\n" + _pretty(rest) if rest else ""))


def readable_text(text: str) -> str:
    """A failed call's text content: JSON with a top-level error or message as that text (then
    the rest), a one-line string of `\n` escapes as lines, other text as it is."""
    decoded = _decoded(text)
    if _error_key(decoded) is not None:
        return readable_raw(decoded)
    return safe_text(_unescaped(text))


def _error_key(value: object) -> str | None:
    """`error` or `message` when it is a non-empty string, or an object with a string
    `message` (`{"error": {"message": ...}}`)."""
    if not isinstance(value, dict):
        return None
    for key in ("error", "message"):
        found = value.get(key)
        if isinstance(found, dict) and isinstance(found.get("message"), str):
            found = found["message"]
        if isinstance(found, str) and found.strip():
            return key
    return None


def _decoded(value: object) -> object:
    """A string that holds a JSON object or array, read; anything else as it is."""
    if not isinstance(value, str) or len(value) > _DECODE_LIMIT:
        return value
    stripped = value.strip()
    if not stripped.startswith(("{", "[")):
        return value
    try:
        decoded: object = json.loads(stripped)
    except ValueError:
        return value
    return decoded


def _unescaped(text: str) -> str:
    """A one-line string with `\\n` escapes (text encoded twice) as lines; other text as is.

    Only a string with no real line break and at least two escapes is taken for encoded text
    (a Windows path like `C:\\new` has one)."""
    if "\n" in text or text.count("\\n") < 2:
        return text
    return text.replace("\\r\\n", "\n").replace("\\n", "\n").replace("\\t", "\t")


def _pretty(value: object) -> str:
    """`json.dumps(value, indent=2)`, but a string of several lines as a block of lines."""
    blocks: list[str] = []

    def swap(item: object) -> object:
        if isinstance(item, str):
            if "\n" in item.strip("\n"):
                blocks.append(item)
                return f"{_BLOCK}{len(blocks) - 1}{_BLOCK}"
            return item.replace(_BLOCK, "\ufffd")  # (the agent's own marks are not ours)
        if isinstance(item, dict):
            return {str(key).replace(_BLOCK, "\ufffd"): swap(inner) for key, inner in item.items()}
        if isinstance(item, list | tuple):
            return [swap(inner) for inner in item]
        return item

    try:
        dumped = json.dumps(swap(value), indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)
    lines: list[str] = []
    for line in dumped.splitlines():
        start = line.find(f'"{_BLOCK}')
        if start < 0:
            lines.append(line)
            continue
        end = line.index(f'{_BLOCK}"', start + 2)
        block = blocks[int(line[start + 2 : end])]
        head = line[:start].rstrip()  # `"key":`, or nothing for an item of a list
        indent = " " * (len(line) - len(line.lstrip()) + (2 if head else 0))
        if head:
            lines.append(head)
        lines += [indent + part for part in block.strip("\n").splitlines()]
    return "\n".join(lines)

"""The `system_prompt` setting's value (`{mode = "append" | "override", text = "..."}`), checked
for the settings (`config.py`) and a preset (`presets.py`) alike. Imports nothing: both read it
on the way to the first prompt."""

from __future__ import annotations

from typing import Any

MODES = ("append", "override")


def read_system_prompt(value: Any) -> tuple[dict[str, str] | None, list[str]]:
    """(the system prompt, or None when unset; what is wrong with it, a line each)."""
    if value is None:
        return None, []
    if not isinstance(value, dict):
        return None, ["Input should be a table with `mode` and `text`"]
    mode, text = value.get("mode", "append"), value.get("text")
    problems = []
    if mode not in MODES:
        problems.append('`mode` should be "append" or "override"')
    if not isinstance(text, str) or not text.strip():
        problems.append("`text` should be a non-empty string")
    problems += [
        f"unknown key {key!r}" for key in sorted(map(str, value)) if key not in ("mode", "text")
    ]
    if problems:
        return None, problems
    return {"mode": str(mode), "text": str(text)}, []

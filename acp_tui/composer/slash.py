"""Slash commands: the agent's `available_commands` and acp-tui's own, in one filtered list.

A prompt that starts with `/name` names a command. acp-tui's local commands (`/export`, ...) are
handled by the client and never sent; everything else is sent to the agent as typed, which is
how ACP agents receive their commands. When the agent and acp-tui both have a command of the same
name, acp-tui's wins (it is marked local in the list, so the user sees which one runs).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from acp_tui.protocol.models import AvailableCommand


@dataclass(frozen=True, slots=True)
class SlashCommand:
    name: str
    description: str
    hint: str | None = None
    local: bool = False


@dataclass(frozen=True, slots=True)
class SlashInput:
    """A prompt that starts with a command: `/name args`."""

    name: str
    args: str


def agent_commands(commands: Iterable[AvailableCommand]) -> list[SlashCommand]:
    found = []
    for command in commands:
        name = " ".join(command.name.split()).lstrip("/")  # some names have words: "mcp list"
        if not name:
            continue
        hint = command.input.hint if command.input is not None else None
        found.append(SlashCommand(name, command.description, hint or None))
    return found


def merged(agent: Sequence[SlashCommand], local: Sequence[SlashCommand]) -> list[SlashCommand]:
    """Local commands first, then the agent's; a local name hides the agent's command."""
    names = {c.name for c in local}
    return [*local, *(c for c in agent if c.name not in names)]


def parse_slash(text: str) -> SlashInput | None:
    """`/name args` at the very start of the prompt, else None (`/` alone is no command)."""
    if not text.startswith("/"):
        return None
    head = text[1:].split(" ", 1)[0].split("\n", 1)[0]
    if not head:
        return None
    rest = text[1 + len(head) :]
    return SlashInput(head, rest[1:] if rest[:1] in (" ", "\n") else rest.strip())


def completing_name(text: str, cursor: int) -> str | None:
    """What follows the `/` up to the cursor (`/ex` → `ex`), on the prompt's first line."""
    if not text.startswith("/") or cursor < 1 or "\n" in text[:cursor]:
        return None
    return text[1:cursor]


def filter_commands(commands: Sequence[SlashCommand], query: str) -> list[SlashCommand]:
    """The name typed out first (so Enter runs it), then prefix matches (in list order), then
    names that contain the query, then names that contain its letters in order. Once the query
    has a space only names that start with it are kept (what follows a complete name is its
    argument), and a name typed out in full closes the list."""
    query = query.lower()
    if not query:
        return list(commands)
    if any(c.isspace() for c in query):
        return [
            c
            for c in commands
            if c.name.lower().startswith(query) and c.name.lower() != query.rstrip()
        ]
    exact, prefix, inside, loose = [], [], [], []
    for command in commands:
        name = command.name.lower()
        if name == query:
            exact.append(command)
        elif name.startswith(query):
            prefix.append(command)
        elif query in name:
            inside.append(command)
        elif _subsequence(query, name):
            loose.append(command)
    return exact + prefix + inside + loose


def _subsequence(needle: str, haystack: str) -> bool:
    position = 0
    for char in needle:
        position = haystack.find(char, position) + 1
        if position == 0:
            return False
    return True


def hint_for(text: str, commands: Sequence[SlashCommand]) -> str | None:
    """The input hint to show as placeholder after `/name ` while no argument is typed yet."""
    for command in commands:
        if command.hint and text == f"/{command.name} ":
            return command.hint
    return None

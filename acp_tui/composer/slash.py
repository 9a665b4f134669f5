"""Slash commands: the agent's `available_commands` and acp-tui's own, in one filtered list.

A prompt that starts with `/name` names a command; it is sent to the agent as typed, which is
how ACP agents receive their commands. acp-tui's own commands (`//export`, ...) are handled by
the client and never sent. Their form, `//name`, cannot name an agent command: the name after
the slash is what the agent advertised with its leading slashes stripped (`agent_commands`), so
it never starts with one (the ACP schema puts no other rule on a command's name; `plugin:name`
is one agents use, so a `/acp:` prefix could collide). The plain `/export` still runs acp-tui's
own while the agent has no command of that name; when it has, `/export` is the agent's.
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

    @property
    def typed(self) -> str:
        """What runs it at the start of the prompt: `/name` (the agent's) or `//name`."""
        return f"{LOCAL_PREFIX}{self.name}" if self.local else f"/{self.name}"


LOCAL_PREFIX = "//"
"""How acp-tui's own commands are typed: `//export` (no agent command name starts with `/`)."""


@dataclass(frozen=True, slots=True)
class SlashInput:
    """A prompt that starts with a command: `/name args`."""

    name: str
    args: str


def agent_commands(commands: Iterable[AvailableCommand]) -> list[SlashCommand]:
    """The agent's advertised commands as slash commands (names normalised, empty ones dropped)."""
    found = []
    for command in commands:
        name = " ".join(command.name.split()).lstrip("/")  # some names have words: "mcp list"
        if not name:
            continue
        hint = command.input.hint if command.input is not None else None
        found.append(SlashCommand(name, command.description, hint or None))
    return found


def merged(agent: Sequence[SlashCommand], local: Sequence[SlashCommand]) -> list[SlashCommand]:
    """The agent's commands first (what the user came to the agent for), then acp-tui's own;
    both are kept when they share a name (`/model` is the agent's, `//model` acp-tui's)."""
    return [*agent, *local]


def local_command(
    text: str, local: Sequence[SlashCommand], agent: Sequence[SlashCommand]
) -> SlashInput | None:
    """The acp-tui command a prompt runs instead of being sent, if any: `//name args` for any
    of acp-tui's own, `/name args` only while the agent has no command called `name` (nor one
    whose first word is `name`: `/mcp list` makes `/mcp ...` the agent's)."""
    parsed = parse_slash(text)
    if parsed is None:
        return None
    local_names = {c.name for c in local}
    if parsed.name.startswith("/"):
        name = parsed.name[1:]
        return SlashInput(name, parsed.args) if name in local_names else None
    agent_names = {c.name.split(" ", 1)[0] for c in agent}
    if parsed.name in local_names and parsed.name not in agent_names:
        return parsed
    return None


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
    """The name typed out first (so Enter runs it; the agent's before acp-tui's, as `/name` runs
    the agent's), then prefix matches (in list order), then names that contain the query, then
    names that contain its letters in order. Once the query has a space only names that start
    with it are kept (what follows a complete name is its argument), and a name typed out in
    full closes the list. A query after `//` (it starts with `/`) looks at acp-tui's only."""
    query = query.lower()
    if query.startswith("/"):
        commands = [c for c in commands if c.local]
        query = query[1:]
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
    exact.sort(key=lambda command: command.local)  # stable: the agent's first
    return exact + prefix + inside + loose


def _subsequence(needle: str, haystack: str) -> bool:
    position = 0
    for char in needle:
        position = haystack.find(char, position) + 1
        if position == 0:
            return False
    return True


def hint_for(text: str, commands: Sequence[SlashCommand]) -> str | None:
    """The input hint to show as placeholder after `/name ` while no argument is typed yet
    (`/name ` is the agent's command of that name, else acp-tui's)."""
    agent_names = {c.name for c in commands if not c.local}
    for command in commands:
        plain = command.local and command.name not in agent_names and text == f"/{command.name} "
        if command.hint and (text == f"{command.typed} " or plain):
            return command.hint
    return None

"""The `keymap` setting checked before Textual applies it: Textual ignores an entry naming no
binding, and binds a key it can never match, both without a word. Each bad entry is reported
by name with the other settings problems and left out; the good ones apply."""

from __future__ import annotations

from collections.abc import Mapping

from textual.keys import REPLACED_KEYS, Keys, key_to_character

BINDING_IDS = frozenset({
    "agents.cancel", "agents.quit",
    "app.help", "app.inspector", "app.quit", "help.close",
    "card.expand-output", "card.fold", "card.stop",
    "frozen.next", "frozen.previous", "frozen.thaw",
    "inspector.close", "inspector.copy", "inspector.direction", "inspector.errors",
    "inspector.group", "inspector.marked", "inspector.method", "inspector.next",
    "inspector.pair", "inspector.previous", "inspector.search", "inspector.summary",
    "lane.cancel", "lane.open",
    "main.cancel-turn", "main.changes", "main.copy", "main.focus-prompt", "main.fork-here",
    "main.next-mode", "main.permission", "main.pick-model", "main.restart-agent", "main.rules",
    "main.rewind", "main.sessions", "main.toggle-sidebar", "main.wait-on",
    "media.open", "message.open-media", "overview.apply", "overview.compare",
    "permission.allow-once", "permission.allow-always", "permission.reject-once",
    "permission.reject-always", "permission.next", "permission.previous",
    *(f"permission.option-{n}" for n in range(1, 10)),
    "picker.cancel", "prompt.editor", "providers.close",
    "replay.back", "replay.forward", "replay.pause", "replay.rewind", "replay.speed",
    "replay.step",
    "rewind.cancel", "rewind.confirm", "rewind.keep", "rewind.overwrite",
    "rules.close", "rules.edit-scopes", "rules.revoke", "rules.revoke_delete",
    "sessions.close", "sessions.delete", "sessions.fork", "sessions.rewind-forward",
    "sessions.archive", "sessions.show-archived", "sessions.rename",
    "terminal.kill", "turn.revert",
    "workspace.close", "workspace.new", "workspace.new-cancel", "workspace.new-worktree",
    "workspace.next",
    "workspace.overview", "workspace.previous", *(f"workspace.tab-{n}" for n in range(1, 10)),
})  # fmt: skip
"""Every binding id of acp-tui's screens and widgets (a test checks it against their BINDINGS:
some are imported only when first used, so they cannot be collected at start-up)."""

MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})
_NAMED_KEYS = frozenset(
    {key.value for key in Keys if "+" not in key.value and not key.value.startswith("<")}
    | set(REPLACED_KEYS)
    | {"newline"}
)


def key_problem(keys: str) -> str | None:
    """What is wrong with a keymap value (keys separated by commas), or None."""
    for key in keys.split(","):
        key = key.strip()
        if not key:
            return "an empty key"
        if len(key) == 1:  # a character ("+" too)
            continue
        *modifiers, name = key.split("+")
        if not name or "" in modifiers:
            return f"{key!r} is not a key"
        for modifier in modifiers:
            if modifier not in MODIFIERS:
                return f"{modifier!r} is not a modifier"
        if not (len(name) == 1 or name in _NAMED_KEYS or key_to_character(name) is not None):
            return f"{name!r} is not a key"
    return None


def checked_keymap(keymap: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """The entries of ``keymap`` that name a binding and valid keys, and one problem per other
    entry, naming it."""
    good: dict[str, str] = {}
    problems: list[str] = []
    for binding_id, keys in keymap.items():
        if binding_id not in BINDING_IDS:
            problems.append(f"keymap: {binding_id!r}: no such binding; ignored")
        elif (problem := key_problem(keys)) is not None:
            problems.append(f"keymap: {binding_id!r} = {keys!r}: {problem}; ignored")
        else:
            good[binding_id] = keys
    return good, problems

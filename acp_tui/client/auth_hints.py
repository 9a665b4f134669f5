"""Which environment variable an agent's login method needs, and where the user sets it.

An agent that logs in with an API key reads it from its environment (Gemini CLI's "Use Gemini
API key": `GEMINI_API_KEY`); picking the method without the variable set fails, and the user
must be told which variable and where: the environment acp-tui starts from, or the agent's
`[agents.NAME] env` table of config.toml, then a restart of the agent. The names come from what
the agent sends, where it names them (ACP's draft `env_var` auth method: `vars[].name` or
`varName`; the same keys in `_meta`; an UPPER_CASE name ending in `_KEY` or `_TOKEN` in the
method's description), else from what acp-tui knows of well-known methods (`KNOWN`). Only names
that are plain environment variable names are kept. No I/O, no UI.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from acp_tui.client.hello import AuthMethodInfo

KNOWN: Mapping[str, tuple[str, ...]] = {
    "gemini-api-key": ("GEMINI_API_KEY",),
    "vertex-ai": ("GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"),
    "openai-api-key": ("OPENAI_API_KEY",),
    "codex-api-key": ("CODEX_API_KEY",),
    "anthropic-api-key": ("ANTHROPIC_API_KEY",),
    "claude-api-key": ("ANTHROPIC_API_KEY",),
    "mistral-api-key": ("MISTRAL_API_KEY",),
    "moonshot-api-key": ("MOONSHOT_API_KEY",),
    "openrouter-api-key": ("OPENROUTER_API_KEY",),
}
"""Login methods of well-known agents, by id, and the variables they read."""

NAME = re.compile(r"[A-Z][A-Z0-9_]{1,63}")
IN_TEXT = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:API_KEY|KEY|TOKEN)\b")
_KEYS = ("vars", "varName", "var_name", "envVar", "env_var", "envVars", "env_vars", "variable")


def _names(value: Any) -> list[str]:
    """Variable names in a field the agent sent: a name, a list of names or of {name: ...}."""
    if isinstance(value, str):
        return [value] if NAME.fullmatch(value) else []
    if isinstance(value, dict):
        return _names(value.get("name"))
    if isinstance(value, list):
        return [name for item in value[:16] for name in _names(item)]
    return []


def sent_env_vars(
    fields: Iterable[Mapping[str, Any] | None], description: str | None
) -> tuple[str, ...]:
    """The variables a method's own fields name (its extra fields, its `_meta`), else those its
    description names; in order, once each."""
    found: list[str] = []
    for mapping in fields:
        if isinstance(mapping, Mapping):
            for key in _KEYS:
                found += _names(mapping.get(key))
    if not found and description:
        found = IN_TEXT.findall(description)
    return tuple(dict.fromkeys(found))


def env_vars(method: AuthMethodInfo) -> tuple[str, ...]:
    """The variables the method needs (what the agent sent, else what acp-tui knows)."""
    return method.env_vars or KNOWN.get(method.id, ())


def env_hint(
    methods: Sequence[AuthMethodInfo], preset: str | None, config: str = "config.toml"
) -> str | None:
    """Where to set the variables the methods need, in a sentence (None: none names one).
    `preset`: the agent's name in `[agents.NAME]` (None: "NAME")."""
    lines: list[str] = []
    for method in methods:
        names = env_vars(method)
        if names:
            lines.append(f"{method.name} needs {' and '.join(names)}")
    if not lines:
        return None
    table = f"[agents.{preset or 'NAME'}]"
    example = next(env_vars(m) for m in methods if env_vars(m))[0]
    return (
        "; ".join(lines)
        + f". Set it in the environment you start acp-tui from, or in {config} under {table} "
        f'as env = {{ {example} = "…" }}, then restart the agent (ctrl+r).'
    )

"""User settings: a TOML file in the XDG config dir, overridable by `ACP_TUI_*` variables.

The file is `$ACP_TUI_CONFIG` if set, else `$XDG_CONFIG_HOME/acp-tui/config.toml`, else
`~/.config/acp-tui/config.toml`. Every setting may also come from an environment variable named
`ACP_TUI_<SETTING>` (JSON for lists and tables), which wins over the file.

`load_settings()` never raises for a bad file or value: a setting that fails validation keeps its
default, and each problem becomes a message in `LoadedSettings.messages` for the UI to show. The
file is read only if it is a regular file of at most 1 MiB (`host.settings_file`).
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from acp_tui.host.permission_rules import PermissionPolicy
from acp_tui.host.settings_file import SettingsFileError, read_settings_file
from acp_tui.registry import DEFAULT_URL as DEFAULT_REGISTRY_URL

CONFIG_ENV_VAR = "ACP_TUI_CONFIG"
ENV_PREFIX = "ACP_TUI_"


class HoldWrites(StrEnum):
    """When an agent's file write waits for the user's review before it reaches the disk."""

    ALWAYS = "always"
    """Hold every write for review."""
    OUTSIDE_PERMISSION = "outside_permission"
    """Hold writes that no permission request covered (the default)."""
    NEVER = "never"
    """Write at once; review afterwards."""


class Settings(BaseModel):
    """Everything a user can configure. Build it with `load_settings()` (which reads the file and
    the `ACP_TUI_*` variables); `Settings(**values)` takes the values given and nothing else."""

    model_config = ConfigDict(
        extra="ignore",
        use_attribute_docstrings=True,
        validate_default=True,
    )

    permission_policy: PermissionPolicy = PermissionPolicy.ASK
    """What happens to a permission request no remembered rule matches: `ask` (ask for
    everything), `allow_reads` (allow read/search/fetch/think calls once without asking) or
    `allow_all_dangerous` (allow every call once without asking)."""

    hold_writes: HoldWrites = HoldWrites.OUTSIDE_PERMISSION
    """When an agent's file write waits for review: `always`, `outside_permission` (writes no
    permission request covered) or `never`."""

    watch_changes: bool = True
    """Watch the session directory for files changed without acp-tui writing them (agents that
    edit files themselves, or you): they are listed in the Changes view and the turn summary,
    attributed to the tool call that made them, and can be reverted."""

    extra_allowed_roots: list[Path] = Field(default_factory=list)
    """Directories outside the project the agent may read and write without asking (`~` is
    expanded; relative paths are taken from the home directory)."""

    max_read_bytes: int = Field(default=50 * 1024 * 1024, gt=0)
    """The largest file (in bytes) the agent may read through fs/read_text_file."""

    max_frame_bytes: int = Field(default=64 * 1024 * 1024, gt=0)
    """The largest JSON-RPC message (in bytes) accepted from the agent; a longer one is
    discarded (with a notice) so a runaway agent cannot exhaust memory."""

    agent_env: dict[str, str] = Field(default_factory=dict)
    """Extra environment variables for the agent process (added to acp-tui's environment)."""

    mcp_servers: list[dict[str, Any]] = Field(default_factory=list)
    """MCP servers offered to the agent in session/new, load, resume and fork (`[[mcp_servers]]`
    tables: stdio `{name, command, args, env}`, or `{type = "http"|"sse", name, url, headers}`;
    `env`/`headers` as tables); http/sse only to agents that can take them. A preset's
    `[[agents.NAME.mcp_servers]]` are added (same name: the preset's wins)."""

    protocol_version: int = Field(default=1, ge=1, le=2)
    """The ACP version offered to the agent: 1, or 2 (the v2 draft; an agent that only speaks
    v1 answers 1 and acp-tui speaks v1 with it). `--protocol` overrides it."""

    registry_url: str = DEFAULT_REGISTRY_URL
    """The ACP agent registry's index (`--list-agents`, the agent picker, `acp-tui ID`); cached
    under `$XDG_CACHE_HOME/acp-tui/registry/`. Empty: no registry. (Read by the command line
    before the settings, `acp_tui.registry.catalog`.)"""

    keymap: dict[str, str] = Field(default_factory=dict)
    """Key binding overrides: binding id → key(s), e.g. `{"rules.open" = "ctrl+r"}`."""

    theme: str = "textual-dark"
    """The Textual theme name."""

    notify_turn_end: bool = True
    """Desktop notification (OSC 9 / OSC 777) and bell when a turn ends while the terminal is
    not focused, or after a turn longer than `notify_after_seconds`."""
    notify_permission: bool = True
    """The same when the agent asks for permission."""
    notify_elicitation: bool = True
    """The same when the agent asks the user for input (elicitation)."""
    notify_after_seconds: float = Field(default=30.0, ge=0)
    """A turn at least this long notifies at its end even when the terminal has focus."""
    initialize_warning_seconds: float = Field(default=15.0, gt=0)
    """After this many seconds without an answer to `initialize`, say that the agent is not
    answering (with its stderr) and offer restart and quit; the answer is still awaited."""

    @field_validator("extra_allowed_roots", mode="after")
    @classmethod
    def _expand_roots(cls, roots: list[Path]) -> list[Path]:
        expanded = [root.expanduser() for root in roots]
        return [root if root.is_absolute() else Path.home() / root for root in expanded]

    @field_validator("theme", mode="after")
    @classmethod
    def _theme_not_blank(cls, theme: str) -> str:
        if not theme.strip():
            raise ValueError("theme must not be empty")
        return theme.strip()


@dataclass
class LoadedSettings:
    """The settings in effect, where they came from and what was wrong (for a notification)."""

    settings: Settings
    path: Path
    messages: list[str] = field(default_factory=list)


def user_config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """acp-tui's config directory: `$XDG_CONFIG_HOME/acp-tui` (an absolute XDG path only), else
    `~/.config/acp-tui`.
    """
    env = os.environ if environ is None else environ
    xdg = env.get("XDG_CONFIG_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "acp-tui"
    return Path(env.get("HOME") or Path.home()) / ".config" / "acp-tui"


def config_path(environ: Mapping[str, str] | None = None) -> Path:
    """The config file to read: `$ACP_TUI_CONFIG`, else the XDG location."""
    env = os.environ if environ is None else environ
    override = env.get(CONFIG_ENV_VAR, "")
    if override:
        return Path(override).expanduser()
    return user_config_dir(env) / "config.toml"


def read_config_file(path: Path, messages: list[str]) -> dict[str, Any]:
    """The file's table, or {} (a missing file is not a problem; anything else is reported)."""
    try:
        text = read_settings_file(path)
    except FileNotFoundError:
        return {}
    except SettingsFileError as error:
        messages.append(f"cannot read config {path}: {error}; using defaults")
        return {}
    except OSError as error:
        messages.append(f"cannot read config {path}: {error.strerror or error}; using defaults")
        return {}
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        messages.append(f"config {path} is not valid TOML ({error}); using defaults")
    except RecursionError:  # tomllib recurses once per level of arrays and inline tables
        messages.append(f"config {path} is nested too deep to read; using defaults")
    return {}


_COMPLEX = (list, dict, tuple, set, frozenset)


def env_values(environ: Mapping[str, str]) -> dict[str, Any]:
    """The `ACP_TUI_<SETTING>` variables in `environ` (names in any case): JSON for lists and
    tables, the text as is for the rest (the model converts it: numbers, booleans, names)."""
    found = {key.lower(): value for key, value in environ.items()}
    values: dict[str, Any] = {}
    for name, info in Settings.model_fields.items():
        raw = found.get(f"{ENV_PREFIX}{name}".lower())
        if raw is None:
            continue
        if get_origin(info.annotation) not in _COMPLEX:
            values[name] = raw
            continue
        try:
            values[name] = json.loads(raw)
        except ValueError as error:
            values[name] = _Invalid(f"{ENV_PREFIX}{name.upper()}: not valid JSON ({error})")
        except RecursionError:
            values[name] = _Invalid(f"{ENV_PREFIX}{name.upper()}: JSON nested too deep")
    return values


@dataclass(frozen=True)
class _Invalid:
    message: str


def load_settings(
    path: Path | None = None, *, environ: Mapping[str, str] | None = None
) -> LoadedSettings:
    """Read the settings; never raises for bad input (bad values keep their defaults)."""
    env = os.environ if environ is None else environ
    path = path if path is not None else config_path(env)
    messages: list[str] = []
    file_values = read_config_file(path, messages)
    # Per setting, the values to try, best first: the environment's, then the file's.
    candidates: dict[str, list[tuple[str, Any]]] = {}
    for key, value in file_values.items():
        if key in Settings.model_fields:
            candidates[key] = [(f"{path}: {key}", value)]
        elif key == "agents":
            continue  # agent presets: read by acp_tui.presets
        else:
            messages.append(f"{path}: unknown setting {key!r} ignored")
    for key, value in env_values(env).items():
        if isinstance(value, _Invalid):
            messages.append(f"{value.message}; ignored")
            continue
        candidates.setdefault(key, []).insert(0, (f"{ENV_PREFIX}{key.upper()}", value))
    return LoadedSettings(_validate(candidates, messages), path, messages)


def _validate(candidates: dict[str, list[tuple[str, Any]]], messages: list[str]) -> Settings:
    """Validate; a setting that fails falls back to its next candidate, then to its default."""
    while True:
        values = {key: options[0][1] for key, options in candidates.items() if options}
        try:
            return Settings(**values)
        except ValidationError as error:
            failed = {str(p["loc"][0]) for p in error.errors() if p["loc"]} & set(values)
            if not failed:
                return Settings()  # cannot tell which setting is wrong: all defaults
            problems: dict[str, list[str]] = {}
            for problem in error.errors():
                key = str(problem["loc"][0]) if problem["loc"] else ""
                where = ".".join(str(p) for p in problem["loc"][1:])
                problems.setdefault(key, []).append(
                    f"{problem['msg']} (at {where})" if where else problem["msg"]
                )
            for key in sorted(failed):
                first, *more = problems[key]
                extra = f" (and {len(more)} more)" if more else ""
                messages.append(f"{candidates[key][0][0]}: {first}{extra}; ignored")
            for key in failed:
                candidates[key].pop(0)

"""User settings: a TOML file in the XDG config dir, overridable by `ACP_TUI_*` variables.

The file is `$ACP_TUI_CONFIG` if set, else `$XDG_CONFIG_HOME/acp-tui/config.toml`, else
`~/.config/acp-tui/config.toml`. Every setting may also come from an environment variable named
`ACP_TUI_<SETTING>` (JSON for lists and tables), which wins over the file.

`load_settings()` never raises for a bad file or value: a setting that fails validation keeps its
default, and each problem becomes a message in `LoadedSettings.messages` for the UI to show. The
file is read only if it is a regular file of at most 1 MiB (`host.settings_file`).
"""

from __future__ import annotations

import itertools
import json
import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from acp_tui.host.permission_rules import PermissionPolicy
from acp_tui.host.settings_file import SettingsFileError, read_settings_file
from acp_tui.registry import DEFAULT_URL as DEFAULT_REGISTRY_URL
from acp_tui.sandbox.modes import SandboxMode
from acp_tui.system_prompt_setting import read_system_prompt

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


@dataclass
class Settings:
    """Everything a user can configure. Build it with `load_settings()` (which reads the file and
    the `ACP_TUI_*` variables); `Settings(**values)` takes the values given and nothing else,
    checked and converted as the file's would be (`InvalidSettings` names what does not fit).

    A plain dataclass checked by hand (`_CHECKS`), not a pydantic model: the settings are read on
    the way to the first usable prompt, which needs no pydantic."""

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

    extra_allowed_roots: list[Path] = field(default_factory=list)
    """Directories outside the project the agent may read and write without asking (`~` is
    expanded; relative paths are taken from the home directory)."""

    sandbox: SandboxMode | None = None
    """Confine the agent process and everything it starts (Linux Landlock): `off`; `project`:
    writes only inside the session's roots (its directory, `extra_allowed_roots`), the temporary
    directory and the agent's own state and cache directories; `strict`: as project, and the
    user's secrets (`~/.ssh`, `~/.gnupg`, `~/.aws`, `~/.config/gh`, `~/.netrc`, `~/.docker`,
    `sandbox_secrets`) cannot be read. Unset: `project` where the kernel offers Landlock, else
    off with a notice; set (here, per preset or `--sandbox`), no Landlock is an error."""

    sandbox_writable: list[Path] = field(default_factory=list)
    """More directories (or files) the sandboxed agent may write, e.g. an agent's state
    directory the built-in rule misses (`~` expanded; each must exist)."""

    sandbox_secrets: list[Path] = field(default_factory=list)
    """More paths `strict` keeps unreadable to the agent."""

    max_read_bytes: int = 50 * 1024 * 1024
    """The largest file (in bytes) the agent may read through fs/read_text_file."""

    max_frame_bytes: int = 64 * 1024 * 1024
    """The largest JSON-RPC message (in bytes) accepted from the agent; a longer one is
    discarded (with a notice) so a runaway agent cannot exhaust memory."""

    agent_env: dict[str, str] = field(default_factory=dict)
    """Extra environment variables for the agent process (added to acp-tui's environment)."""

    mcp_servers: list[dict[str, Any]] = field(default_factory=list)
    """MCP servers offered to the agent in session/new, load, resume and fork (`[[mcp_servers]]`
    tables: stdio `{name, command, args, env}`, or `{type = "http"|"sse", name, url, headers}`;
    `env`/`headers` as tables); http/sse only to agents that can take them. A preset's
    `[[agents.NAME.mcp_servers]]` are added (same name: the preset's wins)."""

    protocol_version: int = 1
    """The ACP version offered to the agent: 1, or 2 (the v2 draft; an agent that only speaks
    v1 answers 1 and acp-tui speaks v1 with it). `--protocol` overrides it."""

    registry_url: str = DEFAULT_REGISTRY_URL
    """The ACP agent registry's index (`--list-agents`, the agent picker, `acp-tui ID`); cached
    under `$XDG_CACHE_HOME/acp-tui/registry/`. Empty: no registry. (Read by the command line
    before the settings, `acp_tui.registry.catalog`.)"""

    keymap: dict[str, str] = field(default_factory=dict)
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
    notify_after_seconds: float = 30.0
    """A turn at least this long notifies at its end even when the terminal has focus."""
    system_prompt: dict[str, str] | None = None
    """Instructions added to the agent's own (`{mode = "append", text = "..."}`) or put in their
    place (`mode = "override"`), sent with every session opened, only to an agent that offers
    that mode (unstable `systemPrompt`); elsewhere a notice says it was not sent. A preset's
    `system_prompt` takes its place for that agent."""
    initialize_warning_seconds: float = 15.0
    """After this many seconds without an answer to `initialize`, say that the agent is not
    answering (with its stderr) and offer restart and quit; the answer is still awaited."""
    start_timeout: float = 30.0
    """After this many seconds of starting (`initialize`, then `session/new`, load or resume;
    not while a login waits for you) with no session open, say that the agent is not answering
    (with its stderr) and offer to wait, restart or quit; the answer is still awaited."""

    def __post_init__(self) -> None:
        problems: dict[str, list[str]] = {}
        for name, check in _CHECKS.items():
            try:
                setattr(self, name, check(getattr(self, name)))
            except InvalidValue as error:
                problems[name] = error.problems
        if problems:
            raise InvalidSettings(problems)


class InvalidValue(ValueError):
    """One setting's value does not fit: what is wrong, a line per problem (`at KEY` added where
    it is inside a list or table)."""

    def __init__(self, *problems: str) -> None:
        super().__init__("; ".join(problems))
        self.problems = list(problems)


class InvalidSettings(ValueError):
    """`Settings(...)` got values that do not fit: the problems by setting name."""

    def __init__(self, problems: dict[str, list[str]]) -> None:
        super().__init__(
            "; ".join(f"{name}: {', '.join(found)}" for name, found in problems.items())
        )
        self.problems = problems


_TRUE = frozenset({"1", "on", "t", "true", "y", "yes"})
_FALSE = frozenset({"0", "off", "f", "false", "n", "no"})


def _boolean(value: Any) -> bool:
    """A TOML boolean, 0/1, or the words an environment variable may say (true/false, yes/no, …)."""
    if type(value) is bool:
        return value
    if type(value) is int and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise InvalidValue("Input should be a valid boolean")


def _number(value: Any, kind: type[int] | type[float]) -> int | float:
    if isinstance(value, bool | int | float):
        number: int | float = value
    elif isinstance(value, str):
        try:
            number = kind(value.strip())
        except ValueError:
            raise InvalidValue(f"Input should be a valid {_KIND_NAMES[kind]}") from None
    else:
        raise InvalidValue(f"Input should be a valid {_KIND_NAMES[kind]}")
    if kind is int:
        if number != number or number in (float("inf"), float("-inf")) or number % 1:
            raise InvalidValue("Input should be a valid integer, got a fractional part")
        return int(number)
    return float(number)


_KIND_NAMES: dict[type, str] = {int: "integer", float: "number"}


def _bounded(
    kind: type[int] | type[float],
    *,
    gt: float | None = None,
    ge: float | None = None,
    le: float | None = None,
) -> Callable[[Any], Any]:
    def check(value: Any) -> int | float:
        number = _number(value, kind)
        if gt is not None and not number > gt:
            raise InvalidValue(f"Input should be greater than {gt}")
        if ge is not None and not number >= ge:
            raise InvalidValue(f"Input should be greater than or equal to {ge}")
        if le is not None and not number <= le:
            raise InvalidValue(f"Input should be less than or equal to {le}")
        return number

    return check


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise InvalidValue("Input should be a valid string")
    return str(value)


def _theme(value: Any) -> str:
    theme = _text(value).strip()
    if not theme:
        raise InvalidValue("theme must not be empty")
    return theme


def _choice(kind: type[StrEnum]) -> Callable[[Any], Any]:
    names = [member.value for member in kind]
    expected = ", ".join(repr(name) for name in names[:-1]) + f" or {names[-1]!r}"

    def check(value: Any) -> StrEnum:
        if isinstance(value, kind):
            return value
        if isinstance(value, str) and value in names:
            return kind(value)
        raise InvalidValue(f"Input should be {expected}")

    return check


def _optional(check: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """None (unset), or a value `check` takes."""
    return lambda value: None if value is None else check(value)


def _items(value: Any) -> list[Any]:
    if not isinstance(value, list | tuple):
        raise InvalidValue("Input should be a valid list")
    return list(value)


def _text_table(value: Any) -> dict[str, str]:
    """A table of strings (`agent_env`, `keymap`)."""
    if not isinstance(value, dict):
        raise InvalidValue("Input should be a valid dictionary")
    wrong = [
        f"Input should be a valid string (at {key})"
        for key, item in value.items()
        if not isinstance(key, str) or not isinstance(item, str)
    ]
    if wrong:
        raise InvalidValue(*wrong)
    return dict(value)


def _tables(value: Any) -> list[dict[str, Any]]:
    """A list of tables (`mcp_servers`: each one's content is checked where it is used)."""
    items = _items(value)
    wrong = [
        f"Input should be a valid dictionary with string keys (at {index})"
        for index, item in enumerate(items)
        if not isinstance(item, dict) or not all(isinstance(key, str) for key in item)
    ]
    if wrong:
        raise InvalidValue(*wrong)
    return items


def system_prompt_value(value: Any) -> dict[str, str] | None:
    """A system prompt table: `mode` ("append" or "override") and a non-empty `text`."""
    prompt, problems = read_system_prompt(value)
    if problems:
        raise InvalidValue(*problems)
    return prompt


def _roots(value: Any) -> list[Path]:
    """Directories: `~` expanded, relative ones taken from the home directory."""
    wrong = [
        f"Input should be a valid path (at {index})"
        for index, item in enumerate(_items(value))
        if not isinstance(item, str | Path)
    ]
    if wrong:
        raise InvalidValue(*wrong)
    expanded = [Path(item).expanduser() for item in value]
    return [root if root.is_absolute() else Path.home() / root for root in expanded]


_CHECKS: dict[str, Callable[[Any], Any]] = {
    "permission_policy": _choice(PermissionPolicy),
    "hold_writes": _choice(HoldWrites),
    "watch_changes": _boolean,
    "extra_allowed_roots": _roots,
    "sandbox": _optional(_choice(SandboxMode)),
    "sandbox_writable": _roots,
    "sandbox_secrets": _roots,
    "max_read_bytes": _bounded(int, gt=0),
    "max_frame_bytes": _bounded(int, gt=0),
    "agent_env": _text_table,
    "mcp_servers": _tables,
    "protocol_version": _bounded(int, ge=1, le=2),
    "registry_url": _text,
    "keymap": _text_table,
    "theme": _theme,
    "notify_turn_end": _boolean,
    "notify_permission": _boolean,
    "notify_elicitation": _boolean,
    "notify_after_seconds": _bounded(float, ge=0),
    "initialize_warning_seconds": _bounded(float, gt=0),
    "start_timeout": _bounded(float, gt=0),
    "system_prompt": system_prompt_value,
}
"""How each setting is checked and converted (every field of `Settings` has one)."""

SETTING_NAMES = frozenset(_CHECKS)
_JSON_SETTINGS = frozenset(
    {
        "extra_allowed_roots",
        "sandbox_writable",
        "sandbox_secrets",
        "agent_env",
        "mcp_servers",
        "keymap",
        "system_prompt",
    }
)
"""The lists and tables: from an environment variable they are JSON."""


def setting_docs() -> dict[str, str]:
    """Each setting's documentation (the string under its field), read from this file's source."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(Settings))
    body = tree.body[0].body if isinstance(tree.body[0], ast.ClassDef) else []
    docs: dict[str, str] = {}
    for field_node, doc in itertools.pairwise(body):
        if (
            isinstance(field_node, ast.AnnAssign)
            and isinstance(field_node.target, ast.Name)
            and isinstance(doc, ast.Expr)
            and isinstance(doc.value, ast.Constant)
            and isinstance(doc.value.value, str)
        ):
            docs[field_node.target.id] = inspect.cleandoc(doc.value.value)
    return docs


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


def env_values(environ: Mapping[str, str]) -> dict[str, Any]:
    """The `ACP_TUI_<SETTING>` variables in `environ` (names in any case): JSON for lists and
    tables, the text as is for the rest (the checks convert it: numbers, booleans, names)."""
    found = {key.lower(): value for key, value in environ.items()}
    values: dict[str, Any] = {}
    for name in _CHECKS:
        raw = found.get(f"{ENV_PREFIX}{name}".lower())
        if raw is None:
            continue
        if name not in _JSON_SETTINGS:
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
        if key in SETTING_NAMES:
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
    """Check each setting's candidates, best first: the first that fits wins, each one that does
    not is reported; none fits: the default."""
    values: dict[str, Any] = {}
    for key, options in candidates.items():
        for source, value in options:
            try:
                values[key] = _CHECKS[key](value)
            except InvalidValue as error:
                first, *more = error.problems
                extra = f" (and {len(more)} more)" if more else ""
                messages.append(f"{source}: {first}{extra}; ignored")
            else:
                break
    return Settings(**values)

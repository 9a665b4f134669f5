"""Agent presets: `[agents.NAME]` tables in config.toml, plus built-ins for well-known agents.

Read with `tomllib` only (no pydantic, no Textual): the command line resolves a preset before
anything heavy is imported. A table accepts:

    [agents.mine]
    command = "my-agent"            # a string, or a list [program, args...]
    args = ["--acp"]                # appended to command
    env = { MY_KEY = "value" }      # added to the agent's environment
    mode = "plan"                   # applied after session/new or resume (set_mode)
    model = "fast"                  # the model (config option of category model, or set_model)
    config = { effort = "high" }    # other config options, by id
    auth_method = "api-key"         # the auth method to use when the agent asks for a login
    system_prompt = { mode = "append", text = "Answer briefly." }  # see `system_prompt`
    install = "npm i -g my-agent"   # shown when the program is missing
    sandbox = "strict"              # off | project | strict (see the `sandbox` setting)
    sandbox_writable = ["~/.my-agent-data"]  # more places the sandboxed agent may write
    [[agents.mine.mcp_servers]]     # MCP servers for this preset (see `mcp_servers`)
    name = "fs"
    command = "/usr/bin/mcp-fs"

A user table with a built-in's name overrides that built-in key by key. Agents of the ACP
registry (`acp_tui.registry.agents`) come in as `bases`: a table with a registry agent's id
overrides it the same way. A built-in names its registry id where that differs (`codex` is the
registry's `codex-acp`): the two are one agent, listed once under the built-in's name, and
either name starts it (`PresetTable.get`). Problems become messages; a table that cannot be
used is skipped.
"""

from __future__ import annotations

import os
import shutil
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from acp_tui.host.settings_file import read_settings_file
from acp_tui.mcp_servers import normalize_servers
from acp_tui.sandbox.modes import SandboxMode
from acp_tui.system_prompt_setting import read_system_prompt


class RegistryStart(Protocol):
    """How the ACP registry starts an agent, as much as is read outside the registry: said here
    so that presets import nothing of the registry, which builds presets. The registry's own
    `acp_tui.registry.launch.RegistryLaunch` is one (`launch_of` gives a preset's back typed)."""

    @property
    def prefix(self) -> tuple[str, ...]:
        """The command without the agent's arguments (`npx -y PKG`, the binary's path)."""

    @property
    def version(self) -> str:
        """The registry's version of the agent."""

    @property
    def kind(self) -> str:
        """`npx`, `uvx`, `binary` or `none`."""


@dataclass(frozen=True)
class Preset:
    name: str
    command: tuple[str, ...]
    """The agent's argv: the program, then its arguments."""
    title: str = ""
    env: Mapping[str, str] = field(default_factory=dict)
    mode: str | None = None
    model: str | None = None
    config: Mapping[str, str | bool] = field(default_factory=dict)
    mcp_servers: tuple[dict[str, Any], ...] = ()
    auth_method: str | None = None
    system_prompt: Mapping[str, str] | None = None
    """`{mode, text}`: this agent's system prompt, in the place of the setting's."""
    install: str | None = None
    builtin: bool = False
    version: str = ""
    """The registry's version of the agent (shown in lists)."""
    description: str = ""
    registry: RegistryStart | None = None
    """How the registry starts it, when `command` is the registry's (npx, uvx, a binary)."""
    registry_id: str | None = None
    """Its id in the ACP registry when that differs from `name` (another name that starts it)."""
    sandbox: SandboxMode | None = None
    """The sandbox this agent runs in (None: the `sandbox` setting's)."""
    sandbox_writable: tuple[Path, ...] = ()
    """The user's additions to where the sandboxed agent may write (each must exist)."""
    state_dirs: tuple[str, ...] = ()
    """A built-in's own state directories (and files), `~`-relative: writable in the sandbox
    when they exist, beside the rule every agent gets (`~/.<name>`, its XDG directories)."""

    @property
    def program(self) -> str:
        return self.command[0]

    def installed(self) -> bool:
        program = os.path.expanduser(self.program)
        if os.sep in program:
            return os.path.isfile(program) and os.access(program, os.X_OK)
        return shutil.which(program) is not None

    @property
    def has_defaults(self) -> bool:
        return bool(self.mode or self.model or self.config)


def _builtin(
    name: str, title: str, command: str, install: str, *state: str, registry_id: str | None = None
) -> Preset:
    return Preset(
        name, tuple(command.split()), title, install=install, builtin=True, state_dirs=state,
        registry_id=registry_id,
    )  # fmt: skip


_CLAUDE_STATE = ("~/.claude", "~/.claude.json")


BUILTIN_PRESETS: tuple[Preset, ...] = (
    _builtin(
        "gemini", "Gemini CLI", "gemini --acp", "npm install -g @google/gemini-cli", "~/.gemini"
    ),
    _builtin(
        "claude-agent-acp", "Claude Agent (ACP adapter)", "claude-agent-acp",
        "npm install -g @agentclientprotocol/claude-agent-acp", *_CLAUDE_STATE,
    ),
    _builtin(
        "claude-code-acp", "Claude Code (ACP adapter)", "claude-code-acp",
        "npm install -g @zed-industries/claude-code-acp", *_CLAUDE_STATE,
    ),
    _builtin(
        "codex", "Codex (ACP adapter)", "codex-acp", "npm install -g @zed-industries/codex-acp",
        "~/.codex", registry_id="codex-acp",
    ),
    _builtin("opencode", "OpenCode", "opencode acp", "npm install -g opencode-ai",
             "~/.opencode", "~/.config/opencode", "~/.local/share/opencode",
             "~/.local/state/opencode", "~/.cache/opencode"),
    _builtin("qwen", "Qwen Code", "qwen --acp", "npm install -g @qwen-code/qwen-code",
             "~/.qwen", registry_id="qwen-code"),
    _builtin("kimi", "Kimi CLI", "kimi acp", "uv tool install kimi-cli", "~/.kimi"),
    _builtin("vibe", "Mistral Vibe", "vibe-acp", "uv tool install mistral-vibe", "~/.vibe",
             registry_id="mistral-vibe"),
    _builtin("fast-agent", "fast-agent", "fast-agent acp", "uv tool install fast-agent-mcp",
             "~/.fast-agent"),
    _builtin(
        "goose", "Goose", "goose acp",
        "see https://block.github.io/goose/docs/getting-started/installation",
        "~/.config/goose", "~/.local/share/goose", "~/.local/state/goose",
    ),
)  # fmt: skip


@dataclass
class PresetTable:
    """Every preset by name (built-ins first, then the user's), and what was wrong."""

    presets: dict[str, Preset]
    messages: list[str] = field(default_factory=list)

    def get(self, name: str) -> Preset | None:
        """The preset of that name, or the one whose registry id it is (`codex-acp`: `codex`)."""
        preset = self.presets.get(name)
        if preset is None:
            preset = next((p for p in self.presets.values() if p.registry_id == name), None)
        return preset

    def names(self) -> list[str]:
        """Every name that starts an agent: the presets' names and their registry ids."""
        names = list(self.presets)
        names += [p.registry_id for p in self.presets.values() if p.registry_id is not None]
        return names

    def installed(self) -> list[Preset]:
        return [p for p in self.presets.values() if p.installed()]


def config_file(environ: Mapping[str, str] | None = None) -> Path:
    """The config file (`$ACP_TUI_CONFIG`, else `$XDG_CONFIG_HOME/acp-tui/config.toml`, else
    `~/.config/acp-tui/config.toml`); the same rule as `acp_tui.config.config_path`."""
    env = os.environ if environ is None else environ
    override = env.get("ACP_TUI_CONFIG", "")
    if override:
        return Path(override).expanduser()
    xdg = env.get("XDG_CONFIG_HOME", "")
    home = Path(env.get("HOME") or Path.home())
    base = Path(xdg) if xdg and os.path.isabs(xdg) else home / ".config"
    return base / "acp-tui" / "config.toml"


def load_presets(
    path: Path | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    bases: Mapping[str, Preset] | None = None,
) -> PresetTable:
    """Built-ins, then `bases` (the registry's agents), then the file's `[agents.*]` tables over
    them; never raises for a bad file."""
    path = path if path is not None else config_file(environ)
    table = PresetTable({p.name: p for p in BUILTIN_PRESETS})
    table.presets.update(bases or {})
    try:
        data = tomllib.loads(read_settings_file(path))
    except FileNotFoundError:
        return table
    except (OSError, ValueError, RecursionError):  # not a settings file, not TOML, too deep
        return table  # the settings loader reports an unreadable file once
    agents = data.get("agents", {})
    if not isinstance(agents, dict):
        table.messages.append(f"{path}: `agents` must be a table of [agents.NAME] tables")
        return table
    for name, raw in agents.items():
        where = f"{path}: [agents.{name}]"
        if not isinstance(raw, dict):
            table.messages.append(f"{where} must be a table; ignored")
            continue
        base = table.get(name)  # a registry id overlays the built-in that names it
        preset, problems = parse_preset(name, raw, base)
        table.messages.extend(f"{where}: {problem}" for problem in problems)
        if preset is not None:
            table.presets[base.name if base is not None else name] = preset
    return table


_KEYS = {"command", "args", "env", "mode", "model", "config", "mcp_servers", "auth_method",
         "install", "title", "sandbox", "sandbox_writable", "system_prompt"}  # fmt: skip


def parse_preset(
    name: str, raw: Mapping[str, Any], base: Preset | None = None
) -> tuple[Preset | None, list[str]]:
    """One `[agents.NAME]` table over `base` (a built-in of that name): (preset, problems)."""
    problems = [f"unknown key {key!r} ignored" for key in raw if key not in _KEYS]
    preset = base or Preset(name, ())
    command = raw.get("command")
    if command is not None:
        if isinstance(command, str) and command.strip():
            argv = [command]
        elif _strings(command) and command:
            argv = list(command)
        else:
            return None, [*problems, "`command` must be a program name or a list of strings"]
        args = raw.get("args", [])
        if not _strings(args):
            return None, [*problems, "`args` must be a list of strings"]
        preset = replace(preset, command=(*argv, *args), builtin=False, registry=None)
    elif "args" in raw:
        if not _strings(raw["args"]) or not preset.command:
            return None, [*problems, "`args` needs a `command` (a list of strings)"]
        program = preset.registry.prefix if preset.registry else preset.command[:1]
        preset = replace(preset, command=(*program, *raw["args"]))
    if not preset.command:
        return None, [*problems, "needs a `command`"]
    changes: dict[str, Any] = {}
    for key in ("mode", "model", "auth_method", "install", "title"):
        value = raw.get(key)
        if value is None:
            continue
        if isinstance(value, str) and value:
            changes[key] = value
        else:
            problems.append(f"`{key}` must be a non-empty string; ignored")
    env = raw.get("env")
    if env is not None:
        if isinstance(env, dict) and all(isinstance(v, str) for v in env.values()):
            changes["env"] = {**preset.env, **env}
        else:
            problems.append("`env` must be a table of strings; ignored")
    config = raw.get("config")
    if config is not None:
        if isinstance(config, dict) and all(isinstance(v, str | bool) for v in config.values()):
            changes["config"] = {**preset.config, **config}
        else:
            problems.append("`config` must be a table of strings or booleans; ignored")
    problems += _sandbox_keys(raw, changes)
    if "system_prompt" in raw:
        prompt, wrong = read_system_prompt(raw["system_prompt"])
        changes["system_prompt"] = prompt
        problems += [f"`system_prompt`: {problem}; ignored" for problem in wrong]
    if "mcp_servers" in raw:
        servers, mcp_problems = normalize_servers(raw["mcp_servers"])
        changes["mcp_servers"] = tuple(servers)
        problems.extend(mcp_problems)
    return replace(preset, **changes), problems


def _sandbox_keys(raw: Mapping[str, Any], changes: dict[str, Any]) -> list[str]:
    """`sandbox` and `sandbox_writable` into `changes`; the problems."""
    problems: list[str] = []
    mode = raw.get("sandbox")
    if mode is not None:
        names = [member.value for member in SandboxMode]
        if isinstance(mode, str) and mode in names:
            changes["sandbox"] = SandboxMode(mode)
        else:
            problems.append(f"`sandbox` must be one of {', '.join(names)}, not {mode!r}; ignored")
    writable = raw.get("sandbox_writable")
    if writable is not None:
        if _strings(writable):
            paths = [Path(item).expanduser() for item in writable]
            changes["sandbox_writable"] = tuple(
                path if path.is_absolute() else Path.home() / path for path in paths
            )
        else:
            problems.append("`sandbox_writable` must be a list of paths; ignored")
    return problems


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)

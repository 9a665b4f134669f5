"""The real third-party agents of the interop suite: where they are, what each one does.

The agents are installed by `setup.sh` of the shared interop kit (`../shared/interop/` beside
the repository, or `$ACP_TUI_INTEROP`) into `~/.cache/acp-tui-interop` (or `$ACP_INTEROP_DIR`);
`agent.sh NAME` runs one against the fake LLM on `$FAKE_LLM_PORT`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from acp_tui.client.sandbox_setup import sandbox_request
from acp_tui.config import Settings
from acp_tui.presets import BUILTIN_PRESETS
from acp_tui.sandbox.policy import SandboxRequest

REPO = Path(__file__).resolve().parents[2]


def kit_dir() -> Path | None:
    """The interop kit (agent.sh, fake_llm.py), or None if there is none."""
    candidates = [os.environ.get("ACP_TUI_INTEROP"), REPO.parent / "shared" / "interop"]
    for candidate in candidates:
        if candidate and (Path(candidate) / "agent.sh").is_file():
            return Path(candidate)
    return None


def install_dir() -> Path:
    default = Path.home() / ".cache" / "acp-tui-interop"
    return Path(os.environ.get("ACP_INTEROP_DIR") or default)


@dataclass(frozen=True)
class InteropAgent:
    name: str
    executable: str  # relative to the install dir: present when the agent is installed
    auth: str | None = None  # the auth method to pick when asked
    mode: str | None = None  # switch to this mode before the prompt
    uses_terminal: bool = False  # runs the shell command through terminal/*
    fake_llm: bool = True  # the turn is driven by the fake LLM (writes, reads, edits, shell)
    writes_new_file: bool = True  # hello.txt comes out
    edits_notes: bool = True  # fast-agent has no edit tool: the fake LLM asks for no edit
    returns_shell_output: bool = True  # Gemini sends none: nothing a client could show
    asks_permission: bool = True

    @property
    def installed(self) -> bool:
        return (install_dir() / self.executable).exists()

    def env(self) -> dict[str, str]:
        """XDG directories where the agent finds the config agent.sh gives it in its HOME (the
        test suite points XDG_* at private directories, which OpenCode would read instead)."""
        home = install_dir() / "home" / self.name
        return {
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_STATE_HOME": str(home / ".local" / "state"),
            "XDG_CACHE_HOME": str(home / ".cache"),
        }

    @property
    def home(self) -> Path:
        """The HOME agent.sh gives the agent."""
        return install_dir() / "home" / self.name

    def sandbox(self) -> SandboxRequest:
        """The default sandbox, for the agent as its built-in preset knows it (its own
        directories), in the HOME agent.sh gives it: the rule and the preset's directories are
        placed there, nothing else is added. The directories are made first, as an agent's first
        run would have left them (the sandbox never lets an agent make its own home entries)."""
        self.home.mkdir(parents=True, exist_ok=True)  # (agent.sh's own `mkdir -p`: the kit's)
        built_in = self.name.removesuffix("-new")  # (the kit's newest version of a preset's)
        preset = next((p for p in BUILTIN_PRESETS if p.name == built_in), None)
        request = sandbox_request(Settings(), preset, [self.name], home=self.home)
        for path in request.state_dirs:
            if not path.suffix:  # (a file such as ~/.claude.json is the agent's to make)
                path.mkdir(parents=True, exist_ok=True)
        return request


def _npm(package: str, binary: str) -> str:
    return f"npm/{package}/node_modules/.bin/{binary}"


AGENTS = [
    # a new file only through the missing-reads-empty switch (acp_tui.client.agent_quirks)
    InteropAgent("gemini", _npm("gemini", "gemini"), returns_shell_output=False),
    InteropAgent("claude-code-acp", _npm("claudeacp", "claude-code-acp"), uses_terminal=True),
    InteropAgent("claude-agent-acp", _npm("claudeagentacp", "claude-agent-acp")),
    # full-access: codex's sandbox helper fails in containers; in that mode it asks nothing
    InteropAgent(
        "codex",
        _npm("codexacp", "codex-acp"),
        auth="openai-api-key",
        mode="full-access",
        asks_permission=False,
    ),
    InteropAgent("opencode", _npm("opencode", "opencode")),
    InteropAgent("qwen", _npm("qwen", "qwen")),
    InteropAgent("kimi", "venvs/kimi/bin/kimi", uses_terminal=True),
    InteropAgent("vibe", "venvs/vibe/bin/vibe-acp", mode="ask"),  # it starts in accept-edits
    InteropAgent(
        "fast-agent", "venvs/fastagent/bin/fast-agent", uses_terminal=True, edits_notes=False
    ),
    InteropAgent("ts-example", _npm("zedsdk", "tsx"), fake_llm=False),
    # the newest versions beside the pinned ones (the kit's `*-new`)
    # claude-agent-acp 0.101 starts in Auto (no questions): Manual is `default`
    InteropAgent(
        "claude-agent-acp-new", _npm("claudeagentacp-new", "claude-agent-acp"), mode="default"
    ),
    InteropAgent("qwen-new", _npm("qwen-new", "qwen"), mode="default"),  # it starts in Auto
    InteropAgent(
        "fast-agent-new",
        "venvs/fastagent-new/bin/fast-agent",
        uses_terminal=True,
        edits_notes=False,
    ),
    InteropAgent("vibe-new", "venvs/vibe-new/bin/vibe-acp", mode="ask"),
]
BY_NAME = {agent.name: agent for agent in AGENTS}

"""acp-tui: a terminal client for the Agent Client Protocol.

The packages and top-level modules, bottom up as the import contracts of pyproject.toml layer
them (what may be touched in each: docs/ARCHITECTURE.md): `protocol` (the wire), `sandbox` (what
the agent may write), `thread` (the session as data) and `host` (the host services), `presets`
(agent presets, read before anything heavy), `registry` (the ACP agent registry), `config` (the
settings), `composer` and `output` (the prompt's logic, getting things out), `worktrees` (git
worktrees), `client` (the client core: agent sessions), `launch_options` and `agent_choice` (what
the command line asked, which agent), `ui` (Textual) and `check_cli` (`acp-tui check`), `cli` and
`__main__` (the command line). Beside them: `demo` (the demo and scripted agents), `mcp_servers`
and `system_prompt_setting` (settings read before anything heavy) and the layer-neutral
`safe_text`, `signal`, `tasks` and `pydantic_plugins`.
"""

__version__ = "0.1.0"

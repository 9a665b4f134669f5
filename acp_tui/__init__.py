"""acp-tui: a terminal client for the Agent Client Protocol.

The packages, bottom up (the layers and what may be touched in each: docs/ARCHITECTURE.md):
`protocol` (the wire), `sandbox` (what the agent may write), `thread` (the session as data),
`host` (the host services), `registry` (the ACP agent registry), `composer` and `output` (the
prompt's logic, getting things out), `workspace` (git worktrees, the saved workspace), `client`
(the client core: agent sessions), `ui` (Textual), `demo` (the demo and scripted agents). The
top-level modules: the command line (`__main__`, `cli`, `check_cli`, `launch_options`,
`agent_choice`), the settings read before anything heavy (`config`, `presets`, `mcp_servers`,
`system_prompt_setting`, `pydantic_plugins`) and the layer-neutral `safe_text`, `signal` and
`tasks`.
"""

__version__ = "0.1.0"

"""The client core: agent sessions, wiring protocol, thread and host. No UI.

An `AgentSession` (`client/session/`) runs one agent process and its session: opened, loaded,
resumed, forked or rewound in place, with the subagent sessions the agent announces; the app
makes one per tab, and several run side by side in one process. v2's side of it is `client/v2/`.
The rest are its parts and what it answers: the agent's start (`prestart`, `connector`,
`handshake`), the turn and the prompt queue, permissions as state of their tool calls,
elicitations, writes held for review, change tracking and attribution, rewind and its branches,
presets applied to an open session, the sandbox's plan; and two sessions without a UI,
`acp-tui check` (`check`, `check_steps`) and `--replay` (`replay`). What it needs of a UI is the
port in `ui_port`."""

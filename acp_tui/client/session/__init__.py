"""One agent session: `AgentSession` and its parts (connect, open, routes, config,
history), the facade the UI sees and the overview's view of it. No UI."""

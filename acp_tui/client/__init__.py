"""The client core: runs one agent and one session, wiring protocol, session and host. No UI."""

"""The client core: runs one agent and one session, wiring protocol, thread and host.

The session itself is `client/session/`, v2's side of it `client/v2/`; the rest are its parts
and what it answers (elicitations, permissions, writes held for review). No UI."""

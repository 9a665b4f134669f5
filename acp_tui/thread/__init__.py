"""What happened in a session, as data: the `Thread`, a reducer over session updates (no I/O),
its entries, tool calls, plans, diffs and hunks; v2's updates in `thread/v2/`."""

"""What happened in a session, as data: the `Thread`, a reducer over session updates (no I/O),
its entries, tool calls, plans, permission asks, subagent sessions, diffs and hunks; v2's
updates in `thread/v2/`, which change the Thread only through its public API: the Thread is the
one writer of its state and of its `changed` signal."""

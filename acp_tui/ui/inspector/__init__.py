"""The traffic inspector: every JSON-RPC frame of the session, paired, filtered and checked."""

"""The v2 draft protocol's updates on a Thread, and its agent-owned terminals."""

"""The client side of ACP: answers the agent's requests (files, terminals, permissions)."""

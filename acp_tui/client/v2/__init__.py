"""The client side of the v2 draft protocol: its handshake and its turn driver."""

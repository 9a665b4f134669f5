"""The ACP protocol version acp-tui speaks (a light module: the handshake starts before the
protocol models are imported)."""

PROTOCOL_VERSION = 1

"""The ACP protocol version acp-tui speaks (a light module: the handshake starts before the
protocol models are imported)."""

from typing import Any

from acp_tui.protocol import methods

PROTOCOL_VERSION = 1

PROTOCOL_V2 = 2
"""The version an agent answers `initialize` with when it speaks the v2 draft."""


def answers_v2(method: str, result: Any) -> bool:
    """Whether this answer makes the connection v2 (`initialize` answered with version 2): read
    here, so a v1 connection never imports the v2 models to ask."""
    return (
        method == methods.INITIALIZE
        and type(result) is dict
        and result.get("protocolVersion") == PROTOCOL_V2
    )

"""What acp-tui announces in `initialize`: imported before anything heavy (see `prestart`)."""

from __future__ import annotations

from typing import Any

from acp_tui import __version__
from acp_tui.protocol.version import PROTOCOL_VERSION


def initialize_params() -> dict[str, Any]:
    """Only capabilities acp-tui really implements."""
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "clientCapabilities": {
            "fs": {"readTextFile": True, "writeTextFile": True},
            "terminal": True,
            "auth": {"terminal": True},
            "elicitation": {"form": {}, "url": {}},
            # we show boolean config options as toggles and send them typed
            "session": {"configOptions": {"boolean": {}}},
            # unstable: we render plan_update / plan_removed
            "plan": {},
        },
        "clientInfo": {"name": "acp-tui", "title": "acp-tui", "version": __version__},
    }

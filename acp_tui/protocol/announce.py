"""What acp-tui announces in `initialize`: imported before anything heavy (see `prestart`)."""

from __future__ import annotations

from typing import Any

from acp_tui import __version__
from acp_tui.protocol.version import PROTOCOL_VERSION


def initialize_params(version: int = PROTOCOL_VERSION) -> dict[str, Any]:
    """Only capabilities acp-tui really implements.

    Offering v2 (`version=2`, the draft) sends the v2 fields (`info`; `capabilities`: no fs or
    terminal in v2, terminal logins yes) and the v1 ones too, so an agent that only speaks v1
    answers 1 and finds the capabilities it expects.
    """
    params = _v1_params()
    if version >= 2:
        v2 = {"info": params["clientInfo"], "capabilities": {"auth": {"terminal": {}}}}
        params = {**v2, **params, "protocolVersion": 2}
    return params


def _v1_params() -> dict[str, Any]:
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "clientCapabilities": {
            "fs": {"readTextFile": True, "writeTextFile": True},
            "terminal": True,
            "auth": {"terminal": True},
            "elicitation": {"form": {}, "url": {}},
            # we show boolean config options as toggles and send them typed, compaction_update /
            # compaction_summary_chunk as entries, `notice` apart (toasts, the sidebar)
            "session": {"configOptions": {"boolean": {}}, "compaction": {}, "notices": {}},
            # unstable: we render plan_update / plan_removed
            "plan": {},
            # unstable: subagent sessions as lanes of their parent (thread/subagent_sessions.py)
            "subagents": {},
        },
        "clientInfo": {"name": "acp-tui", "title": "acp-tui", "version": __version__},
    }

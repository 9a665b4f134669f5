"""A client system prompt (unstable `systemPrompt` on session/new, load, resume and fork): sent
only where the agent offers its mode; elsewhere a notice says it was not sent. One module.

The setting (`system_prompt = {mode = "append" | "override", text = "..."}`, or a preset's
`[agents.NAME] system_prompt`) is read by `config.py`; the agent offers `append` with
`sessionCapabilities.systemPrompt` and `override` with `.systemPrompt.mode.override`.
"""

from __future__ import annotations

from typing import Any

from acp_tui.protocol.models import AgentCapabilities

MODES = ("append", "override")


def offered_modes(capabilities: AgentCapabilities) -> set[str]:
    """The system prompt modes the agent takes."""
    offered = capabilities.session_capabilities.system_prompt
    if offered is None:
        return set()
    modes = {"append"}
    mode = offered.get("mode")
    if isinstance(mode, dict) and isinstance(mode.get("override"), dict):
        modes.add("override")
    return modes


def system_prompt_param(
    wanted: dict[str, str] | None, capabilities: AgentCapabilities
) -> tuple[dict[str, Any] | None, str | None]:
    """The `systemPrompt` to send for the setting `wanted` (None: none), and the notice to give
    when it is not sent though set (None: nothing to say)."""
    if not wanted:
        return None, None
    mode = wanted["mode"]
    if mode not in offered_modes(capabilities):
        why = (
            "the agent takes no system prompt"
            if not offered_modes(capabilities)
            else f"the agent does not take one in {mode} mode"
        )
        return None, f"Your system prompt was not sent: {why}."
    return {"mode": mode, "content": [{"type": "text", "text": wanted["text"]}]}, None

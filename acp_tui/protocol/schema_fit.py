"""Which ACP schema an agent's frames fit: the August one (v1 1.21), the current stable one, or
the current one with its unstable part (`acp-tui check` says it; the inspector's header too).

The checker (`conformance.py`) marks what is outside the current schema, unstable part included;
this says how new a schema the rest needs. Each frame's newest feature is looked up in small
tables of what changed since 1.21 (`../shared/acp-schema/current/SOURCE.txt`): update kinds,
methods, fields. Only names from these tables are kept, so memory stays bounded whatever the
agent sends.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, Final

from acp_tui.protocol import methods


class SchemaLevel(IntEnum):
    """How new a schema a frame needs (each level holds the ones below it)."""

    V1_AUGUST = 0
    V1_CURRENT = 1
    V1_CURRENT_UNSTABLE = 2
    V2_DRAFT = 3

    @property
    def title(self) -> str:
        """The schema in words."""
        return _TITLES[self]


_TITLES: Final = {
    SchemaLevel.V1_AUGUST: "ACP v1 1.21 (August 2026)",
    SchemaLevel.V1_CURRENT: "ACP v1, current stable (SDK 2.4.0)",
    SchemaLevel.V1_CURRENT_UNSTABLE: "ACP v1, current with its unstable part (SDK 2.4.0)",
    SchemaLevel.V2_DRAFT: "ACP v2, the current draft (SDK 2.4.0)",
}

STABLE_SINCE_AUGUST: Final = frozenset({"notice", "compaction_update", "compaction_summary_chunk"})
"""Update kinds stable in the current schema that 1.21 had only as unstable."""

UNSTABLE_UPDATES: Final = frozenset(
    {"plan_update", "plan_removed", "subagent_update", "session_message", "session_message_chunk"}
)
"""Update kinds only the unstable part of the current schema has."""

UNSTABLE_AGENT_CALLS: Final = frozenset({methods.MCP_MESSAGE, methods.AUTH_STATUS_UPDATE})
"""Requests and notifications the agent sends that only the unstable part has."""

UNSTABLE_RESULTS: Final = frozenset(
    {
        methods.SESSION_FORK,
        methods.PROVIDERS_LIST,
        methods.PROVIDERS_SET,
        methods.PROVIDERS_DISABLE,
    }
)
"""Answers to methods only the unstable part has."""

UNSTABLE_AGENT_CAPABILITIES: Final = frozenset({"providers"})
UNSTABLE_SESSION_CAPABILITIES: Final = frozenset(
    {"fork", "archive", "status", "systemPrompt", "title"}
)
UNSTABLE_AUTH_CAPABILITIES: Final = frozenset({"status"})


class SchemaFit:
    """The features seen so far that need a schema newer than 1.21, and the newest level."""

    def __init__(self) -> None:
        self.needs: dict[str, SchemaLevel] = {}
        """feature (an update kind, a method, `field of what`) → the level it needs."""

    @property
    def level(self) -> SchemaLevel:
        """The oldest schema every frame seen fits."""
        return max(self.needs.values(), default=SchemaLevel.V1_AUGUST)

    def describe(self) -> str:
        """The schema the frames fit, and why not an older one."""
        level = self.level
        why = sorted(feature for feature, need in self.needs.items() if need is level)
        return level.title + (f" (for {', '.join(why)})" if why else "")

    def _need(self, feature: str, level: SchemaLevel) -> None:
        if self.needs.get(feature, SchemaLevel.V1_AUGUST) < level:
            self.needs[feature] = level

    def speaks_v2(self) -> None:
        """The agent answered `initialize` with ACP v2: its frames are the v2 draft's."""
        self._need("protocolVersion 2", SchemaLevel.V2_DRAFT)

    def update(self, update: Any) -> None:
        """A `session/update`'s update (a dict as sent)."""
        if type(update) is not dict:
            return
        kind = update.get("sessionUpdate")
        if kind in STABLE_SINCE_AUGUST:
            self._need(kind, SchemaLevel.V1_CURRENT)
        elif kind in UNSTABLE_UPDATES:
            self._need(kind, SchemaLevel.V1_CURRENT_UNSTABLE)
        elif kind in ("tool_call", "tool_call_update") and "name" in update:
            self._need("name of tool_call", SchemaLevel.V1_CURRENT)

    def call(self, method: str, params: Any) -> None:
        """A request or notification from the agent."""
        if method in UNSTABLE_AGENT_CALLS:
            self._need(method, SchemaLevel.V1_CURRENT_UNSTABLE)
        elif method == methods.SESSION_REQUEST_PERMISSION and type(params) is dict:
            tool_call = params.get("toolCall")
            if type(tool_call) is dict and "name" in tool_call:
                self._need("name of tool_call", SchemaLevel.V1_CURRENT)

    def result(self, method: str, result: Any) -> None:
        """The agent's answer to `method`, a request of the client's."""
        if method in UNSTABLE_RESULTS:
            self._need(method, SchemaLevel.V1_CURRENT_UNSTABLE)
        elif type(result) is not dict:
            return
        elif method == methods.INITIALIZE:
            self._capabilities(result.get("agentCapabilities"))
        elif method == methods.SESSION_PROMPT and result.get("usage") is not None:
            self._need("usage of session/prompt", SchemaLevel.V1_CURRENT_UNSTABLE)

    def _capabilities(self, capabilities: Any) -> None:
        if type(capabilities) is not dict:
            return
        unstable = SchemaLevel.V1_CURRENT_UNSTABLE
        for name in UNSTABLE_AGENT_CAPABILITIES & capabilities.keys():
            self._need(f"agentCapabilities.{name}", unstable)
        session = capabilities.get("sessionCapabilities")
        if type(session) is dict:
            for name in UNSTABLE_SESSION_CAPABILITIES & session.keys():
                self._need(f"sessionCapabilities.{name}", unstable)
        auth = capabilities.get("auth")
        if type(auth) is dict:
            for name in UNSTABLE_AUTH_CAPABILITIES & auth.keys():
                self._need(f"auth.{name}", unstable)

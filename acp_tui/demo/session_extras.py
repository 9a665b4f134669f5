"""The demo agent's session extras: config options (a model and a thought level), and
`session/list`, `session/resume`, `session/close` over the sessions of this process.

So `acp-tui --demo` shows the Settings section, the model picker (f6) and the session picker
(f5, after `/clear`) working. Stdlib only, like the rest of the demo agent.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from acp_tui.demo.turn_api import JsonObject, RpcError, Session
from acp_tui.protocol import methods

INVALID_PARAMS = -32602

MODELS = [
    {"value": "demo-quick", "name": "Demo Quick", "description": "Answers at once"},
    {"value": "demo-careful", "name": "Demo Careful", "description": "Thinks it over first"},
]
EFFORTS = [
    {"value": "low", "name": "Low"},
    {"value": "medium", "name": "Medium"},
    {"value": "high", "name": "High"},
]

SESSION_CAPABILITIES: JsonObject = {"list": {}, "resume": {}, "close": {}}


@dataclass
class Settings:
    model: str = "demo-quick"
    effort: str = "medium"
    web_search: bool = False
    updated_at: str = field(default_factory=lambda: _now())


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


class SessionExtras:
    """The demo's answers for session history and settings: list, resume, fork, delete, config
    options.
    """

    def __init__(self, sessions: dict[str, Session]) -> None:
        self.sessions = sessions
        self.settings: dict[str, Settings] = {}

    def handlers(self) -> dict[str, Callable[[JsonObject], Awaitable[JsonObject]]]:
        """The request handlers these extras add, by method name."""
        return {
            methods.SESSION_LIST: self._list,
            methods.SESSION_RESUME: self._resume,
            methods.SESSION_CLOSE: self._close,
            methods.SESSION_SET_CONFIG_OPTION: self._set_config_option,
        }

    def of(self, session: Session) -> Settings:
        """The settings of a session (made on first use)."""
        return self.settings.setdefault(session.id, Settings())

    def touch(self, session: Session) -> None:
        """Mark the session as updated now (for session/list's ordering)."""
        self.of(session).updated_at = _now()

    def config_options(self, session: Session) -> list[JsonObject]:
        """The session's config options (model, thinking effort, ...) with their current values."""
        settings = self.of(session)
        return [
            {"id": "model", "name": "Model", "category": "model", "type": "select",
             "description": "Which (pretend) model answers", "currentValue": settings.model,
             "options": MODELS},
            {"id": "effort", "name": "Thinking effort", "category": "thought_level",
             "type": "select", "currentValue": settings.effort, "options": EFFORTS},
            {"id": "web_search", "name": "Web search", "type": "boolean",
             "description": "Let the demo pretend to search the web",
             "currentValue": settings.web_search},
        ]  # fmt: skip

    def _session(self, params: JsonObject) -> Session:
        session = self.sessions.get(params.get("sessionId"))  # type: ignore[arg-type]
        if session is None:
            raise RpcError(INVALID_PARAMS, f"Unknown session: {params.get('sessionId')!r}")
        return session

    async def _list(self, params: JsonObject) -> JsonObject:
        cwd = params.get("cwd")
        found = [s for s in self.sessions.values() if cwd is None or s.cwd == cwd]
        found.sort(key=lambda s: self.of(s).updated_at, reverse=True)
        return {
            "sessions": [
                {"sessionId": s.id, "cwd": s.cwd, "title": _title(s),
                 "updatedAt": self.of(s).updated_at}
                for s in found
            ]
        }  # fmt: skip

    async def _resume(self, params: JsonObject) -> JsonObject:
        session = self._session(params)
        cwd = params.get("cwd")
        if isinstance(cwd, str) and cwd:
            session.cwd = cwd
        return {"configOptions": self.config_options(session)}

    async def _close(self, params: JsonObject) -> JsonObject:
        session = self._session(params)
        if session.turn is not None:
            session.turn.cancel()
        return {}

    async def _set_config_option(self, params: JsonObject) -> JsonObject:
        session = self._session(params)
        settings = self.of(session)
        config_id, value = params.get("configId"), params.get("value")
        if config_id == "model" and value in {m["value"] for m in MODELS}:
            settings.model = str(value)
        elif config_id == "effort" and value in {e["value"] for e in EFFORTS}:
            settings.effort = str(value)
        elif config_id == "web_search" and isinstance(value, bool):
            settings.web_search = value
        else:
            raise RpcError(INVALID_PARAMS, f"Unknown option or value: {config_id!r} = {value!r}")
        return {"configOptions": self.config_options(session)}


def _title(session: Session) -> str:
    first = next((text for role, text in session.history if role == "user"), "")
    line = first.strip().splitlines()[0] if first.strip() else "New session"
    return line[:60]

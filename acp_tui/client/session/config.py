"""Changing what the agent lets the user configure: config options, models, modes.

Each function asks the agent and, once it agreed, updates the session's `Thread`; each returns
an error message for the user (with the agent's `data` detail) or None when it worked. Nothing
here imports Textual.

- `set_config_option`: `session/set_config_option`; the answer's full option list replaces ours.
- `set_model`: the unstable `session/set_model` for agents that describe `models`.
- `choose_mode`: `session/set_mode` when the agent has modes, else the config option whose
  category is `mode` (OpenCode's build/plan).
"""

from __future__ import annotations

import json
from typing import Protocol

from acp_tui.client.session.core import Caller
from acp_tui.protocol.connection import ConnectionClosed
from acp_tui.protocol.errors import RpcError
from acp_tui.thread.config_options import MODE, option_by_category, option_by_id, with_value
from acp_tui.thread.thread import Thread


class ConfigSession(Caller, Protocol):
    """What changing the agent's configuration needs of the session."""

    @property
    def session_id(self) -> str | None:
        """The agent's session id, once the session is open."""

    @property
    def thread(self) -> Thread:
        """The thread whose config options and modes are changed."""

    @property
    def speaks_v2(self) -> bool:
        """Whether the agent speaks the v2 draft (settings go through config options then)."""

    async def set_mode(self, mode_id: str) -> str | None:
        """`session/set_mode` (v2: the mode config option); an error message, or None."""
        ...


_DATA_LIMIT = 300


def error_text(error: RpcError | ConnectionClosed) -> str:
    """The agent's error for a person: its message, and its `data` detail when it sent one."""
    if isinstance(error, ConnectionClosed):
        return "the agent is not running"
    data = error.data
    if data is None or data == "" or data == {}:
        return error.message
    if isinstance(data, str):
        detail = data
    elif isinstance(data, dict) and isinstance(data.get("details"), str):
        detail = data["details"]
    else:
        try:
            detail = json.dumps(data, ensure_ascii=False, separators=(", ", ": "))
        except (TypeError, ValueError):
            detail = repr(data)
    if len(detail) > _DATA_LIMIT:
        detail = detail[: _DATA_LIMIT - 1] + "…"
    return f"{error.message}: {detail}" if detail != error.message else error.message


async def set_config_option(
    session: ConfigSession, config_id: str, value: str | bool
) -> str | None:
    """Set one config option; the agent's answer (the full list) becomes the session's list."""
    thread = session.thread
    option = option_by_id(thread.config_options, config_id)
    if session.session_id is None:
        return "no session"
    try:
        answer = await session.api.set_config_option(session.session_id, config_id, value)
    except (RpcError, ConnectionClosed) as error:
        return error_text(error)
    if "config_options" in answer.model_fields_set:
        thread.set_config_options(answer.config_options)
    elif option is not None:  # an answer without the list (against the schema): assume it took
        thread.set_config_options(
            [with_value(o, value) if o.id == config_id else o for o in thread.config_options]
        )
    return None


async def set_model(session: ConfigSession, model_id: str) -> str | None:
    """The unstable `session/set_model` (agents that describe `models` instead of an option)."""
    if session.session_id is None:
        return "no session"
    try:
        await session.api.set_model(session.session_id, model_id)
    except (RpcError, ConnectionClosed) as error:
        return error_text(error)
    session.thread.set_current_model(model_id)
    return None


async def choose_mode(session: ConfigSession, mode_id: str) -> str | None:
    """Switch modes the way this agent offers them (modes, or a `mode` config option)."""
    thread = session.thread
    if not thread.modes:
        option = option_by_category(thread.config_options, MODE)
        if option is not None:
            return await set_config_option(session, option.id, mode_id)
    return await session.set_mode(mode_id)

"""Changing what the agent lets the user configure: config options, models, modes, the title.

Each function asks the agent and, once it agreed, updates the session's `Thread`; each returns
an error message for the user (with the agent's `data` detail) or None when it worked. Nothing
here imports Textual.

- `set_config_option`: `session/set_config_option`; the answer's full option list replaces ours.
- `set_model`: the unstable `session/set_model` for agents that describe `models`.
- `rename`: the session's title (`session/set_title` where the agent takes one).
- `choose_mode`: `session/set_mode` when the agent has modes, else the config option whose
  category is `mode` (OpenCode's build/plan).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Protocol

from acp_tui.client.session.core import Caller
from acp_tui.protocol.connection import Connection, ConnectionClosed
from acp_tui.protocol.errors import RpcError
from acp_tui.thread.config_options import MODE, option_by_category, option_by_id, with_value
from acp_tui.thread.thread import Thread

if TYPE_CHECKING:  # (v2 is imported once the agent speaks it: not at launch)
    from acp_tui.client.v2.session import V2Driver
    from acp_tui.protocol.models import AgentCapabilities


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

    @property
    def v2(self) -> V2Driver | None:
        """The v2 driver, when the agent speaks the v2 draft (it sets modes its own way)."""

    @property
    def connection(self) -> Connection | None:
        """The live connection to the agent, if any."""

    @property
    def agent_capabilities(self) -> AgentCapabilities:
        """What the agent said it can do (`sessionCapabilities.title`: it takes a title)."""


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
    return await set_mode(session, mode_id)


async def set_mode(session: ConfigSession, mode_id: str) -> str | None:
    """`session/set_mode` (v2: the driver's way); an error message, or None."""
    if session.v2 is not None:
        return await session.v2.set_mode(mode_id)
    if session.connection is None or session.session_id is None:
        return "no session"
    try:
        await session.api.set_mode(session.session_id, mode_id)
    except RpcError as error:
        return error.describe()
    except ConnectionClosed:
        return "the agent is not running"
    session.thread.set_current_mode(mode_id)
    return None


async def rename(session: ConfigSession, title: str) -> str | None:
    """Give the session a new title: shown in the tab bar and the overview, and told to the
    agent with `session/set_title` where it offers that (`sessionCapabilities.title`);
    elsewhere the title is acp-tui's own. The reason it could not be, or None."""
    title = " ".join(title.split())
    if not title:
        return "a title cannot be empty"
    offered = session.agent_capabilities.session_capabilities.title is not None
    if offered and session.session_id is not None:
        try:
            await session.api.set_title(session.session_id, title)
        except RpcError as error:
            return error.describe()
        except ConnectionClosed:
            return "the agent is not running"
    session.thread.rename(title)
    return None

"""Unstable auth status (schema.unstable.json, SDK 2.4.0): the account and login state.

`auth/status` (client → agent, offered with `agentCapabilities.auth.status`) answers the login
state and the accounts; `auth/status_update` (agent → client, a notification) tells a change.
claude-agent-acp sends the notification as the extension method `_auth/status_update`.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from ._base import AcpModel, DefaultOnError, DisplayStr, OptDisplayStr, SkipInvalidItems

AUTH_STATES = ("authenticated", "unauthenticated", "not_required", "unknown")
"""The login states the schema names (a newer one is kept as its string)."""


class AuthAccount(AcpModel):
    """One account the agent can use: its label, and who it is."""

    label: DisplayStr
    active: Annotated[bool | None, DefaultOnError] = None
    name: OptDisplayStr = None
    email: OptDisplayStr = None
    organization: OptDisplayStr = None


AccountList = Annotated[list[AuthAccount], SkipInvalidItems, DefaultOnError]


class AuthStatusResponse(AcpModel):
    """The answer of `auth/status`."""

    state: DisplayStr
    accounts: AccountList = Field(default_factory=list)


class AuthStatusUpdateNotification(AcpModel):
    """Params of `auth/status_update`: the login state now, and the accounts."""

    state: DisplayStr
    accounts: AccountList = Field(default_factory=list)


__all__ = [
    "AUTH_STATES",
    "AccountList",
    "AuthAccount",
    "AuthStatusResponse",
    "AuthStatusUpdateNotification",
]

"""The unstable `providers/*` requests: list, set and disable the agent's LLM providers.

Each function returns the agent's answer or an error message for the user (never raises for
the agent's errors). Headers are sent, never kept or logged here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_tui.client.session.config import error_text
from acp_tui.client.session.core import Caller
from acp_tui.protocol.connection import ConnectionClosed
from acp_tui.protocol.errors import RpcError

if TYPE_CHECKING:
    from acp_tui.protocol.models import ProviderInfo


def parse_headers(text: str) -> tuple[dict[str, str], str | None]:
    """`Name: value` lines as headers (blank lines skipped); an error for a line without a
    name and a colon."""
    headers: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        name, colon, value = line.partition(":")
        if not colon or not name.strip():
            return {}, f"header line {number} is not 'Name: value'"
        headers[name.strip()] = value.strip()
    return headers, None


async def list_providers(session: Caller) -> tuple[list[ProviderInfo], str | None]:
    """`providers/list`: the providers, or an error message."""
    try:
        return (await session.api.list_providers()).providers, None
    except (RpcError, ConnectionClosed) as error:
        return [], error_text(error)


async def set_provider(
    session: Caller, provider_id: str, api_type: str, base_url: str, headers: dict[str, str]
) -> str | None:
    """`providers/set`; an error message, or None when the agent took it."""
    from acp_tui.protocol.models import SetProviderRequest  # (built when first used)

    request = SetProviderRequest(
        provider_id=provider_id, api_type=api_type, base_url=base_url, headers=headers or None
    )
    try:
        await session.api.set_provider(request)
    except (RpcError, ConnectionClosed) as error:
        return error_text(error)
    return None


async def disable_provider(session: Caller, provider_id: str) -> str | None:
    """`providers/disable`; an error message, or None when the agent took it."""
    try:
        await session.api.disable_provider(provider_id)
    except (RpcError, ConnectionClosed) as error:
        return error_text(error)
    return None

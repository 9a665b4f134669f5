"""Unstable `providers/*`: the LLM providers an agent lets the client configure.

Offered when the agent's capabilities have `providers`. `providers/list` says each provider's
id, the protocols it speaks, its current endpoint and whether it is required; `providers/set`
points one at an endpoint (with headers, which are secrets: never shown back), and
`providers/disable` turns a non-required one off.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from ._base import AcpModel, DefaultOnError, DisplayStr, SkipInvalidItems


class ProviderCurrentConfig(AcpModel):
    """Where a provider points now."""

    api_type: DisplayStr
    base_url: DisplayStr


class ProviderInfo(AcpModel):
    """One provider as `providers/list` describes it."""

    provider_id: str
    supported: Annotated[list[DisplayStr], SkipInvalidItems, DefaultOnError] = Field(
        default_factory=list
    )
    required: bool = False
    current: Annotated[ProviderCurrentConfig | None, DefaultOnError] = None


class ListProvidersRequest(AcpModel):
    """Params of `providers/list` (none but `_meta`)."""


class ListProvidersResponse(AcpModel):
    """The answer to `providers/list`."""

    providers: Annotated[list[ProviderInfo], SkipInvalidItems] = Field(default_factory=list)


class SetProviderRequest(AcpModel):
    """Params of `providers/set`: the provider's protocol, endpoint and extra headers."""

    provider_id: str
    api_type: str
    base_url: str
    headers: dict[str, str] | None = None


class DisableProviderRequest(AcpModel):
    """Params of `providers/disable`."""

    provider_id: str


__all__ = [
    "DisableProviderRequest",
    "ListProvidersRequest",
    "ListProvidersResponse",
    "ProviderCurrentConfig",
    "ProviderInfo",
    "SetProviderRequest",
]

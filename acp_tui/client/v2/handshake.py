"""The v2 side of `initialize`: what acp-tui offers, and how a v2 answer is read.

A v2 client offers no `fs`/`terminal` (v2 dropped them: the agent reads, writes and runs
things itself); it can run terminal logins (`auth.terminal`). The answer's `info`,
`capabilities` and `authMethods` (`methodId`, explicit `type`) become the same `AgentHello`
a v1 answer does, with `protocol_version=2`; `providers` (unstable) is the same offer as v1's.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from acp_tui.client.auth_hints import sent_env_vars
from acp_tui.client.hello import AgentHello, AuthMethodInfo, malformed_answer
from acp_tui.protocol.models import (
    AgentCapabilities,
    Implementation,
    PromptCapabilities,
    SessionCapabilities,
)
from acp_tui.protocol.models.v2 import PROTOCOL_V2, V2InitializeResponse


def read_v2_initialize_result(result: Any) -> AgentHello:
    """The agent's v2 `initialize` answer, read; a malformed one raises `MalformedAnswer` with
    a sentence.
    """
    try:
        response = V2InitializeResponse.model_validate(result)
    except ValidationError as error:
        raise malformed_answer(error) from None
    info = response.info
    session = response.capabilities.session
    prompt = (session.prompt if session is not None else None) or {}
    session_extra = _objects(session.model_extra if session is not None else None)
    capabilities = AgentCapabilities(
        # v2: session/list, resume and close are baseline methods; delete is advertised
        session_capabilities=SessionCapabilities(
            list={},
            resume={},
            close={},
            delete=session.delete if session is not None else None,
            additional_directories=session.additional_directories if session else None,
            system_prompt=session_extra.get("systemPrompt"),
            title=session_extra.get("title"),
            archive=session_extra.get("archive"),
            status=session_extra.get("status"),
        ),
        prompt_capabilities=PromptCapabilities(
            image=isinstance(prompt.get("image"), dict),
            audio=isinstance(prompt.get("audio"), dict),
            embedded_context=isinstance(prompt.get("embeddedContext"), dict),
        ),
        providers=response.capabilities.providers,  # unstable, the same `providers/*` as v1
    )
    methods = [
        AuthMethodInfo(
            id=method.method_id,
            name=method.name,
            description=method.description,
            type=method.type,
            args=tuple(method.args),
            env=method.env_map(),
            env_vars=sent_env_vars([method.model_extra, method.meta], method.description),
        )
        for method in response.auth_methods
    ]
    implementation = (
        Implementation(name=info.name, version=info.version, title=info.title) if info else None
    )
    return AgentHello(implementation, capabilities, methods, protocol_version=PROTOCOL_V2)


def _objects(extra: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """The capabilities among a model's extra fields that are objects (offered)."""
    return {k: v for k, v in (extra or {}).items() if isinstance(v, dict)}

"""What acp-tui sends the agent, typed: one method per ACP call, returning its response model.

`AgentApi(connection, v2=...)` builds each request's params (the wire form stays what the
schema says, key for key) and validates the answer with its model: a malformed answer raises
`MalformedAnswer` (an `RpcError`), never a `KeyError` or a pydantic error. With no connection
(the agent is not running) every call raises `ConnectionClosed`. v2 names some calls
differently (`auth/login`, `auth/logout`), types a select's value (`"type": "id"`) and a stdio
MCP server (`"type": "stdio"`), and names a config option's id `configId`: the answers are read
as v1's.

The models are imported at the first answer read, not with this module: `prestart` sends
`initialize` through it before anything heavy is loaded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from acp_tui.protocol import methods
from acp_tui.protocol.connection import ConnectionClosed
from acp_tui.protocol.errors import MalformedAnswer

if TYPE_CHECKING:
    from pydantic import BaseModel

    from acp_tui.protocol.connection import Connection
    from acp_tui.protocol.models import (
        ForkSessionResponse,
        ListProvidersResponse,
        ListSessionsResponse,
        LoadSessionResponse,
        NewSessionResponse,
        PromptResponse,
        ResumeSessionResponse,
        SetProviderRequest,
        SetSessionConfigOptionResponse,
    )

M = TypeVar("M", bound="BaseModel")
JsonObject = dict[str, Any]


class AgentApi:
    """The ACP calls acp-tui makes, on one connection (None: the agent is not running)."""

    def __init__(self, connection: Connection | None, *, v2: bool = False) -> None:
        self.connection = connection
        self.v2 = v2

    # ---- the wire ---------------------------------------------------------------------------

    async def _request(self, method: str, params: JsonObject) -> Any:
        if self.connection is None:
            raise ConnectionClosed(f"the agent is not running; cannot send {method}")
        return await self.connection.request(method, params)

    async def _ask(self, method: str, params: JsonObject, model: type[M]) -> M:
        return self._read(method, await self._request(method, params), model)

    def _read(self, method: str, result: Any, model: type[M]) -> M:
        """`result` validated by `model`; `MalformedAnswer` says what is wrong."""
        from pydantic import ValidationError

        if result is None:  # a null result reads as an empty one (what some agents send)
            result = {}
        elif not isinstance(result, dict):
            raise MalformedAnswer(method, "is not an object")
        options = result.get("configOptions")
        if self.v2 and isinstance(options, list):
            from acp_tui.protocol.models.v2 import v1_config_options

            result = {**result, "configOptions": v1_config_options(options)}
        try:
            return model.model_validate(result)
        except ValidationError as error:
            first = error.errors(include_url=False, include_input=False)[0]
            where = ".".join(str(part) for part in first["loc"]) or "the answer"
            if first["type"] == "missing":
                raise MalformedAnswer(method, f"has no {where}") from None
            raise MalformedAnswer(method, f"is malformed ({where}: {first['msg']})") from None

    def _servers(self, servers: list[Any]) -> list[Any]:
        """v2 names every MCP server's transport: a stdio one says `"type": "stdio"`."""
        if not self.v2:
            return servers
        return [
            {**server, "type": "stdio"} if "type" not in server and "command" in server else server
            for server in servers
        ]

    # ---- connecting -------------------------------------------------------------------------

    async def initialize(self, params: JsonObject) -> Any:
        """`initialize` with what `announce.initialize_params` offers. The answer is returned
        as sent: whether it is read as v1 or v2 depends on the version it names
        (`client/handshake.read_initialize_result` validates it)."""
        return await self._request(methods.INITIALIZE, params)

    async def authenticate(self, method_id: str) -> None:
        """`authenticate` (v2: `auth/login`) with the auth method the user chose."""
        method = methods.AUTH_LOGIN if self.v2 else methods.AUTHENTICATE
        await self._request(method, {"methodId": method_id})

    async def logout(self) -> None:
        """`logout` (v2: `auth/logout`)."""
        await self._request(methods.AUTH_LOGOUT if self.v2 else methods.LOGOUT, {})

    # ---- sessions ---------------------------------------------------------------------------

    async def cancel_tool_call(self, session_id: str, tool_call_id: str) -> None:
        """v2 `tool_call/cancel`: ask the agent to stop a tool call that offers it (the agent
        confirms with the call's final status)."""
        await self._request(
            methods.TOOL_CALL_CANCEL, {"sessionId": session_id, "toolCallId": tool_call_id}
        )

    async def cancel_terminal(self, session_id: str, terminal_id: str) -> None:
        """v2 `terminal/cancel`: ask the agent to stop a terminal that offers it (the agent
        confirms with the terminal's exit status)."""
        await self._request(
            methods.TERMINAL_CANCEL, {"sessionId": session_id, "terminalId": terminal_id}
        )

    async def new_session(
        self, cwd: str, mcp_servers: list[Any], *, system_prompt: JsonObject | None = None
    ) -> NewSessionResponse:
        """`session/new` in `cwd` with the MCP servers offered (their wire form), and the
        unstable `systemPrompt` when given."""
        from acp_tui.protocol.models import NewSessionResponse

        params = {"cwd": cwd, "mcpServers": self._servers(mcp_servers)}
        return await self._ask(
            methods.SESSION_NEW, _with_prompt(params, system_prompt), NewSessionResponse
        )

    async def load_session(
        self,
        session_id: str,
        cwd: str,
        mcp_servers: list[Any],
        *,
        system_prompt: JsonObject | None = None,
    ) -> LoadSessionResponse:
        """`session/load`: the agent replays the session as updates, then answers."""
        from acp_tui.protocol.models import LoadSessionResponse

        params = {"sessionId": session_id, "cwd": cwd, "mcpServers": mcp_servers}
        return await self._ask(
            methods.SESSION_LOAD, _with_prompt(params, system_prompt), LoadSessionResponse
        )

    async def resume_session(
        self,
        session_id: str,
        cwd: str,
        mcp_servers: list[Any],
        *,
        replay: bool = False,
        system_prompt: JsonObject | None = None,
    ) -> ResumeSessionResponse:
        """`session/resume` (no replay; v2 with `replay`: from the start, v2's load)."""
        from acp_tui.protocol.models import ResumeSessionResponse

        servers = self._servers(mcp_servers)
        params: JsonObject = {"sessionId": session_id, "cwd": cwd, "mcpServers": servers}
        if replay:
            params["replayFrom"] = {"type": "start"}
        return await self._ask(
            methods.SESSION_RESUME, _with_prompt(params, system_prompt), ResumeSessionResponse
        )

    async def fork_session(
        self,
        session_id: str,
        cwd: str,
        mcp_servers: list[Any],
        *,
        system_prompt: JsonObject | None = None,
    ) -> ForkSessionResponse:
        """The unstable `session/fork`: a new session with `session_id`'s history."""
        from acp_tui.protocol.models import ForkSessionResponse

        params = {"sessionId": session_id, "cwd": cwd, "mcpServers": mcp_servers}
        return await self._ask(
            methods.SESSION_FORK, _with_prompt(params, system_prompt), ForkSessionResponse
        )

    async def list_sessions(
        self, cwd: str, cursor: str | None = None, *, archived: str | None = None
    ) -> ListSessionsResponse:
        """`session/list`: one page of the sessions of `cwd` (unstable `archived`: "include"
        or "only" the archived ones; not sent, the agent leaves them out)."""
        from acp_tui.protocol.models import ListSessionsResponse

        params: JsonObject = {"cwd": cwd}
        if cursor is not None:
            params["cursor"] = cursor
        if archived is not None:
            params["archived"] = archived
        return await self._ask(methods.SESSION_LIST, params, ListSessionsResponse)

    async def close_session(self, session_id: str) -> None:
        """`session/close`."""
        await self._request(methods.SESSION_CLOSE, {"sessionId": session_id})

    async def delete_session(self, session_id: str) -> None:
        """`session/delete`."""
        await self._request(methods.SESSION_DELETE, {"sessionId": session_id})

    async def auth_status(self) -> Any:
        """The unstable `auth/status` (offered with `agentCapabilities.auth.status`): the answer
        as sent (read by `client/auth_status.py`, which takes two shapes)."""
        return await self._request(methods.AUTH_STATUS, {})

    async def session_status(self, session_id: str) -> str | None:
        """The unstable `session/status` (no side effect): "open" (in the agent's memory),
        "saved", or a newer word; None when the answer has none."""
        result = await self._request(methods.SESSION_STATUS, {"sessionId": session_id})
        status = result.get("status") if isinstance(result, dict) else None
        return status if isinstance(status, str) else None

    async def archive_session(self, session_id: str, *, archived: bool = True) -> None:
        """The unstable `session/archive` (or `session/unarchive`)."""
        method = methods.SESSION_ARCHIVE if archived else methods.SESSION_UNARCHIVE
        await self._request(method, {"sessionId": session_id})

    async def set_title(self, session_id: str, title: str) -> None:
        """The unstable `session/set_title` (offered with `sessionCapabilities.title`)."""
        await self._request(methods.SESSION_SET_TITLE, {"sessionId": session_id, "title": title})

    # ---- settings ---------------------------------------------------------------------------

    async def set_mode(self, session_id: str, mode_id: str) -> None:
        """`session/set_mode`."""
        await self._request(methods.SESSION_SET_MODE, {"sessionId": session_id, "modeId": mode_id})

    async def set_model(self, session_id: str, model_id: str) -> None:
        """The unstable `session/set_model`."""
        params = {"sessionId": session_id, "modelId": model_id}
        await self._request(methods.SESSION_SET_MODEL, params)

    async def set_config_option(
        self, session_id: str, config_id: str, value: str | bool
    ) -> SetSessionConfigOptionResponse:
        """`session/set_config_option`: a bool is sent typed (`"type": "boolean"`), a select's
        value id as is (v2: typed `"id"`). The answer's `config_options` is every option as it
        now stands (`"config_options" in answer.model_fields_set`: the agent sent the list)."""
        from acp_tui.protocol.models import SetSessionConfigOptionResponse

        params: JsonObject = {"sessionId": session_id, "configId": config_id, "value": value}
        if isinstance(value, bool):
            params["type"] = "boolean"
        elif self.v2:
            params["type"] = "id"
        return await self._ask(
            methods.SESSION_SET_CONFIG_OPTION, params, SetSessionConfigOptionResponse
        )

    # ---- the turn ---------------------------------------------------------------------------

    async def prompt(self, session_id: str, prompt: list[JsonObject]) -> PromptResponse:
        """`session/prompt` with content blocks (their wire form); answered when the turn ends,
        with why it stopped."""
        from acp_tui.protocol.models import PromptResponse

        params = {"sessionId": session_id, "prompt": prompt}
        return await self._ask(methods.SESSION_PROMPT, params, PromptResponse)

    async def submit_prompt(self, session_id: str, prompt: list[JsonObject]) -> None:
        """v2's `session/prompt`: answered (empty) once the agent accepted the prompt; the turn
        is reported by `state_update`s."""
        params = {"sessionId": session_id, "prompt": prompt}
        await self._request(methods.SESSION_PROMPT, params)

    async def cancel(self, session_id: str) -> None:
        """The `session/cancel` notification."""
        if self.connection is None:
            raise ConnectionClosed(
                f"the agent is not running; cannot send {methods.SESSION_CANCEL}"
            )
        await self.connection.notify(methods.SESSION_CANCEL, {"sessionId": session_id})

    # ---- providers (unstable) ---------------------------------------------------------------

    async def list_providers(self) -> ListProvidersResponse:
        """`providers/list`."""
        from acp_tui.protocol.models import ListProvidersResponse

        return await self._ask(methods.PROVIDERS_LIST, {}, ListProvidersResponse)

    async def set_provider(self, request: SetProviderRequest) -> None:
        """`providers/set`."""
        from acp_tui.protocol.models import to_wire

        await self._request(methods.PROVIDERS_SET, to_wire(request))

    async def disable_provider(self, provider_id: str) -> None:
        """`providers/disable`."""
        await self._request(methods.PROVIDERS_DISABLE, {"providerId": provider_id})


def text_prompt(text: str) -> list[JsonObject]:
    """A prompt of one text block, exactly as typed (it is the user's, not made safe)."""
    return [{"type": "text", "text": text}]


def _with_prompt(params: JsonObject, system_prompt: JsonObject | None) -> JsonObject:
    """`params` with the unstable `systemPrompt`, when there is one to send."""
    return params if system_prompt is None else {**params, "systemPrompt": system_prompt}

"""Interop: the official ACP Python SDK, as the client, runs the demo agent's tour."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, cast

import pytest
from acp import (
    PROTOCOL_VERSION,
    CreateTerminalResponse,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
    spawn_agent_process,
    text_block,
)
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    FileSystemCapabilities,
    TerminalExitStatus,
)

from acp_tui.demo.sample_project import create_sample_project

pytestmark = pytest.mark.timeout(60)


class RecordingClient:
    """An SDK client that answers like a permissive editor and records the update kinds."""

    def __init__(self) -> None:
        self.kinds: list[str] = []
        self.writes: list[str] = []

    def on_connect(self, conn: Any) -> None:
        pass

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.kinds.append(update.session_update)

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        allow = next(o for o in options if o.kind == "allow_once")
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=allow.option_id)
        )

    async def read_text_file(
        self, session_id: str, path: str, **kwargs: Any
    ) -> ReadTextFileResponse:
        return ReadTextFileResponse(content=Path(path).read_text())  # noqa: ASYNC240

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        self.writes.append(path)
        return WriteTextFileResponse()

    async def create_terminal(
        self, session_id: str, command: str, **kwargs: Any
    ) -> CreateTerminalResponse:
        return CreateTerminalResponse(terminal_id="t1")

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> WaitForTerminalExitResponse:
        return WaitForTerminalExitResponse(exit_code=0)

    async def terminal_output(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> TerminalOutputResponse:
        return TerminalOutputResponse(
            output="total 0\n", truncated=False, exit_status=TerminalExitStatus(exit_code=0)
        )

    async def release_terminal(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> ReleaseTerminalResponse:
        return ReleaseTerminalResponse()


async def test_the_official_sdk_client_runs_the_tour(tmp_path: Path):
    create_sample_project(tmp_path)
    client = RecordingClient()
    env = {**os.environ, "ACP_TUI_DEMO_SPEED": "0"}
    async with spawn_agent_process(
        cast(Any, client), sys.executable, "-m", "acp_tui.demo.agent", env=env
    ) as (conn, _process):
        init = await conn.initialize(
            protocol_version=PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=True
            ),
        )
        assert init.agent_info is not None and init.agent_info.name == "acp-tui demo"
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        assert session.modes is not None and session.modes.current_mode_id == "ask"
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("tour")])
        assert answer.stop_reason == "end_turn"
        plan = await conn.prompt(session_id=session.session_id, prompt=[text_block("/plan")])
        assert plan.stop_reason == "end_turn"
    assert client.writes == [str(tmp_path / "src" / "app.py")]
    for kind in (
        "agent_thought_chunk",
        "plan",
        "usage_update",
        "tool_call",
        "tool_call_update",
        "agent_message_chunk",
        "available_commands_update",
        "session_info_update",
        "plan_update",
        "plan_removed",
    ):
        assert kind in client.kinds

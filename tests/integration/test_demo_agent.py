"""The demo agent as a real subprocess: the tour, permissions, cancel, crash, auth, load."""

from __future__ import annotations

import difflib
import itertools
from pathlib import Path
from typing import Any

import pytest

from acp_tui.demo.sample_project import APP_PY, README_MD, create_sample_project
from tests.integration.test_demo_agent_harness import (
    ClientError,
    DemoClient,
    frame_index,
    is_update,
    request_frame,
    tool_call_update,
    tool_statuses,
)

pytestmark = pytest.mark.timeout(60)


async def test_initialize_and_new_session_announce_modes_commands_and_title(project: Path):
    async with DemoClient.spawn() as client:
        info = await client.initialize()
        assert info["protocolVersion"] == 1
        assert info["agentInfo"]["name"] == "acp-tui demo"
        assert info["agentCapabilities"]["loadSession"] is True
        assert info["agentCapabilities"]["promptCapabilities"]["image"] is True
        assert info["agentCapabilities"]["promptCapabilities"]["embeddedContext"] is True
        assert [m["id"] for m in info["authMethods"]] == ["demo-login"]

        answer = await client.request("session/new", {"cwd": str(project), "mcpServers": []})
        modes = answer["result"]["modes"]
        assert modes["currentModeId"] == "ask"
        assert [m["id"] for m in modes["availableModes"]] == ["ask", "code", "architect"]
        commands = await client.wait_for(is_update("available_commands_update"))
        names = [c["name"] for c in commands["params"]["update"]["availableCommands"]]
        assert names == [
            "tour", "stream", "edit", "terminal", "plan", "crash", "refuse", "subagent", "help"
        ]  # fmt: skip
        info_update = await client.wait_for(is_update("session_info_update"))
        assert info_update["params"]["update"]["title"]
        assert client.validator.checked >= 4


async def test_tour_runs_every_step_in_order(project: Path):
    async with DemoClient.spawn() as client:
        await client.initialize()
        session_id = await client.new_session(project)
        answer = await client.prompt(session_id, "show me what you can do")
        assert answer["result"] == {"stopReason": "end_turn"}

        # the milestones of the tour arrive in this order
        milestones = [
            is_update("agent_thought_chunk"),
            is_update("plan"),
            is_update("usage_update"),
            tool_call_update("read"),
            request_frame("fs/read_text_file"),
            tool_call_update("search"),
            tool_call_update("fetch"),
            tool_call_update("execute"),
            request_frame("terminal/create"),
            request_frame("terminal/wait_for_exit"),
            request_frame("terminal/output"),
            request_frame("terminal/release"),
            tool_call_update("edit"),
            request_frame("session/request_permission"),
            request_frame("fs/write_text_file"),
            is_update("agent_message_chunk"),
        ]
        positions = [frame_index(client, m) for m in milestones]
        assert positions == sorted(positions), positions
        assert client.frames[-1]["id"] == answer["id"]  # the answer comes last

        # plan: 4 entries, starts all pending, ends all completed, never goes backwards
        order = {"pending": 0, "in_progress": 1, "completed": 2}
        plans = [[e["status"] for e in u["entries"]] for u in client.updates("plan")]
        assert all(len(p) == 4 for p in plans)
        assert plans[0] == ["pending"] * 4 and plans[-1] == ["completed"] * 4
        for before, after in itertools.pairwise(plans):
            assert all(order[a] >= order[b] for b, a in zip(before, after, strict=True))
        assert any("in_progress" in p for p in plans)

        statuses = tool_statuses(client)
        by_kind = {u["kind"]: u["toolCallId"] for u in client.updates("tool_call")}
        assert statuses[by_kind["read"]] == ["in_progress", "completed"]
        assert statuses[by_kind["search"]][-1] == "completed"
        assert statuses[by_kind["fetch"]][-1] == "failed"
        assert statuses[by_kind["execute"]][-1] == "completed"
        assert statuses[by_kind["edit"]] == ["pending", "in_progress", "completed"]

        # the read really went to the client, with an absolute path, and reports the lines
        read = client.requests("fs/read_text_file")[0]["params"]
        assert read["path"] == str(project / "README.md")
        read_done = next(
            u
            for u in client.updates("tool_call_update")
            if u["toolCallId"] == by_kind["read"] and u["status"] == "completed"
        )
        report = read_done["content"][0]["content"]["text"]
        assert f"Read {len(README_MD.splitlines())} lines" in report
        assert read_done["locations"][0]["path"] == read["path"]

        # the terminal is embedded before it is released, and ran `ls -la` in the cwd
        create = client.requests("terminal/create")[0]["params"]
        assert (create["command"], create["args"], create["cwd"]) == ("ls", ["-la"], str(project))
        embedded = frame_index(
            client,
            lambda f: (
                f.get("method") == "session/update"
                and f["params"]["update"].get("content")
                == [{"type": "terminal", "terminalId": "term-1"}]
            ),
        )
        assert embedded < frame_index(client, request_frame("terminal/release"))

        # the edit: a three-hunk diff, permission with the four kinds, then the write
        edit = client.updates("tool_call")[-1]
        diff = edit["content"][0]
        assert diff["type"] == "diff" and diff["path"] == str(project / "src" / "app.py")
        assert diff["oldText"] == APP_PY
        hunks = [
            line
            for line in difflib.unified_diff(
                diff["oldText"].splitlines(), diff["newText"].splitlines(), lineterm=""
            )
            if line.startswith("@@")
        ]
        assert len(hunks) == 3
        permission = client.requests("session/request_permission")[0]["params"]
        assert permission["toolCall"]["toolCallId"] == edit["toolCallId"]
        assert sorted(o["kind"] for o in permission["options"]) == [
            "allow_always",
            "allow_once",
            "reject_always",
            "reject_once",
        ]
        assert len(client.writes) == 1
        written = client.writes[0]
        assert written["path"] == diff["path"] and written["content"] == diff["newText"]
        for expected in (
            "priority: int = 0",
            'raise ValueError("a task needs a title")',
            'print(f"{len(todo.pending())} task(s) left")',
        ):
            assert expected in written["content"]

        # the closing markdown: heading, list, python fence and table, in small chunks
        chunks = [u["content"]["text"] for u in client.updates("agent_message_chunk")]
        message = "".join(chunks)
        assert 2000 <= len(message) <= 3500
        for marker in ("\n## ", "\n- ", "```python\n", "|---"):
            assert marker in message or message.startswith(marker.lstrip("\n"))
        assert max(len(c) for c in chunks) <= 8
        usages = client.updates("usage_update")
        assert len(usages) >= 2 and usages[-1]["cost"]["currency"] == "USD"
        assert usages[-1]["used"] > usages[0]["used"]


async def test_rejected_edit_fails_and_writes_nothing(project: Path):
    async with DemoClient.spawn() as client:
        client.permission_option = "reject-once"
        await client.initialize()
        session_id = await client.new_session(project)
        answer = await client.prompt(session_id, "/edit")
        assert answer["result"]["stopReason"] == "end_turn"
        assert client.writes == []
        last = client.updates("tool_call_update")[-1]
        assert last["status"] == "failed"
        assert last["content"][0]["content"]["text"] == "Rejected by user"


async def test_allow_always_is_remembered_for_the_session(project: Path):
    async with DemoClient.spawn() as client:
        client.permission_option = "allow-always"
        await client.initialize()
        session_id = await client.new_session(project)
        await client.prompt(session_id, "/edit")
        await client.prompt(session_id, "/edit")
        assert len(client.requests("session/request_permission")) == 1
        assert len(client.writes) == 2


async def test_write_error_from_client_marks_the_edit_failed(project: Path):
    async with DemoClient.spawn() as client:

        async def refuse_write(params: dict[str, Any]) -> dict[str, Any]:
            raise ClientError(-32603, "disk is read-only")

        client.handlers["fs/write_text_file"] = refuse_write
        await client.initialize()
        session_id = await client.new_session(project)
        answer = await client.prompt(session_id, "/edit")
        assert answer["result"]["stopReason"] == "end_turn"
        last = client.updates("tool_call_update")[-1]
        assert last["status"] == "failed"
        assert last["content"][0]["content"]["text"] == "disk is read-only"


async def test_auth_required_until_authenticate(project: Path):
    async with DemoClient.spawn(ACP_TUI_DEMO_AUTH="1") as client:
        await client.initialize()
        refused = await client.request("session/new", {"cwd": str(project), "mcpServers": []})
        assert refused["error"] == {"code": -32000, "message": "Authentication required"}
        wrong = await client.request("authenticate", {"methodId": "nope"})
        assert wrong["error"]["code"] == -32602
        ok = await client.request("authenticate", {"methodId": "demo-login"})
        assert ok["result"] == {}
        assert await client.new_session(project)


async def test_set_mode_known_and_unknown(project: Path):
    async with DemoClient.spawn() as client:
        await client.initialize()
        session_id = await client.new_session(project)
        ok = await client.request(
            "session/set_mode", {"sessionId": session_id, "modeId": "architect"}
        )
        assert ok["result"] == {}
        await client.wait_for(is_update("current_mode_update", currentModeId="architect"))
        bad = await client.request("session/set_mode", {"sessionId": session_id, "modeId": "yolo"})
        assert bad["error"]["code"] == -32602
        # architect mode plans only: the edit is reported but never asked for nor written
        await client.prompt(session_id, "/edit")
        assert client.requests("session/request_permission") == [] and client.writes == []
        assert client.updates("tool_call_update")[-1]["status"] == "failed"


async def test_load_replays_the_conversation(project: Path):
    async with DemoClient.spawn() as client:
        await client.initialize()
        session_id = await client.new_session(project)
        await client.prompt(session_id, "/help")
        said = "".join(u["content"]["text"] for u in client.updates("agent_message_chunk"))
        before = len(client.frames)
        answer = await client.request(
            "session/load", {"sessionId": session_id, "cwd": str(project), "mcpServers": []}
        )
        assert answer["result"]["modes"]["currentModeId"] == "ask"
        replay = [
            f["params"]["update"]
            for f in client.frames[before:]
            if f.get("method") == "session/update"
            and f["params"]["update"]["sessionUpdate"].endswith("message_chunk")
        ]
        assert [(u["sessionUpdate"], u["content"]["text"]) for u in replay] == [
            ("user_message_chunk", "/help"),
            ("agent_message_chunk", said),
        ]

        before = len(client.frames)
        unknown = await client.request(
            "session/load", {"sessionId": "from-another-day", "cwd": str(project), "mcpServers": []}
        )
        assert "result" in unknown
        assert not [
            f
            for f in client.frames[before:]
            if f.get("method") == "session/update"
            and f["params"]["update"]["sessionUpdate"].endswith("message_chunk")
        ]


async def test_plan_command_sends_unstable_plan_update_and_removal(project: Path):
    async with DemoClient.spawn() as client:
        await client.initialize()
        session_id = await client.new_session(project)
        answer = await client.prompt(session_id, "/plan")
        assert answer["result"]["stopReason"] == "end_turn"
        plan_updates = client.updates("plan_update")
        assert plan_updates and plan_updates[0]["plan"]["planId"] == "demo-plan-2"
        assert plan_updates[0]["plan"]["type"] == "items"
        removed = client.updates("plan_removed")
        assert [r["planId"] for r in removed] == ["demo-plan-2"]
        assert frame_index(client, is_update("plan_removed")) > frame_index(
            client, is_update("plan_update")
        )
        assert [e["status"] for e in client.updates("plan")[-1]["entries"]] == ["completed"] * 4


async def test_subagent_sends_a_child_session_only_to_a_client_that_asks(project: Path):
    """Every frame of `/subagent` fits the current schema (its unstable part): the child's
    announcement, its own updates and question under its session id, the notice, the rename;
    a client that does not ask for subagent sessions gets none."""
    async with DemoClient.spawn() as client:
        await client.initialize(subagents={}, session={"notices": {}})
        session_id = await client.new_session(project)
        answer = await client.prompt(session_id, "/subagent")
        assert answer["result"]["stopReason"] == "end_turn"
        states = [u.get("state") for u in client.updates("subagent_update")]
        assert [s["state"] for s in states if s] == ["running", "requires_action", "running",
                                                     "idle"]  # fmt: skip
        children = {f["params"]["sessionId"] for f in client.frames
                    if f.get("method") == "session/update"} - {session_id}  # fmt: skip
        assert len(children) == 1
        asked = [f for f in client.frames if f.get("method") == "session/request_permission"]
        assert [f["params"]["sessionId"] for f in asked] == list(children)
        assert client.updates("notice") and client.updates("session_info_update")
    async with DemoClient.spawn() as client:
        await client.initialize()
        session_id = await client.new_session(project)
        await client.prompt(session_id, "/subagent")
        assert client.updates("subagent_update") == [] and client.updates("notice") == []


async def test_refuse_help_and_unknown_command(project: Path):
    async with DemoClient.spawn() as client:
        await client.initialize()
        session_id = await client.new_session(project)
        assert (await client.prompt(session_id, "/refuse"))["result"]["stopReason"] == "refusal"
        start = len(client.updates("agent_message_chunk"))
        assert (await client.prompt(session_id, "/help"))["result"]["stopReason"] == "end_turn"
        help_text = "".join(
            u["content"]["text"] for u in client.updates("agent_message_chunk")[start:]
        )
        for name in ("/tour", "/stream", "/edit", "/terminal", "/plan", "/crash", "/refuse",
                     "/subagent"):  # fmt: skip
            assert name in help_text
        start = len(client.updates("agent_message_chunk"))
        await client.prompt(session_id, "/frobnicate")
        said = "".join(u["content"]["text"] for u in client.updates("agent_message_chunk")[start:])
        assert "/frobnicate" in said


async def test_tour_without_terminal_capability_sends_no_terminal_requests(project: Path):
    async with DemoClient.spawn() as client:
        await client.initialize(terminal=False, write=False)
        session_id = await client.new_session(project)
        answer = await client.prompt(session_id, "hello")
        assert answer["result"]["stopReason"] == "end_turn"
        assert not [f for f in client.frames if str(f.get("method", "")).startswith("terminal/")]
        assert client.writes == [] and client.requests("fs/write_text_file") == []
        statuses = tool_statuses(client)
        execute = next(u for u in client.updates("tool_call") if u["kind"] == "execute")
        assert statuses[execute["toolCallId"]][-1] == "failed"


async def test_odd_input_gets_json_rpc_errors_and_the_agent_keeps_going(project: Path):
    async with DemoClient.spawn() as client:
        await client.send_raw(b"this is not json")
        parse = await client.wait_for(lambda f: f.get("error", {}).get("code") == -32700)
        assert parse["id"] is None
        await client.send_raw(b"[1, 2, 3]")
        await client.wait_for(lambda f: f.get("error", {}).get("code") == -32600)
        await client.send_raw(b'{"jsonrpc": "2.0", "method": "no/such/notification"}')
        client.validator.client_requests['"x"'] = "initialize"
        await client.send_raw(b'{"jsonrpc": "2.0", "id": "x", "method": "initialize", "params": 5}')
        bad = await client.wait_for(lambda f: f.get("id") == "x")
        assert bad["error"]["code"] == -32602
        await client.send_raw(b'{"jsonrpc": "2.0", "id": true, "result": {}}')
        await client.send_raw(
            b'{"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": [1]}}'
        )
        await client.send_raw(b'{"jsonrpc": "2.0", "method": "session/cancel", "params": 7}')
        unknown = await client.request("session/delete", {"sessionId": "s"})
        assert unknown["error"]["code"] == -32601
        assert (await client.initialize())["protocolVersion"] == 1


async def test_stream_sends_a_long_markdown_answer(project: Path):
    async with DemoClient.spawn() as client:
        await client.initialize()
        session_id = await client.new_session(project)
        answer = await client.prompt(session_id, "/stream")
        assert answer["result"]["stopReason"] == "end_turn"
        text = "".join(u["content"]["text"] for u in client.updates("agent_message_chunk"))
        fence_start = text.index("```python\n")
        fence = text[fence_start : text.index("\n```", fence_start + 3)]
        assert len(fence.splitlines()) - 1 == 300
        assert len([line for line in text.splitlines() if line.startswith("| ")]) == 121
        assert len(text[:fence_start]) >= 17_000


def test_sample_project_files(tmp_path: Path):
    create_sample_project(tmp_path)
    assert (tmp_path / "src" / "app.py").read_text() == APP_PY
    assert (tmp_path / "README.md").read_text().startswith("# todo-demo")
    assert "[project]" in (tmp_path / "pyproject.toml").read_text()
    assert 40 <= len(APP_PY.splitlines()) <= 60
    compile(APP_PY, "app.py", "exec")


async def test_config_options_and_session_list_resume(project: Path):
    async with DemoClient.spawn() as client:
        init = await client.initialize()
        caps = init["agentCapabilities"]["sessionCapabilities"]
        assert set(caps) == {"list", "resume", "close"}
        new = await client.request("session/new", {"cwd": str(project), "mcpServers": []})
        first = new["result"]["sessionId"]
        options = {o["id"]: o["currentValue"] for o in new["result"]["configOptions"]}
        assert options == {"model": "demo-quick", "effort": "medium", "web_search": False}
        changed = await client.request(
            "session/set_config_option",
            {"sessionId": first, "configId": "model", "value": "demo-careful"},
        )
        models = [o for o in changed["result"]["configOptions"] if o["id"] == "model"]
        assert models[0]["currentValue"] == "demo-careful"
        bad = await client.request(
            "session/set_config_option",
            {"sessionId": first, "configId": "model", "value": "gpt-9"},
        )
        assert bad["error"]["code"] == -32602
        await client.prompt(first, "hello there")
        second = await client.new_session(project)
        listed = await client.request("session/list", {"cwd": str(project)})
        sessions = listed["result"]["sessions"]
        assert {s["sessionId"] for s in sessions} == {first, second}
        assert next(s for s in sessions if s["sessionId"] == first)["title"] == "hello there"
        other = await client.request("session/list", {"cwd": "/elsewhere"})
        assert other["result"]["sessions"] == []
        resumed = await client.request(
            "session/resume", {"sessionId": first, "cwd": str(project), "mcpServers": []}
        )
        kept = {o["id"]: o["currentValue"] for o in resumed["result"]["configOptions"]}
        assert kept["model"] == "demo-careful"
        assert (await client.request("session/close", {"sessionId": first}))["result"] == {}

"""`acp-tui check`: a scripted agent's real violations are reported (and only those); the SDK's
example agents come out clean."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tui.client.check import format_report, run_check
from tests.agents.scenarios import (
    client_request,
    end_turn,
    expect_prompt,
    initialize_ok,
    new_session_ok,
    update,
    write_scenario,
)
from tests.integration.test_third_party_agent import sdk_examples  # noqa: F401 (fixture)

pytestmark = pytest.mark.timeout(60)

PERMISSION = {
    "sessionId": "sess-1",
    "toolCall": {"toolCallId": "t1"},  # only its id: allowed
    "options": [
        {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
        {"optionId": "no", "name": "Reject", "kind": "reject_once"},
    ],
}


def steps() -> list[dict[str, Any]]:
    return [
        initialize_ok(),
        new_session_ok(
            modes={"availableModes": [{"id": "ask", "name": "Ask"}], "currentModeId": "ask"}
        ),
        expect_prompt(),
        update(
            "sess-1",
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "t1",
                "title": "Edit",
                "kind": "edit",
                "locations": [{"path": "src/app.py"}],
                "content": [{"type": "diff", "path": "/w/a", "oldText": None, "newText": "x"}],
            },
        ),
        update("sess-1", {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Edit"}),
        client_request("session/request_permission", PERMISSION, save_as="perm"),
        update("sess-1", {"sessionUpdate": "hologram"}),
        end_turn(),
    ]


async def test_check_reports_what_is_outside_the_schema_and_nothing_else(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, steps())
    report = await run_check(agent.argv, prompt="go", policy="reject", cwd=tmp_path)
    assert report.error is None
    assert report.protocol_version == 1
    assert report.modes == ["ask"]
    assert report.stop_reason == "end_turn"
    assert report.permission_answers == ["reject_once no"]
    assert [(m["kind"], m["detail"]) for m in report.marks] == [
        ("relative path", "tool_call location 'src/app.py'"),
        ("unknown variant", "session/update: session update 'hologram'"),
    ]
    assert not report.ok
    text = format_report(report)
    assert "2 marks (1 relative path, 1 unknown variant)" in text
    assert "schema:           the frames fit ACP v1 1.21 (August 2026)" in text
    assert set(report.timings_ms) == {"initialize", "session/new", "session/prompt"}


async def test_check_says_which_schema_the_frames_fit(tmp_path: Path) -> None:
    """An agent of the current schema is clean, and `check` says it needs its unstable part;
    its `mcp/message` is answered "method not found" and the turn goes on to its end."""
    agent = write_scenario(
        tmp_path,
        [
            initialize_ok(),
            new_session_ok(),
            expect_prompt(),
            update("sess-1", {"sessionUpdate": "tool_call", "toolCallId": "t1",
                              "title": "Run ls", "name": "Bash"}),
            update("sess-1", {"sessionUpdate": "subagent_update", "sessionId": "child",
                              "title": "Explore", "state": {"state": "running"}}),
            update("child", {"sessionUpdate": "agent_message_chunk",
                             "content": {"type": "text", "text": "looking"}}),
            client_request("mcp/message", {"serverId": "srv", "requestId": "r1",
                                           "method": "tools/list"}, save_as="mcp"),
            end_turn(),
        ],
    )  # fmt: skip
    report = await run_check(agent.argv, prompt="go", cwd=tmp_path)
    assert report.error is None and report.marks == [] and report.ok
    assert report.stop_reason == "end_turn"
    assert report.schema == (
        "ACP v1, current with its unstable part (SDK 2.4.0) (for mcp/message, subagent_update)"
    )
    errors = [f["error"] for f in agent.transcript() if isinstance(f, dict) and "error" in f]
    assert [error["code"] for error in errors] == [-32601], errors


def test_check_command_line_json_and_exit_status(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, steps())
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "acp_tui",
            "check",
            "--prompt",
            "go",
            "--json",
            "--cwd",
            str(tmp_path),
            "--",
            *agent.argv,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["violations"] == 2
    assert report["mark_counts"] == {"relative path": 1, "unknown variant": 1}


@pytest.mark.interop  # the examples are downloaded from PyPI (see test_third_party_agent.py)
@pytest.mark.parametrize("example", ["echo_agent.py", "agent.py"])
async def test_sdk_example_agents_are_clean(
    sdk_examples: dict[str, Path],  # noqa: F811
    tmp_path: Path,
    example: str,
) -> None:
    report = await run_check(
        [sys.executable, str(sdk_examples[example])], prompt="hello", cwd=tmp_path
    )
    assert report.error is None, report.error
    assert report.marks == []
    assert report.ok
    assert report.stop_reason == "end_turn"


async def test_requests_with_ids_json_rpc_does_not_allow_are_answered_and_marked(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An object id broke the traffic store: `check` printed tracebacks and every later frame
    was summarised out of step. Each such request is answered -32600 with id null, marked, and
    the frames after it are read as usual."""
    from tests.agents.hostile import INVALID_IDS, SID, invalid_id_steps

    run = [initialize_ok(), new_session_ok(SID), *invalid_id_steps(), expect_prompt(), end_turn()]
    agent = write_scenario(tmp_path, run)
    report = await run_check(agent.argv, prompt="go", policy="allow", cwd=tmp_path)
    assert report.error is None and report.stop_reason == "end_turn"
    assert [(m["kind"], m["detail"]) for m in report.marks] == [
        ("invalid id", "id {…} (answered -32600)"),
        ("invalid id", "id […] (answered -32600)"),
        ("invalid id", "id True (answered -32600)"),
        ("invalid id", "id {…} (ignored)"),
    ]
    answers = [f for f in agent.transcript() if isinstance(f, dict) and "method" not in f]
    invalid = [a for a in answers if a.get("error", {}).get("code") == -32600]
    assert [a["id"] for a in invalid] == [None] * len(INVALID_IDS)
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]


async def test_check_offers_v2_and_judges_the_frames_by_the_v2_draft(tmp_path: Path) -> None:
    """`--protocol 2`: the demo answers v2; its permission question is answered by the policy
    (v2 asks through the permission broker), its frames fit the v2 draft and none is marked."""
    demo = [sys.executable, "-m", "acp_tui.demo.agent"]
    report = await run_check(demo, prompt="/edit", protocol=2, cwd=tmp_path)
    assert report.error is None, report.error
    assert report.protocol_version == 2
    assert report.permission_answers == ["allow_once allow-once"]
    assert report.stop_reason == "end_turn"
    assert "tour" in report.commands
    assert report.violations == 0, report.marks
    assert "ACP v2, the current draft" in report.schema
    assert "nothing outside the current ACP v2 draft" in format_report(report)

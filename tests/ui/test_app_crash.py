"""The agent dies: during initialize, mid-stream, with a permission pending. A banner says how,
nothing hangs, no traceback; ctrl+r starts it again and the session continues."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp_tui.client.events import SessionState
from acp_tui.demo import content
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.crash_banner import CrashBanner
from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
from tests.agents.scenarios import end_turn, expect_prompt, initialize_ok, new_session_ok
from tests.ui.app_harness import (
    SID,
    AppHarness,
    agent_runs,
    demo_argv,
    demo_env,
    fixed_cwd,
    plain,
    run_app,
    session_with_modes,
    upd,
)
from tests.ui.conversation_text import live_card


async def crashed(h: AppHarness) -> str:
    await h.until(lambda: h.session.state is SessionState.CRASHED, "the crash")
    banner = h.one(CrashBanner)
    await h.until(lambda: banner.has_class("-visible"), "the crash banner")
    return plain(banner)


async def test_crash_during_initialize_shows_code_and_stderr_then_restarts(
    tmp_path: Path,
) -> None:
    first: list[dict[str, Any]] = [{"stderr": "fatal: config file is broken\n"}, {"exit": 3}]
    second = [initialize_ok(), new_session_ok("s-again"), expect_prompt(), end_turn()]
    argv = agent_runs(tmp_path, first, second)
    async with run_app(argv, fixed_cwd(tmp_path), wait_ready=False) as h:
        text = await crashed(h)
        assert "exited with code 3" in text and "(during initialize)" in text
        assert "fatal: config file is broken" in text
        assert "ctrl+r" in text
        assert "Traceback" not in h.screen_text()
        await h.pilot.press("ctrl+r")
        await h.ready()
        assert not h.one(CrashBanner).has_class("-visible")
        assert h.session.session_id == "s-again"
        await h.prompt("hello again")


async def test_an_agent_whose_npm_version_does_not_exist_is_not_offered_a_restart(
    tmp_path: Path,
) -> None:
    """Issue 39, 10: a registry agent pinned to a version npm does not have: its only way
    forward was ctrl+r, which fails the same way. The banner says so and offers ctrl+t."""
    npm = (
        "npm error code ETARGET\n"
        "npm error notarget No matching version found for @acme/agent-acp@9.9.9.\n"
        "npm error notarget In most cases you or one of your dependencies are requesting\n"
    )
    argv = agent_runs(tmp_path, [{"stderr": npm}, {"exit": 1}])
    async with run_app(argv, fixed_cwd(tmp_path), wait_ready=False) as h:
        text = " ".join((await crashed(h)).split())
        assert "npm cannot install @acme/agent-acp@9.9.9: restarting would fail" in text
        assert "ctrl+t another agent or version" in text
        assert "ctrl+r" not in text


async def test_demo_crash_mid_stream_then_restart_reloads_the_session(tmp_path: Path) -> None:
    async with run_app(demo_argv(), fixed_cwd(tmp_path), env=demo_env()) as h:
        session_id = h.session.session_id
        await h.type_prompt("/crash")
        text = await crashed(h)
        assert "exited with code 3" in text and "(during prompt)" in text
        for line in content.CRASH_STDERR[-2:]:
            assert line.strip() in text
        await h.until(lambda: not h.session.turn_running, "the turn to end after the crash")
        assert "Traceback" not in h.screen_text().split("last lines of its stderr")[0]
        await h.pilot.press("ctrl+r")
        await h.ready()
        (load,) = h.sent_methods("session/load")
        assert load["params"]["sessionId"] == session_id
        assert any("session reloaded" in n for n in h.notified)
        await h.prompt("/help")
        assert h.session.state is SessionState.READY


PERMISSION = {
    "sessionId": SID,
    "toolCall": {"toolCallId": "t1", "title": "Write out.txt", "kind": "edit"},
    "options": [{"optionId": "ok", "name": "Allow", "kind": "allow_once"}],
}
DIES_WAITING_FOR_PERMISSION = [
    initialize_ok(),
    session_with_modes(),
    expect_prompt(),
    upd("tool_call", toolCallId="t1", title="Write out.txt", kind="edit", status="pending"),
    # nobody answers within the agent's patience: it exits (code 97) with a message
    {"request": "session/request_permission", "params": PERMISSION, "timeout": 1},
]


async def test_crash_while_a_permission_is_pending(tmp_path: Path) -> None:
    second = [initialize_ok(), new_session_ok("s-2"), expect_prompt("p"), end_turn("p")]
    argv = agent_runs(tmp_path, DIES_WAITING_FOR_PERMISSION, second)
    async with run_app(argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("write it")
        text = await crashed(h)
        assert "exited with code 97" in text
        assert "no answer to 'session/request_permission'" in text
        await h.until(lambda: not h.session.turn_running, "the turn to end")
        assert h.session.thread.tool_calls["t1"].status == "cancelled"
        conversation = h.one(ConversationView)
        card = await live_card(h.pilot, conversation, h.session.thread.tool_calls["t1"].id)
        await h.until(lambda: "⊘ cancelled" in card.header, "card")
        assert h.session.permissions.pending == []
        # typed while crashed: queued, sent once the agent is back (a new session: no load)
        await h.type_prompt("try again")
        await h.until(lambda: h.session.queue, "the prompt queued")
        await h.pilot.press("ctrl+r")
        await h.until(lambda: len(h.sent_methods("session/prompt")) == 2, "the queued prompt")
        await h.settle()
        assert h.sent_methods("session/load") == []
        assert h.session.session_id == "s-2"
        assert h.sent_methods("session/prompt")[-1]["params"]["prompt"][0]["text"] == "try again"
        assert any("new session started" in n for n in h.notified)


async def test_permission_prompt_closes_as_cancelled_when_the_agent_dies(tmp_path: Path) -> None:
    argv = agent_runs(tmp_path, DIES_WAITING_FOR_PERMISSION)
    async with run_app(argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("write it")
        await crashed(h)
        await h.until(lambda: not h.session.turn_running, "the turn to end")
        await h.until(lambda: h.session.thread.tool_calls, "the card")
        card = await live_card(
            h.pilot, h.one(ConversationView), h.session.thread.tool_calls["t1"].id
        )
        await h.until(lambda: not h.all(PermissionPrompt), "the prompt to close", seconds=3)
        (ask,) = card.entry.permissions
        assert ask.answer is not None and "⊘ cancelled" in ask.answer
        assert ask.answer in card.text, "the answer is drawn in the card"


async def test_a_crash_between_turns_says_while_idle_not_the_last_request(
    tmp_path: Path,
) -> None:
    """The phase is reset once the session is open and after each turn (it said "during
    session/new" for an agent that died long after)."""
    first = [initialize_ok(), new_session_ok("s1"), expect_prompt(), end_turn(), {"exit": 5}]
    argv = agent_runs(tmp_path, first)
    async with run_app(argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("hello")
        text = await crashed(h)
        assert "exited with code 5" in text and "(while idle)" in text
        assert "during" not in text.split("\n")[0]

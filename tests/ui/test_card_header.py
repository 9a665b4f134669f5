"""A tool call card's header (its time, and the time it waited for the user) and how a failed
call's error output is drawn: the line-drawing functions on entries a thread reduced."""

from __future__ import annotations

import re
from typing import Any

from acp_tui.protocol.models import text_block
from acp_tui.thread.entries import ToolCallEntry
from acp_tui.thread.permission import PermissionAsk
from acp_tui.thread.thread import Thread
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.raw_output import readable_raw, readable_text
from acp_tui.ui.widgets.tool_call_card import ToolCallCard
from acp_tui.ui.widgets.tool_call_facts import header_text
from bench.turns import update
from tests.ui.test_card_lines import click_text
from tests.ui.test_conversation_window import headless_app, screen_text, settled
from tests.unit.thread_support import Clock, notify


def call(thread: Thread, **fields: Any) -> ToolCallEntry:
    update = {"sessionUpdate": "tool_call", "toolCallId": "t1", "status": "pending", **fields}
    notify(thread, update)
    return thread.tool_calls["t1"]


def status(thread: Thread, value: str, **fields: Any) -> None:
    update = {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": value, **fields}
    notify(thread, update)


def test_a_call_asked_about_shows_its_time_from_the_tool_call_and_the_wait_apart() -> None:
    """Asked at once, answered 11 s later, `completed` with no `in_progress`: the header said
    `✓ completed 0.0s`; it says how long the call took and how much of it waited for you."""
    clock = Clock()
    thread = Thread(clock=clock)
    entry = call(thread, title="Write hello.txt", kind="edit")
    clock.now = 100.2
    thread.ask_permission("t1", PermissionAsk(1))
    clock.now = 105.5
    assert header_text(entry, clock.now).plain == "✎ Write hello.txt  ○ pending", "no clock yet"
    clock.now = 111.2
    thread.settle_permission("t1", 1, "✓ answered: Allow")
    clock.now = 112.4
    status(thread, "completed")
    shown = header_text(entry, 900.0).plain
    assert shown == "✎ Write hello.txt  ✓ completed 12s (waited 11s for you)"


def test_a_running_call_counts_from_its_tool_call_and_the_wait_so_far() -> None:
    clock = Clock()
    thread = Thread(clock=clock)
    entry = call(thread, title="Run tests", kind="execute")
    clock.now = 102.0
    status(thread, "in_progress")
    thread.ask_permission("t1", PermissionAsk(1))
    clock.now = 105.0
    assert header_text(entry, clock.now).plain == "▶ Run tests  ◐ running 5s (waited 3s for you)"


def test_a_call_nobody_was_asked_about_shows_its_time_alone() -> None:
    clock = Clock()
    thread = Thread(clock=clock)
    entry = call(thread, title="Read notes.txt", kind="read")
    clock.now = 100.4
    status(thread, "completed")
    assert header_text(entry, 900.0).plain == "⇲ Read notes.txt  ✓ completed 0.4s"
    auto = PermissionAsk(2, asked=False, answer="✓ allowed by rule")
    thread.ask_permission("t1", auto)
    assert header_text(entry, 900.0).plain == "⇲ Read notes.txt  ✓ completed 0.4s"


def test_the_tools_name_is_shown_beside_its_title() -> None:
    """`ToolCall.name` (current schema; claude-agent-acp 0.101 sends it) beside the title; an
    update that leaves it out keeps it, one that sends null keeps it too (unchanged), and a name
    the title already is is not said twice."""
    clock = Clock()
    thread = Thread(clock=clock)
    entry = call(thread, title="ls -la", kind="execute", name="Bash")
    assert header_text(entry, 100.0).plain == "▶ ls -la · Bash  ○ pending"
    status(thread, "in_progress", title="ls -la /tmp")
    status(thread, "in_progress", name=None)
    assert header_text(entry, 100.0).plain.startswith("▶ ls -la /tmp · Bash  ")
    call(thread, toolCallId="t2", title="Read", kind="read", name="Read")
    assert header_text(thread.tool_calls["t2"], 100.0).plain == "⇲ Read  ○ pending"
    call(thread, toolCallId="t3", title="x", name="\x1b[31mred")  # agent text: made safe
    assert "\x1b" not in header_text(thread.tool_calls["t3"], 100.0).plain


# ---- a failed call's error output ----------------------------------------------------------

PANIC = "\n".join(
    [
        "",
        "thread 'main' (25632) panicked at codex-rs/linux-sandbox/src/launcher.rs:43:13:",
        "bubblewrap is unavailable: no system bwrap was found on PATH",
        "stack backtrace:",
        *(f"  {n}: codex_linux_sandbox::frame_{n}" for n in range(20)),
        "note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.",
        "",
    ]
)
CODEX_FAILURE = {
    "status": "failed",
    "content": [{"type": "content", "content": {"type": "text", "text": f"```sh\n{PANIC}```\n"}}],
    "rawOutput": {
        "call_id": "call_1",
        "command": ["/bin/bash", "-lc", "echo shell-ok && ls"],
        "cwd": "/project",
        "stdout": PANIC,
        "stderr": "",
        "aggregated_output": PANIC,
        "exit_code": 101,
        "formatted_output": PANIC,
        "status": "failed",
    },
}


def test_raw_output_strings_are_lines_and_a_top_level_error_is_its_text() -> None:
    shown = readable_raw(CODEX_FAILURE["rawOutput"]).splitlines()
    assert "\\n" not in "".join(shown), "no escaped line breaks"
    assert shown[:5] == ["{", '  "call_id": "call_1",', '  "command": [', '    "/bin/bash",',
                         '    "-lc",']  # fmt: skip
    at = shown.index('  "stdout":')
    assert shown[at + 1 : at + 3] == [
        "    thread 'main' (25632) panicked at codex-rs/linux-sandbox/src/launcher.rs:43:13:",
        "    bubblewrap is unavailable: no system bwrap was found on PATH",
    ]
    assert '  "exit_code": 101,' in shown
    error = {"error": "request failed:\nrate limited", "code": 429}
    assert readable_raw(error) == 'request failed:\nrate limited\n\n{\n  "code": 429\n}'
    assert readable_raw({"error": {"message": "bad key", "type": "auth"}}).startswith("bad key\n")
    assert readable_raw({"message": "gone"}) == "gone"
    assert readable_raw('{"error": "as a JSON string"}') == "as a JSON string"
    assert readable_raw("line one\\nline two\\nline three") == "line one\nline two\nline three"
    assert readable_raw("C:\\new") == "C:\\new", "one escape-like pair is no encoded text"
    assert readable_raw({"error": "\x1b]52;c;eA==\x07 gotcha"}) == "␛]52;c;eA==␇ gotcha"
    assert readable_text('{"error": "first\\nsecond"}') == "first\nsecond"
    assert readable_text("Error: a\\nb\\nc") == "Error: a\nb\nc"


async def test_a_failed_codex_call_shows_its_error_readably_bounded_and_its_header() -> None:
    async with headless_app((140, 45)) as (app, pilot):
        conversation = app.screen.query_one(ConversationView)
        thread = app.session.thread
        thread.add_user_prompt([text_block("go")])
        thread.begin_turn()
        command = {"command": ["/bin/bash", "-lc", "echo shell-ok && ls"]}
        started = {"kind": "execute", "status": "in_progress", "rawInput": command}
        thread.apply_notification(
            update("tool_call", toolCallId="t", title="Run echo shell-ok", **started)
        )
        thread.apply_notification(update("tool_call_update", toolCallId="t", **CODEX_FAILURE))
        await settled(pilot, conversation)
        shown = screen_text(app)
        assert "▶ Run echo shell-ok  ✗ failed" in shown, "the header in view"
        assert "\\n" not in shown, "no escaped line breaks"
        assert "▼ raw output" in shown
        assert re.search(r"⋯ \d+ more lines \(click or e shows all\)", shown)
        assert "formatted_output" not in shown, "bounded: the first lines only"
        card = app.screen.query_one(ToolCallCard)
        assert len(card.text.splitlines()) < 40

        await click_text(app, pilot, "more lines (click")
        await settled(pilot, conversation)
        assert "more lines" not in card.text
        assert '"formatted_output":' in card.text and '"exit_code": 101,' in card.text

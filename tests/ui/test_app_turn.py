"""The turn: the prompt editor, queueing while the agent works, Esc to cancel, stop reasons."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Static

from acp_tui.client.events import SessionState
from acp_tui.thread.entries import MessageEntry
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.conversation_parts import is_user_message
from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.queue_view import QueuedItem, QueueView
from acp_tui.ui.widgets.status_bar import StatusBar
from acp_tui.ui.widgets.tool_call_card import ToolCallCard
from tests.agents.scenarios import (
    client_request,
    end_turn,
    expect_prompt,
    initialize_ok,
    write_scenario,
)
from tests.ui.app_harness import (
    SID,
    AppHarness,
    fixed_cwd,
    gate,
    one_turn,
    plain,
    run_app,
    session_with_modes,
    text,
    upd,
)
from tests.ui.conversation_text import entry_text, note_texts, thaw


def stop_reasons(h: AppHarness) -> list[str]:
    """The stop reasons the conversation shows (notes drawn with ■), frozen or live."""
    return [note for note in note_texts(h.one(ConversationView)) if note.startswith("■")]


def prompt_texts(h: AppHarness) -> list[str]:
    return [f["params"]["prompt"][0]["text"] for f in h.sent_methods("session/prompt")]


def turns(count: int) -> list[dict[str, Any]]:
    steps = [initialize_ok(), session_with_modes()]
    for _ in range(count):
        steps += [expect_prompt(), end_turn()]
    return steps


async def test_enter_sends_ctrl_j_adds_a_line_and_history_recalls(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, turns(2))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("line one\nline two")
        await h.until(lambda: prompt_texts(h), "the prompt to be sent")
        await h.settle()
        assert prompt_texts(h) == ["line one\nline two"]
        prompt = h.one(PromptInput)
        assert prompt.text == ""
        await h.prompt("again")
        assert prompt_texts(h) == ["line one\nline two", "again"]
        await h.type_prompt("draft", send=False)
        await h.pilot.press("up")
        assert prompt.text == "again"
        await h.pilot.press("home", "up")
        assert prompt.text == "line one\nline two"
        await h.pilot.press("down")  # cursor is on the last line
        assert prompt.text == "again"
        await h.pilot.press("down")
        assert prompt.text == "draft", "walking past the newest entry restores the draft"


async def test_prompts_typed_while_the_agent_works_are_queued_editable_and_removable(
    tmp_path: Path,
) -> None:
    steps = [
        initialize_ok(),
        session_with_modes(),
        expect_prompt("p1"),
        gate(),
        end_turn("p1"),
        expect_prompt("p2"),
        end_turn("p2"),
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("first")
        await h.until(lambda: h.session.turn_running, "the first turn")
        await h.type_prompt("second")
        await h.type_prompt("third")
        await h.type_prompt("fourth")
        await h.until(lambda: len(h.all(QueuedItem)) == 3, "three queued prompts")
        queue = h.one(QueueView)
        assert queue.has_class("-has-items")
        assert "queued (3)" in str(queue.border_title)
        assert [plain(i.query_one(Static)) for i in h.all(QueuedItem)] == [
            "⏳ second",
            "⏳ third",
            "⏳ fourth",
        ]
        assert "3 queued" in h.one(StatusBar).render().plain
        # remove "third" with x, take "fourth" back into the editor with e
        h.all(QueuedItem)[1].focus()
        await h.pilot.press("x")
        await h.until(lambda: len(h.all(QueuedItem)) == 2, "third removed")
        h.all(QueuedItem)[1].focus()
        await h.pilot.press("e")
        await h.until(lambda: len(h.all(QueuedItem)) == 1, "fourth taken back")
        prompt = h.one(PromptInput)
        assert prompt.text == "fourth" and prompt.has_focus
        prompt.clear()
        assert prompt_texts(h) == ["first"], "nothing is sent while the turn runs"
        await h.through_gates(1)
        await h.settle()
        assert prompt_texts(h) == ["first", "second"]
        assert not queue.has_class("-has-items")


async def test_escape_cancels_the_turn_at_once_and_keeps_listening(tmp_path: Path) -> None:
    permission = {
        "sessionId": SID,
        "toolCall": {"toolCallId": "t3", "title": "Delete build/", "kind": "delete"},
        "options": [
            {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
            {"optionId": "no", "name": "Reject", "kind": "reject_once"},
        ],
    }
    updates = [
        upd("tool_call", toolCallId="t1", title="Run tests", kind="execute", status="in_progress"),
        upd("tool_call", toolCallId="t2", title="Lint", kind="execute", status="pending"),
        upd("tool_call", toolCallId="t4", title="Read", kind="read", status="completed"),
        client_request("session/request_permission", permission, save_as="answer"),
        {"wait_cancel": True},
        upd("agent_message_chunk", content=text("Stopped as you asked.")),
        upd("tool_call_update", toolCallId="t1", status="completed"),
        upd("tool_call_update", toolCallId="t2", status="failed"),
    ]
    agent = write_scenario(tmp_path, one_turn(updates, stop_reason="cancelled"))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("clean up")
        await h.until(lambda: h.all(PermissionPrompt), "the permission prompt")
        await h.caught_up()
        at_cancel: dict[str, str] = {}

        def snapshot(event: object) -> None:
            if '"session/cancel"' in getattr(event, "raw", "") and not at_cancel:
                threads = h.session.thread.tool_calls.values()
                at_cancel.update({e.tool_call_id: e.status for e in threads})

        h.session.traffic.subscribe(snapshot)
        await h.pilot.press("escape")
        # at once: by the time session/cancel goes out, before the agent says anything more
        assert at_cancel == {
            "t1": "cancelled", "t2": "cancelled", "t3": "cancelled", "t4": "completed"
        }  # fmt: skip
        await h.settle()
        assert len(h.sent_methods("session/cancel")) == 1
        assert h.sent_methods("session/cancel")[0]["params"] == {"sessionId": SID}
        answers = [f for f in agent.transcript() if "result" in f and "outcome" in f["result"]]
        assert [a["result"]["outcome"] for a in answers] == [{"outcome": "cancelled"}]
        assert not h.all(PermissionPrompt), "the cancelled question is closed"
        conversation = h.one(ConversationView)
        asked = next(c for c in h.session.thread.tool_calls.values() if c.permissions)
        assert "⊘ cancelled" in entry_text(conversation, asked.id).split("\n", 2)[2], "the answer"
        # updates after the cancel were still applied
        messages = [
            e for e in h.session.thread.entries if isinstance(e, MessageEntry) and e.role == "agent"
        ]
        assert messages and messages[-1].text == "Stopped as you asked."
        # a real completion still counts; the agent's "failed" after our cancel is no news
        assert h.session.thread.tool_calls["t1"].status == "completed"
        assert h.session.thread.tool_calls["t2"].status == "cancelled"
        stops = stop_reasons(h)
        assert stops == ["■ cancelled"]
        card = await thaw(h.pilot, conversation, h.session.thread.tool_calls["t2"].id)
        assert isinstance(card, ToolCallCard)
        assert "⊘ cancelled" in card.header


async def test_refusal_marks_the_prompt_and_says_why(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, one_turn([], stop_reason="refusal"))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.prompt("do something bad")
        await h.caught_up()
        conversation = h.one(ConversationView)
        (user,) = [e for e in h.session.thread.entries if is_user_message(e)]
        assert conversation.view_state(user.id).not_kept is not None
        reason = "✖ the agent refused this prompt; it was not kept"
        assert reason in entry_text(conversation, user.id)
        stops = stop_reasons(h)
        assert stops == ["■ the agent refused to continue"]


async def test_stop_reasons_other_than_end_turn_are_shown(tmp_path: Path) -> None:
    steps = [
        initialize_ok(),
        session_with_modes(),
        expect_prompt(),
        end_turn(),
        expect_prompt(),
        end_turn(stop_reason="max_tokens"),
        expect_prompt(),
        end_turn(stop_reason="something_new"),
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        for prompt in ("one", "two", "three"):
            await h.prompt(prompt)
        await h.caught_up()
        stops = stop_reasons(h)
        assert stops == [
            "■ the agent stopped: it reached its token limit",
            "■ the turn stopped: something_new",
        ]


async def test_a_failed_prompt_request_is_a_notice_not_a_crash(tmp_path: Path) -> None:
    steps = [
        initialize_ok(),
        session_with_modes(),
        {"expect": "session/prompt", "error": {"code": -32603, "message": "model overloaded"}},
        expect_prompt(),
        end_turn(),
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.prompt("one")
        assert any("model overloaded" in n for n in h.notified)
        await h.prompt("two")
        assert prompt_texts(h) == ["one", "two"]


async def test_a_prompt_sent_while_the_agent_starts_goes_out_once_it_is_ready(
    tmp_path: Path,
) -> None:
    go = tmp_path / "go"  # the agent answers initialize only once the test has queued a prompt
    steps = [{"wait_file": str(go)}, *turns(1)]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path), wait_ready=False) as h:
        await h.type_prompt("typed before the agent was ready")
        await h.until(lambda: h.session.queue, "the prompt to be queued")
        assert h.session.state is not SessionState.READY and not prompt_texts(h)
        go.touch()
        await h.until(lambda: prompt_texts(h), "the queued prompt to be sent")
        await h.settle()
        assert prompt_texts(h) == ["typed before the agent was ready"]
        assert not h.session.queue


async def test_the_queues_buttons_take_only_their_labels_width_at_80_columns(
    tmp_path: Path,
) -> None:
    """At 80 columns Textual's 16-column minimum gave a queued prompt's "edit" and "✕" 32
    columns, its text what was left."""
    from textual.widgets import Button

    steps = [initialize_ok(), session_with_modes(), expect_prompt("p1"), gate(), end_turn("p1"),
             expect_prompt("p2"), end_turn("p2")]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path), size=(80, 24)) as h:
        await h.type_prompt("first")
        await h.until(lambda: h.session.turn_running, "the first turn")
        await h.type_prompt("second")
        await h.until(lambda: len(h.all(QueuedItem)) == 1, "a queued prompt")
        await h.pilot.pause()
        item = h.one(QueuedItem)
        widths = [button.outer_size.width for button in item.query(Button)]
        assert sum(widths) <= 12, widths
        assert item.query_one(Static).size.width >= item.size.width - 14
        await h.through_gates(1)
        await h.settle()

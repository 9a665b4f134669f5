"""The footer's keys keep their places when the focus moves: a permission question taking the
focus as a turn starts moved `f6 model` from first to eighth (the prompt's TextArea binds f6
too, and Textual lists a key where the focused widget lists it)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Footer

from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
from tests.agents.scenarios import (
    client_request,
    end_turn,
    expect_prompt,
    initialize_ok,
    write_scenario,
)
from tests.ui.app_harness import SID, AppHarness, fixed_cwd, run_app, session_with_modes, upd


def footer_keys(h: AppHarness) -> list[str]:
    """The descriptions of the keys the footer shows, left to right (a key it hides kept)."""
    footer = h.one(Footer)
    keys = footer.query("FooterKey")
    return [str(getattr(key, "description", "")) for key in keys if key.display]


async def test_the_footer_keeps_its_order_when_a_permission_question_takes_the_focus(
    tmp_path: Path,
) -> None:
    options = [{"optionId": "once", "name": "Allow", "kind": "allow_once"}]
    ask = {"sessionId": SID, "options": options, "toolCall": {"toolCallId": "t1"}}
    steps = [
        initialize_ok(),
        session_with_modes(),
        expect_prompt(),
        upd("tool_call", toolCallId="t1", title="Run ls", kind="execute", status="pending"),
        client_request("session/request_permission", ask, save_as="answer"),
        end_turn(),
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.until(lambda: footer_keys(h), "the footer's keys")
        before = footer_keys(h)
        assert before[:3] == ["help", "model", "mode"]
        assert "cancel turn" not in before and "restart agent" not in before, "nothing to do"
        await h.type_prompt("go")
        await h.until(
            lambda: h.all(PermissionPrompt) and h.one(PermissionPrompt).has_focus_within,
            "the question to take the focus",
        )
        await h.pilot.pause()
        during = footer_keys(h)
        assert "cancel turn" in during, "a turn runs: esc cancels it"
        shared = [key for key in during if key in before]
        assert shared == [key for key in before if key in during], (before, during)
        assert during.index("model") < during.index("mode") < during.index("sessions")
        await h.pilot.press("a")
        await h.settle()
        assert footer_keys(h) == before


async def test_the_footer_shows_the_keys_of_what_has_the_focus(tmp_path: Path) -> None:
    from acp_tui.ui.widgets.conversation import ConversationView
    from tests.ui.app_harness import one_turn
    from tests.ui.conversation_text import focus_entry

    updates = [upd("tool_call", toolCallId="c1", title="Read a.py", kind="read",
                   status="completed")]  # fmt: skip
    agent = write_scenario(tmp_path, one_turn(updates))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.prompt("q")
        assert "open entry" not in footer_keys(h)
        conversation = h.one(ConversationView)
        await focus_entry(h.pilot, conversation, h.session.thread.tool_calls["c1"].id)
        await h.pilot.pause()
        keys = footer_keys(h)
        assert keys[0] == "open entry", keys
        assert "help" in keys and "full diff" not in keys, "no diff: no d"

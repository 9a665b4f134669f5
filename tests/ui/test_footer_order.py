"""The footer's keys keep their places when the focus moves: a permission question taking the
focus as a turn starts moved `f6 model` from first to eighth (the prompt's TextArea binds f6
too, and Textual lists a key where the focused widget lists it)."""

from __future__ import annotations

from itertools import pairwise
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


def drawn_keys(h: AppHarness) -> list[tuple[str, int, int]]:
    """The keys the footer draws (those its layout placed): description, first cell and the
    cell after it, left to right (the palette's, docked at the right, last)."""
    footer = h.one(Footer)
    return sorted(
        ((str(getattr(key, "description", "")), key.region.x, key.region.right)
         for key in footer.query("FooterKey") if key.display and key.region),
        key=lambda drawn: drawn[1],
    )  # fmt: skip


async def test_at_80_columns_the_footer_keeps_the_main_keys_whole_and_points_to_f1(
    tmp_path: Path,
) -> None:
    """At 80 columns no key is cut or drawn over: f5 sessions gives way first, new session and
    quit stay whole, and f1 says there is more; at 160 every key shows again, and at 80 the
    footer is as it was."""
    agent = write_scenario(tmp_path, [initialize_ok(), session_with_modes()])
    async with run_app(agent.argv, fixed_cwd(tmp_path), size=(80, 24)) as h:
        await h.until(lambda: "new session" in footer_keys(h), "the footer's keys")
        await h.pilot.pause()
        drawn = drawn_keys(h)
        names = [name for name, _, _ in drawn]
        assert names[0] == "more" and "sessions" not in names
        assert {"model", "mode", "quit", "new session", "palette"} <= set(names)
        assert all(end <= 80 for _, _, end in drawn)
        assert all(end <= start for (_, _, end), (_, start, _) in pairwise(drawn))
        await h.pilot.resize_terminal(160, 40)
        await h.until(lambda: "sessions" in [name for name, _, _ in drawn_keys(h)], "every key")
        assert drawn_keys(h)[0][0] == "help"
        await h.pilot.resize_terminal(80, 24)  # (an arrangement Textual kept for 80 columns)
        await h.until(lambda: "sessions" not in [n for n, _, _ in drawn_keys(h)], "80 again")
        await h.pilot.pause()
        assert drawn_keys(h)[0][0] == "more" and "f1 more" in h.screen_text().splitlines()[-1]

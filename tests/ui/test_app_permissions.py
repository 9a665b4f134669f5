"""Permission requests at their tool call, answered with keys, against the demo agent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp_tui.demo.sample_project import create_sample_project
from acp_tui.thread.entries import ToolCallEntry
from acp_tui.ui.screens.review_screen import WriteReviewScreen
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
from acp_tui.ui.widgets.tool_call_card import ToolCallCard
from tests.ui.app_harness import AppHarness, demo_argv, demo_env, fixed_cwd, run_app
from tests.ui.conversation_text import live_card


def project(tmp_path: Path) -> Path:
    cwd = fixed_cwd(tmp_path)
    create_sample_project(cwd)
    return cwd


def permission_answers(h: AppHarness) -> list[dict[str, Any]]:
    return [f["result"]["outcome"] for f in h.sent if "result" in f and "outcome" in f["result"]]


async def edit_card(h: AppHarness) -> ToolCallCard:
    """The edit's card, live (thawed by Enter if its turn ended and froze it)."""

    def edit() -> ToolCallEntry | None:
        calls = h.session.thread.tool_calls.values()
        return next((c for c in calls if c.title == "Edit src/app.py"), None)

    await h.until(edit, "the card")
    entry = edit()
    assert entry is not None
    return await live_card(h.pilot, h.one(ConversationView), entry.id)


async def test_allow_once_with_a_writes_the_file(tmp_path: Path) -> None:
    cwd = project(tmp_path)
    before = (cwd / "src" / "app.py").read_text()
    async with run_app(demo_argv(), cwd, env=demo_env()) as h:
        await h.type_prompt("/edit")
        await h.until(lambda: h.all(PermissionPrompt), "the permission prompt")
        card = await edit_card(h)
        (prompt,) = h.all(PermissionPrompt)
        assert prompt in card.query(PermissionPrompt), "the prompt sits in its tool call's card"
        await h.until(lambda: prompt.has_focus_within, "the prompt to take focus")
        assert "Allow (a)" in h.screen_text() and "Always reject edits (R)" in h.screen_text()
        await h.pilot.press("a")
        await h.settle()
        assert permission_answers(h) == [{"outcome": "selected", "optionId": "allow-once"}]
        assert not h.all(PermissionPrompt), "the answered prompt becomes the card's lines"
        await h.until(lambda: not h.session.turn_running, "the turn's end")
        await h.settle()  # (its entries frozen: the card is read thawed, not while it freezes)
        card = await edit_card(h)
        assert "✓ answered: Allow" in card.text
        assert (cwd / "src" / "app.py").read_text() != before
        assert card.entry.status == "completed"


async def test_reject_with_r_fails_the_call_and_leaves_the_file(tmp_path: Path) -> None:
    cwd = project(tmp_path)
    before = (cwd / "src" / "app.py").read_text()
    async with run_app(demo_argv(), cwd, env=demo_env()) as h:
        await h.type_prompt("/edit")
        await h.until(lambda: h.all(PermissionPrompt), "the permission prompt")
        (prompt,) = h.all(PermissionPrompt)
        await h.until(lambda: prompt.has_focus_within, "the prompt to take focus")
        await h.pilot.press("r")
        await h.settle()
        assert permission_answers(h) == [{"outcome": "selected", "optionId": "reject-once"}]
        assert (cwd / "src" / "app.py").read_text() == before
        card = await edit_card(h)
        assert card.entry.status == "failed"
        assert card.has_class("-failed")


async def test_allow_always_is_not_asked_again(tmp_path: Path) -> None:
    cwd = project(tmp_path)
    async with run_app(demo_argv(), cwd, env=demo_env()) as h:
        await h.type_prompt("/edit")
        await h.until(lambda: h.all(PermissionPrompt), "the permission prompt")
        (prompt,) = h.all(PermissionPrompt)
        await h.until(lambda: prompt.has_focus_within, "the prompt to take focus")
        await h.pilot.press("A")
        await h.settle()
        await h.type_prompt("/edit")
        # the demo agent remembers the "always" and asks no more; its write, which no answer of
        # the user's covered, is held for review (issue 39, 16)
        await h.until(lambda: isinstance(h.app.screen, WriteReviewScreen), "the held write")
        assert permission_answers(h) == [{"outcome": "selected", "optionId": "allow-always"}]
        assert not h.all(PermissionPrompt), "the second edit was not asked"


async def test_arrows_and_enter_choose_a_button(tmp_path: Path) -> None:
    cwd = project(tmp_path)
    async with run_app(demo_argv(), cwd, env=demo_env()) as h:
        await h.type_prompt("/edit")
        await h.until(lambda: h.all(PermissionPrompt), "the permission prompt")
        (prompt,) = h.all(PermissionPrompt)
        await h.until(lambda: prompt.has_focus_within, "the prompt to take focus")
        await h.pilot.press("right", "right", "enter")  # Allow → Always allow → Reject
        await h.settle()
        assert permission_answers(h) == [{"outcome": "selected", "optionId": "reject-once"}]

"""At 80 by 24 everything can be used: the sidebar hides (the conversation would get 42 columns
beside it), a permission card shows every option whole (the buttons go in two columns instead of
running off the screen) with a short key hint, and the footer keeps the keys that matter."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Button

from acp_tui.ui.first_frame import shows_sidebar
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
from acp_tui.ui.widgets.sidebar import Sidebar
from acp_tui.ui.widgets.status_bar import StatusBar
from tests.agents.scenarios import client_request, initialize_ok, new_session_ok, write_scenario
from tests.ui.app_harness import SID, fixed_cwd, one_turn, run_app, upd

OPTIONS = [
    {"optionId": "once", "name": "Allow", "kind": "allow_once"},
    {"optionId": "always", "name": "Always allow edits", "kind": "allow_always"},
    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
    {"optionId": "never", "name": "Always reject edits", "kind": "reject_always"},
]


async def test_at_80_by_24_the_conversation_gets_the_width_and_the_footer_its_keys(
    tmp_path: Path,
) -> None:
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    assert not shows_sidebar(80) and not shows_sidebar(117) and shows_sidebar(118)
    async with run_app(agent.argv, fixed_cwd(tmp_path), size=(80, 24)) as h:
        assert not h.one(Sidebar).display, "the conversation would get less than 80 columns"
        assert h.one(ConversationView).size.width >= 78
        footer = h.screen_text().splitlines()[-1]
        # (f5 sessions gives way: f1, which lists every key, says there are more)
        for key in ("f1 more", "f2 changes", "^q quit", "^t new session", "^p palette"):
            assert key in footer, footer


async def test_a_permission_card_shows_every_option_whole_at_80_by_24(tmp_path: Path) -> None:
    cwd = fixed_cwd(tmp_path)
    where = [{"path": str(cwd / "src" / "app.py")}]  # (a call on a file: "always" is offered)
    call = {"toolCallId": "t1", "title": "Edit src/app.py", "kind": "edit", "locations": where}
    params = {"sessionId": SID, "toolCall": call, "options": OPTIONS}
    steps = one_turn([
        upd("tool_call", **call, status="pending"),
        client_request("session/request_permission", params, save_as="answer"),
    ])  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, cwd, size=(80, 24)) as h:
        await h.type_prompt("edit it")
        await h.until(lambda: h.all(PermissionPrompt), "the permission card")
        await h.pilot.pause()
        prompt = h.one(PermissionPrompt)
        screen = h.app.screen.region
        for button in prompt.query(Button).results(Button):
            region = button.region
            assert screen.contains_region(region), (str(button.label), region)
            assert region.width >= len(str(button.label)), f"{button.label} is cut: {region}"
        text = h.screen_text()
        for option in OPTIONS:
            assert option["name"] in text, option["name"]
        hint = [s for s in prompt.query(".hint").results()]
        assert hint and hint[0].region.height <= 2, "the key hint in a line or two"
        bar = h.one(StatusBar)
        bar.title, bar.model, bar.thought = "Fix the flaky test in CI", "Claude Opus 4.1", "High"
        await h.pilot.pause()
        status = h.screen_text().splitlines()[-2]
        assert "working" in status, f"the running turn shows however narrow: {status}"
        assert "mode: Ask" in status and "High" not in status, "the least needed part went first"
        footer = text.splitlines()[-1]
        assert "a allow once" in footer, f"the focused card's keys in the footer: {footer}"
        for key in ("f1 more", "esc cancel turn", "^q quit", "^t new session"):
            assert key in footer, f"whole, the card's keys giving way from the right: {footer}"

"""The agent's account and login state in the sidebar: asked with `auth/status` where offered,
followed through `auth/status_update` and claude-agent-acp's `_auth/status_update`, with
"Log out…" where the agent offers `logout`."""

from __future__ import annotations

from pathlib import Path

from acp_tui.ui.widgets.account_section import AccountSection
from tests.agents.scenarios import initialize_ok, new_session_ok, write_scenario
from tests.ui.app_harness import AppHarness, fixed_cwd, run_app

ACCOUNTS = {
    "state": "authenticated",
    "accounts": [
        {"label": "work", "email": "me@example.com", "active": True},
        {"label": "\x1b[31mhome", "active": False},
    ],
}


def shown(h: AppHarness) -> str:
    status = h.session.auth_status
    return "\n".join([status.state_text, *status.accounts]) if status is not None else ""


async def test_the_account_is_asked_followed_and_shown(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, [
        initialize_ok(auth={"status": {}, "logout": {}}),
        {"expect": "auth/status", "respond": ACCOUNTS},
        new_session_ok(),
        {"notify": "auth/status_update", "params": {"state": "unauthenticated", "accounts": []}},
        {"wait_file": "go"},
        {"notify": "_auth/status_update", "params": {"authStatus": {
            "kind": "api_key", "label": "Anthropic API key", "detail": "ANTHROPIC_API_KEY"}}},
    ])  # fmt: skip
    cwd = fixed_cwd(tmp_path)
    async with run_app(agent.argv, cwd) as h:
        section = h.one(AccountSection)
        await h.until(lambda: h.session.auth_status is not None, "the login state")
        await h.until(lambda: "not logged in" in shown(h), "the update")
        await h.settle()
        assert "not logged in" in h.screen_text()
        assert section.display
        assert section.query_one("#account-logout").display  # the agent offers logout
        assert section.query_one("#account-login").display is False  # (no login methods)
        assert h.sent_methods("auth/status")
        (cwd / "go").write_text("")
        await h.until(lambda: "Anthropic API key" in shown(h), "claude's status")
        assert shown(h) == "logged in\nAnthropic API key (ANTHROPIC_API_KEY)"
        await h.settle()
        assert "Anthropic API key" in h.screen_text()  # (wrapped in the sidebar)


def test_the_schemas_accounts_read_safely() -> None:
    from acp_tui.client.auth_status import read_status

    status = read_status(ACCOUNTS)
    assert status is not None and status.logged_in
    assert status.accounts[0] == "● work — me@example.com"
    assert "\x1b" not in status.accounts[1]
    assert read_status({"state": 3}) is None and read_status("x") is None


async def test_log_in_from_the_account_section(tmp_path: Path) -> None:
    """Not logged in, with a login the agent offers: "Log in…" (Enter on it) asks which way,
    `authenticate` is sent, the state is asked again and the section shows it, its "Log in…"
    gone."""
    from acp_tui.ui.screens.auth import AuthMethodScreen
    from acp_tui.ui.widgets.account_section import AccountAction

    init = initialize_ok(auth={"status": {}})
    init["respond"]["authMethods"] = [{"id": "api-key", "name": "API key"}]
    agent = write_scenario(tmp_path, [
        init,
        {"expect": "auth/status", "respond": {"state": "unauthenticated", "accounts": []}},
        new_session_ok(),
        {"expect": "authenticate", "match": {"methodId": "api-key"}, "respond": {}},
        {"expect": "auth/status", "respond": ACCOUNTS},
    ])  # fmt: skip
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        section = h.one(AccountSection)
        await h.until(lambda: "not logged in" in shown(h), "the login state")
        await h.settle()
        login = section.query_one("#account-login", AccountAction)
        assert login.display and "Log in…" in h.screen_text()
        login.focus()
        await h.pilot.press("enter")
        await h.until(lambda: isinstance(h.app.screen, AuthMethodScreen), "the login choice")
        # the user asked: nothing says the agent demanded it, esc only cancels
        asked = h.screen_text()
        assert "needs you" not in asked and "give up" not in asked
        assert "Log in to" in asked and "esc cancel" in asked
        assert h.app.current_tab.ui.pending == 0, "nothing waits on the user: not 'needs you'"
        await h.pilot.press("enter")
        await h.until(lambda: h.sent_methods("authenticate"), "the login sent")
        await h.until(lambda: shown(h).startswith("logged in"), "the state asked again")
        await h.settle()
        assert login.display is False
        assert "me@example.com" in h.screen_text()
        assert len(h.sent_methods("auth/status")) == 2


async def test_no_account_row_is_built_until_the_agent_tells_a_state(tmp_path: Path) -> None:
    """Most agents tell none: the section's rows (two of them focusable, with their own CSS) were
    built, styled and laid out for the first frame, hidden."""
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        section = h.one(AccountSection)
        assert h.session.auth_status is None
        assert not section.display
        assert list(section.children) == []


async def test_a_terminal_login_the_user_asked_for_does_not_say_needs_you(tmp_path: Path) -> None:
    """The login command of a "Log in…": its terminal waits on the user, not the user on it. Its
    tab read "needs you" (the login choice before it did not)."""
    from acp_tui.ui.screens.auth import AuthMethodScreen, LoginTerminalScreen
    from acp_tui.ui.widgets.account_section import AccountAction
    from acp_tui.ui.workspace.tab import TabState

    init = initialize_ok(auth={"status": {}})
    init["respond"]["authMethods"] = [{
        "id": "term", "name": "In a terminal", "type": "terminal",
        "args": ["-c", "import sys; sys.stdin.readline()"],  # (the agent's program: Python)
    }]  # fmt: skip
    agent = write_scenario(tmp_path, [
        init,
        {"expect": "auth/status", "respond": {"state": "unauthenticated", "accounts": []}},
        new_session_ok(),
    ])  # fmt: skip
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.until(lambda: "not logged in" in shown(h), "the login state")
        await h.settle()
        h.one(AccountSection).query_one("#account-login", AccountAction).focus()
        await h.pilot.press("enter")
        await h.until(lambda: isinstance(h.app.screen, AuthMethodScreen), "the login choice")
        await h.pilot.press("enter")
        await h.until(lambda: isinstance(h.app.screen, LoginTerminalScreen), "the terminal")
        tab = h.app.current_tab
        assert tab.ui.pending == 0 and tab.state is not TabState.NEEDS_YOU
        await h.pilot.press("ctrl+g")  # (abandoned)
        await h.until(lambda: not isinstance(h.app.screen, LoginTerminalScreen), "abandoned")

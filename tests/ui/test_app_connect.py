"""Connecting and authenticating, through the whole app against real agent processes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import OptionList

from acp_tui.client.events import SessionState
from acp_tui.ui.screens.auth import AuthMethodScreen
from tests.agents.scenarios import initialize_ok, new_session_ok, write_scenario
from tests.ui.app_harness import AppHarness, demo_argv, demo_env, fixed_cwd, run_app

AUTH_METHODS = [
    {"id": "token", "name": "API token", "description": "Use the token in $DEMO_TOKEN"},
    {"id": "browser", "name": "Browser login", "description": "Log in with your account"},
]


def initialize_with_auth() -> dict[str, Any]:
    return {
        "expect": "initialize",
        "respond": {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": AUTH_METHODS},
    }


def auth_required() -> dict[str, Any]:
    return {
        "expect": "session/new",
        "error": {"code": -32000, "message": "Authentication required"},
    }


async def wait_login_screen(h: AppHarness, text: str) -> None:
    await h.until(
        lambda: isinstance(h.app.screen, AuthMethodScreen) and text in h.screen_text(),
        f"the login screen showing {text!r}",
    )


async def wait_exited(h: AppHarness) -> None:
    await h.until(lambda: h.app.return_code is not None, "the app to exit")


async def test_initialize_and_new_session_carry_what_acp_asks_for(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok("s-1")])
    cwd = fixed_cwd(tmp_path)
    async with run_app(agent.argv, cwd) as h:
        assert h.session.session_id == "s-1"
        (init,) = h.sent_methods("initialize")
        params = init["params"]
        assert params["protocolVersion"] == 1
        assert params["clientInfo"]["name"] == "acp-tui"
        assert params["clientInfo"]["version"]
        caps = params["clientCapabilities"]
        assert caps["fs"] == {"readTextFile": True, "writeTextFile": True}
        assert caps["terminal"] is True
        # every capability offered is implemented (tests/integration/test_capabilities.py)
        assert caps["session"] == {
            "configOptions": {"boolean": {}},
            "compaction": {},
            "notices": {},
        }
        assert caps["plan"] == {}
        assert caps["subagents"] == {}
        (new,) = h.sent_methods("session/new")
        assert new["params"]["cwd"] == str(cwd.resolve())
        assert Path(new["params"]["cwd"]).is_absolute()
        assert new["params"]["mcpServers"] == []
        assert h.validator.checked >= 2
    # the agent saw the same frames, in order
    methods = [f.get("method") for f in agent.transcript() if "method" in f]
    assert methods[:2] == ["initialize", "session/new"]


async def test_relative_cwd_is_sent_absolute(tmp_path: Path, monkeypatch) -> None:
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    fixed_cwd(tmp_path)
    monkeypatch.chdir(tmp_path)
    async with run_app(agent.argv, Path("project")) as h:
        (new,) = h.sent_methods("session/new")
        assert new["params"]["cwd"] == str((tmp_path / "project").resolve())


async def test_unsupported_protocol_version_says_so_and_exits_cleanly(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, [initialize_ok(protocol_version=2)])
    async with run_app(agent.argv, fixed_cwd(tmp_path), wait_ready=False) as h:
        await wait_exited(h)
        assert h.app.return_value == 1
        message = h.app.exit_message or ""
        assert "version 2" in message and "version 1" in message
        assert h.session.state is SessionState.CLOSED
        assert h.sent_methods("session/new") == []


async def test_demo_login_is_offered_chosen_and_the_session_retried(tmp_path: Path) -> None:
    env = demo_env(ACP_TUI_DEMO_AUTH="1")
    async with run_app(demo_argv(), fixed_cwd(tmp_path), env=env, wait_ready=False) as h:
        await wait_login_screen(h, "Demo login")
        text = h.screen_text()
        assert "Pretend to log in (no key needed)" in text
        # the agent demanded it: the question says so, and esc gives the session up
        assert "needs you to log in" in text and "esc give up" in text
        assert h.app.current_tab.ui.pending == 1, "the session waits on the user"
        await h.pilot.press("enter")
        await h.ready()
        (auth,) = h.sent_methods("authenticate")
        assert auth["params"] == {"methodId": "demo-login"}
        assert len(h.sent_methods("session/new")) == 2
        assert h.session.session_id


async def test_failed_authentication_is_shown_and_another_method_can_be_picked(
    tmp_path: Path,
) -> None:
    steps = [
        initialize_with_auth(),
        auth_required(),
        {"expect": "authenticate", "error": {"code": -32000, "message": "token expired"}},
        {"expect": "authenticate", "respond": {}},
        new_session_ok("s-2"),
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path), wait_ready=False) as h:
        await wait_login_screen(h, "Browser login")
        text = h.screen_text()
        for method in AUTH_METHODS:
            assert method["name"] in text and method["description"] in text
        await h.pilot.press("enter")  # API token: refused
        await wait_login_screen(h, "token expired")
        assert "API token: token expired" in h.screen_text()
        assert "Traceback" not in h.screen_text()
        h.app.screen.query_one(OptionList).highlighted = 1
        await h.pilot.press("enter")  # Browser login: accepted
        await h.ready()
        assert [f["params"]["methodId"] for f in h.sent_methods("authenticate")] == [
            "token",
            "browser",
        ]
        assert h.session.session_id == "s-2"


async def test_giving_up_on_login_exits_with_a_reason(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, [initialize_with_auth(), auth_required()])
    async with run_app(agent.argv, fixed_cwd(tmp_path), wait_ready=False) as h:
        await wait_login_screen(h, "API token")
        await h.pilot.press("escape")
        await wait_exited(h)
        assert h.app.return_value == 1
        assert "authentication" in (h.app.exit_message or "")
        assert h.sent_methods("authenticate") == []


async def test_auth_required_without_methods_is_a_clear_failure(tmp_path: Path) -> None:
    steps = [initialize_ok(), auth_required()]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path), wait_ready=False) as h:
        await wait_exited(h)
        assert h.app.return_value == 1
        assert "Authentication required" in (h.app.exit_message or "")


async def test_session_new_error_is_shown_not_a_traceback(tmp_path: Path) -> None:
    steps = [
        initialize_ok(),
        {"expect": "session/new", "error": {"code": -32603, "message": "disk full"}},
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path), wait_ready=False) as h:
        await wait_exited(h)
        assert "session/new failed: disk full" in (h.app.exit_message or "")


async def test_session_new_answer_that_is_not_an_object_is_a_clear_failure(
    tmp_path: Path,
) -> None:
    # it used to leave the session "ready" with no session id: every prompt then went out
    # with "sessionId": null
    steps = [initialize_ok(), {"expect": "session/new", "respond": ["s-1"]}]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path), wait_ready=False) as h:
        await wait_exited(h)
        assert h.app.return_value == 1
        assert "the agent's session/new answer is not an object" in (h.app.exit_message or "")
        assert h.session.session_id is None


async def test_agent_that_cannot_be_spawned_is_reported(tmp_path: Path) -> None:
    # the CLI rejects missing or non-executable commands; a broken interpreter line gets through
    agent = tmp_path / "broken-agent"
    agent.write_text("#!/nonexistent/interpreter\n")
    agent.chmod(0o755)
    argv = [str(agent)]
    async with run_app(argv, fixed_cwd(tmp_path), wait_ready=False) as h:
        await wait_exited(h)
        assert h.app.return_value == 1
        assert "broken-agent" in (h.app.exit_message or "")


GEMINI_METHODS = [
    {"id": "oauth-personal", "name": "Log in with Google", "description": None},
    {"id": "gemini-api-key", "name": "Use Gemini API key",
     "description": "Requires setting the `GEMINI_API_KEY` environment variable"},
    {"id": "vertex-ai", "name": "Vertex AI", "description": None},
]  # fmt: skip


async def test_a_login_that_needs_an_api_key_says_which_variable_and_where(tmp_path: Path) -> None:
    """Issue 39, 10: Gemini CLI without a key. Picking "Use Gemini API key" failed, and Esc
    quit with "authentication is required and was not completed": no word of GEMINI_API_KEY or
    of `[agents.gemini] env`."""
    steps = [
        {"expect": "initialize", "respond": {"protocolVersion": 1, "agentCapabilities": {},
                                             "authMethods": GEMINI_METHODS}},
        auth_required(),
        {"expect": "authenticate",
         "error": {"code": -32000, "message": "Gemini API key is missing or not configured."}},
    ]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path), wait_ready=False) as h:
        h.session.preset_name = "gemini"
        await wait_login_screen(h, "Use Gemini API key")
        h.app.screen.query_one(OptionList).highlighted = 1
        await h.pilot.press("enter")
        await wait_login_screen(h, "missing or not configured")
        text = " ".join(h.screen_text().split())
        assert "GEMINI_API_KEY" in text and "[agents.gemini]" in text
        await h.pilot.press("escape")
        await wait_exited(h)
        message = h.app.exit_message or ""
        assert "authentication is required and was not completed" in message
        assert "Use Gemini API key needs GEMINI_API_KEY" in message
        assert '[agents.gemini] as env = { GEMINI_API_KEY = "…" }' in message

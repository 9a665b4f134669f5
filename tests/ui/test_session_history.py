"""Session history against the scripted agent: the picker (list, pages, search, delete, open),
resume vs load (replay), `--continue`, fork, close on quit, remembered sessions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Input, OptionList

from acp_tui.client.session.history import OpenRequest
from acp_tui.client.session.remembered import RememberedSessions
from acp_tui.client.session.session_summary import SessionSummary
from acp_tui.thread.entries import MessageEntry, ToolCallEntry
from acp_tui.ui.screens.main import MainScreen
from acp_tui.ui.screens.question import QuestionScreen
from acp_tui.ui.screens.session_picker import SessionPicker
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.workspace.tab import TabState
from tests.agents.scenarios import initialize_ok, new_session_ok, update, write_scenario
from tests.ui.app_harness import AppHarness, fixed_cwd, run_app
from tests.ui.test_settings_section import open_from_palette

ALL: dict[str, Any] = {"list": {}, "resume": {}, "close": {}, "delete": {}, "fork": {}}


def listed(session_id: str, title: str, updated: str | None = None) -> dict[str, Any]:
    item: dict[str, Any] = {"sessionId": session_id, "cwd": "$request.params.cwd", "title": title}
    if updated:
        item["updatedAt"] = updated
    return item


def picker_rows(h: AppHarness) -> list[str]:
    options = h.app.screen.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def highlight(h: AppHarness, text: str) -> None:
    options = h.app.screen.query_one(OptionList)
    index = next(i for i, row in enumerate(picker_rows(h)) if text in row)
    options.highlighted = index
    await h.pilot.pause()


async def test_picker_pages_searches_deletes_and_resumes(tmp_path: Path) -> None:
    steps = [
        initialize_ok(sessionCapabilities=ALL),  # resume, no load
        new_session_ok("sess-1"),
        {
            "expect": "session/list",
            "respond": {
                "sessions": [
                    listed("old-2", "Fix the parser", "2026-11-01T10:00:00Z"),
                    listed("old-3", "Write docs", "2026-10-30T08:00:00Z"),
                ],
                "nextCursor": "page-2",
            },
        },
        {
            "expect": "session/list",
            "match": {"cursor": "page-2"},
            "respond": {"sessions": [listed("old-4", "Ancient history")]},
        },
        {"expect": "session/delete", "match": {"sessionId": "old-4"}, "respond": {}},
        {"expect": "session/close", "match": {"sessionId": "sess-1"}, "respond": {}},
        {
            "expect": "session/resume",
            "match": {"sessionId": "old-2"},
            "respond": {
                "modes": {"currentModeId": "a", "availableModes": [{"id": "a", "name": "Agent"}]}
            },
        },
        {"expect": "session/close", "match": {"sessionId": "old-2"}, "respond": {}},
    ]
    agent = write_scenario(tmp_path, steps)
    cwd = fixed_cwd(tmp_path)
    async with run_app(agent.argv, cwd) as h:
        first_screen = h.app.screen
        await h.pilot.press("f5")
        await h.until(lambda: isinstance(h.app.screen, SessionPicker), "the picker")
        await h.until(lambda: any("Fix the parser" in r for r in picker_rows(h)), "page 1")
        (sent,) = h.sent_methods("session/list")
        assert sent["params"] == {"cwd": str(cwd.resolve())}
        rows = picker_rows(h)
        assert "Write docs" in rows[1] and "old-3" in rows[1]
        assert rows[-1] == "more…"

        await highlight(h, "more…")
        h.app.screen.query_one(OptionList).focus()
        await h.pilot.press("enter")
        await h.until(lambda: any("Ancient history" in r for r in picker_rows(h)), "page 2")
        assert "more…" not in picker_rows(h)

        h.app.screen.query_one(Input).focus()
        await h.pilot.press(*"ancient")
        await h.until(lambda: len(picker_rows(h)) == 1, "the search")
        await h.pilot.press("ctrl+d")
        await h.until(lambda: isinstance(h.app.screen, QuestionScreen), "the confirmation")
        await h.pilot.press("y")
        await h.until(lambda: picker_rows(h) == ["no sessions match"], "deleted")
        assert h.sent_methods("session/delete")[0]["params"] == {"sessionId": "old-4"}

        search = h.app.screen.query_one(Input)
        search.value = "parser"
        await h.until(lambda: len(picker_rows(h)) == 1, "the search")
        await h.pilot.press("enter")
        await h.until(lambda: h.session.session_id == "old-2", "the resumed session")
        await h.until(
            lambda: isinstance(h.app.screen, MainScreen) and h.app.screen is not first_screen,
            "a main screen for the resumed session",
        )
        await h.ready()
        assert h.sent_methods("session/load") == []
        resume = h.sent_methods("session/resume")[0]["params"]
        assert resume == {"sessionId": "old-2", "cwd": str(cwd.resolve()), "mcpServers": []}
        assert h.session.thread.entries == []  # resume does not replay
        await h.until(lambda: any("resuming does not send it" in n for n in h.notified), "why")
        assert [m.id for m in h.session.thread.modes] == ["a"]
    closed = [f["params"]["sessionId"] for f in agent.received("session/close")]
    assert closed == ["sess-1", "old-2"], "the left session and, on quit, the open one"


async def test_continue_loads_the_most_recent_session_with_its_replay(tmp_path: Path) -> None:
    """An agent that can both resume and load is loaded: the conversation comes back on screen."""
    replay = [
        update("b", {"sessionUpdate": "user_message_chunk",
                     "content": {"type": "text", "text": "fix it"}}),
        update("b", {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read a.py",
                     "kind": "read", "status": "completed"}),
        update("b", {"sessionUpdate": "agent_message_chunk",
                     "content": {"type": "text", "text": "done"}}),
    ]  # fmt: skip
    steps = [
        initialize_ok(loadSession=True, sessionCapabilities={"list": {}, "resume": {}}),
        {
            "expect": "session/list",
            "respond": {
                "sessions": [
                    listed("a", "Older", "2026-01-01T00:00:00Z"),
                    listed("b", "Newer", "2026-02-01T00:00:00Z"),
                ]
            },
        },
        {"expect": "session/load", "match": {"sessionId": "b"}, "save_as": "load"},
        *replay,
        {"respond_to": "load", "respond": {}},
    ]
    agent = write_scenario(tmp_path, steps)
    request = OpenRequest(continue_last=True)
    async with run_app(agent.argv, fixed_cwd(tmp_path), app_kwargs={"open_request": request}) as h:
        assert h.session.session_id == "b"
        assert h.sent_methods("session/new") == []
        assert h.sent_methods("session/resume") == []
        thread = h.session.thread
        await h.until(lambda: len(thread.entries) == 3, "the replayed conversation")
        user, tool, answer = thread.entries
        assert isinstance(user, MessageEntry) and user.role == "user"
        assert isinstance(tool, ToolCallEntry) and tool.title == "Read a.py"
        assert isinstance(answer, MessageEntry) and answer.role == "agent"
        assert isinstance(h.app.screen, MainScreen) and h.app.screen.session.thread is thread


async def test_fork_this_session_from_the_palette(tmp_path: Path) -> None:
    steps = [
        initialize_ok(sessionCapabilities={"resume": {}, "fork": {}, "list": {}}),
        new_session_ok("sess-1"),
        {"expect": "session/fork", "match": {"sessionId": "sess-1"},
         "respond": {"sessionId": "fork-1"}},
    ]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    cwd = fixed_cwd(tmp_path)
    async with run_app(agent.argv, cwd) as h:
        await open_from_palette(h, "fork")
        await h.until(lambda: h.session.session_id == "fork-1", "the forked session")
        await h.ready()
        fork = h.sent_methods("session/fork")[0]["params"]
        assert fork == {"sessionId": "sess-1", "cwd": str(cwd.resolve()), "mcpServers": []}
        await h.until(lambda: any("Forked" in n for n in h.notified), "the notice")
        assert h.sent_methods("session/resume") == [], "the fork is open already"


async def test_an_agent_that_cannot_list_gets_the_remembered_sessions(tmp_path: Path) -> None:
    cwd = fixed_cwd(tmp_path).resolve()
    RememberedSessions().add(cwd, "scripted_agent", SessionSummary("kept-1", "Yesterday's work"))
    steps = [
        initialize_ok(loadSession=True),
        new_session_ok("sess-9"),
        {"expect": "session/load", "match": {"sessionId": "kept-1"}, "respond": {}},
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, cwd) as h:

        def remembered() -> list[str]:
            return [s.id for s in RememberedSessions().recent(cwd, "scripted_agent")]

        # (written once the frame that says "ready" is drawn)
        await h.until(lambda: remembered() == ["sess-9", "kept-1"], "the new session remembered")
        await h.pilot.press("f5")
        await h.until(lambda: isinstance(h.app.screen, SessionPicker), "the picker")
        await h.until(lambda: any("Yesterday's work" in r for r in picker_rows(h)), "listed")
        assert h.sent_methods("session/list") == []
        await highlight(h, "Yesterday's work")
        h.app.screen.query_one(OptionList).focus()
        await h.pilot.press("enter")
        await h.until(lambda: h.session.session_id == "kept-1", "the loaded session")
        assert h.sent_methods("session/close") == [], "the agent cannot close sessions"


async def test_continue_with_a_session_the_agent_refuses_starts_a_new_one(tmp_path: Path) -> None:
    steps = [
        initialize_ok(loadSession=True, sessionCapabilities={"list": {}}),
        {"expect": "session/list", "respond": {"sessions": [listed("gone", "Expired")]}},
        {
            "expect": "session/load",
            "match": {"sessionId": "gone"},
            "error": {"code": -32002, "message": "session not found"},
        },
        new_session_ok("fresh"),
    ]
    agent = write_scenario(tmp_path, steps)
    request = OpenRequest(continue_last=True)
    async with run_app(agent.argv, fixed_cwd(tmp_path), app_kwargs={"open_request": request}) as h:
        assert h.session.session_id == "fresh"
        assert h.session.error is None
        await h.until(
            lambda: any("Could not open the earlier session" in n and "session not found" in n
                        for n in h.notified),
            "the warning saying why",
        )  # fmt: skip
        generation = h.session.thread.generation
        await h.until(
            lambda: (
                isinstance(h.app.screen, MainScreen)
                and h.app.screen.generation == generation
                and bool(h.app.screen.query(PromptInput))
            ),
            "the main screen of the new session",
        )
        await h.type_prompt("hello")  # the new session takes prompts
        await h.until(lambda: h.sent_methods("session/prompt"), "the prompt sent")
        assert h.sent_methods("session/prompt")[0]["params"]["sessionId"] == "fresh"
        assert not [n for n in h.notified if "Internal error" in n]


async def test_a_continued_session_watches_the_files_its_agent_changes(tmp_path: Path) -> None:
    """The change monitor started only for a new session: after --continue (or --resume, or a
    workspace restored) a file the agent wrote itself went unseen: no summary, no review."""
    from acp_tui.ui.widgets.turn_summary import TurnSummaryView
    from tests.agents.scenarios import end_turn, expect_prompt, write_file

    steps = [
        initialize_ok(sessionCapabilities={"list": {}, "resume": {}}),
        {"expect": "session/list", "respond": {"sessions": [listed("b", "Newer")]}},
        {"expect": "session/resume", "match": {"sessionId": "b"}, "respond": {}},
        expect_prompt(),
        write_file("hello.txt", "Hello\n"),
        end_turn(),
    ]
    agent = write_scenario(tmp_path, steps)
    request = OpenRequest(continue_last=True)
    project = fixed_cwd(tmp_path)
    async with run_app(agent.argv, project, app_kwargs={"open_request": request}) as h:
        assert h.session.session_id == "b"
        await h.prompt("write hello")
        await h.until(lambda: h.all(TurnSummaryView), "the turn summary")
        paths = [record.path.name for record in h.session.change_log.records]
        assert paths == ["hello.txt"]


async def test_continue_skips_a_session_the_agent_says_is_gone_without_loading_it(
    tmp_path: Path,
) -> None:
    """Where the agent answers `session/status`, `--continue` asks it (no side effect) and
    continues the newest session the agent still knows: one it says is gone (-32002) is never
    loaded."""
    gone = {"code": -32002, "message": "Resource not found", "data": {"sessionId": "b"}}
    steps = [
        initialize_ok(loadSession=True, sessionCapabilities={"list": {}, "status": {}}),
        {"expect": "session/list", "respond": {"sessions": [
            listed("a", "Older", "2026-01-01T00:00:00Z"),
            listed("b", "Newer", "2026-02-01T00:00:00Z"),
        ]}},
        {"expect": "session/status", "match": {"sessionId": "a"}, "respond": {"status": "saved"}},
        {"expect": "session/status", "match": {"sessionId": "b"}, "error": gone},
        {"expect": "session/load", "match": {"sessionId": "a"}, "respond": {}},
    ]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    request = OpenRequest(continue_last=True)
    async with run_app(agent.argv, fixed_cwd(tmp_path), app_kwargs={"open_request": request}) as h:
        assert h.session.session_id == "a"
        assert [f["params"]["sessionId"] for f in h.sent_methods("session/load")] == ["a"]
        assert h.sent_methods("session/new") == []


async def test_reopening_a_session_the_agent_says_is_gone_starts_a_new_one_unloaded(
    tmp_path: Path,
) -> None:
    """A session id to reopen (`--resume ID`, a saved workspace's tab) is asked about first
    where the agent answers `session/status`: gone, it is said, and a new session opens without
    a `session/load` that would fail."""
    gone = {"code": -32002, "message": "Resource not found", "data": {"sessionId": "old"}}
    steps = [
        initialize_ok(loadSession=True, sessionCapabilities={"status": {}}),
        {"expect": "session/status", "match": {"sessionId": "old"}, "error": gone},
        new_session_ok("fresh"),
    ]
    agent = write_scenario(tmp_path, steps)
    request = OpenRequest(resume_id="old")
    async with run_app(agent.argv, fixed_cwd(tmp_path), app_kwargs={"open_request": request}) as h:
        assert h.session.session_id == "fresh"
        assert h.sent_methods("session/load") == []
        await h.until(lambda: any("is gone" in n for n in h.notified), "the notice")


async def test_continue_loads_a_session_still_open_in_the_agent(tmp_path: Path) -> None:
    """An open session (in the agent's memory) is continued as any other: loaded."""
    steps = [
        initialize_ok(loadSession=True, sessionCapabilities={"list": {}, "status": {}}),
        {"expect": "session/list", "respond": {"sessions": [listed("b", "Newer")]}},
        {"expect": "session/status", "match": {"sessionId": "b"}, "respond": {"status": "open"}},
        {"expect": "session/load", "match": {"sessionId": "b"}, "respond": {}},
    ]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    request = OpenRequest(continue_last=True)
    async with run_app(agent.argv, fixed_cwd(tmp_path), app_kwargs={"open_request": request}) as h:
        assert h.session.session_id == "b"
        assert len(h.sent_methods("session/status")) == 1


async def test_the_picker_open_does_not_say_the_tab_needs_you(tmp_path: Path) -> None:
    """f5 is the user's own screen: nothing waits on them, the tab is not "needs you"."""
    steps = [
        initialize_ok(sessionCapabilities=ALL),
        new_session_ok("sess-1"),
        {"expect": "session/list", "respond": {"sessions": [listed("old-2", "Fix the parser")]}},
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.pilot.press("f5")
        await h.until(lambda: isinstance(h.app.screen, SessionPicker), "the picker")
        await h.until(lambda: any("Fix the parser" in r for r in picker_rows(h)), "the list")
        tab = h.app.current_tab
        assert tab.state is TabState.IDLE
        assert tab.ui.pending == 0
        await h.pilot.press("escape")
        await h.until(lambda: isinstance(h.app.screen, MainScreen), "the picker closed")
        assert tab.ui.pending == 0

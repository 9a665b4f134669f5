"""Agents that fail without exiting: one closes its output but stays alive, one never answers
initialize. Neither may leave the app looking ready or starting forever."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from acp_tui.client.events import SessionState
from acp_tui.config import Settings
from acp_tui.ui.widgets.crash_banner import CrashBanner
from acp_tui.ui.widgets.empty_state import EmptyState
from acp_tui.ui.widgets.queue_view import QueueView
from acp_tui.ui.widgets.status_bar import StatusBar
from tests.agents.scenarios import end_turn, expect_prompt, initialize_ok, new_session_ok
from tests.ui.app_harness import agent_runs, fixed_cwd, plain, run_app

LINGER: dict[str, Any] = {"sleep": 60}  # stays alive (the app kills it on restart or exit)


async def test_an_agent_that_closes_its_output_is_a_crash_and_restarts(tmp_path: Path) -> None:
    first = [
        initialize_ok(),
        new_session_ok("s-1"),
        {"stderr": "lost my stdout somehow\n"},
        {"close_stdout": True},
        LINGER,
    ]
    second = [initialize_ok(), new_session_ok("s-2"), expect_prompt(), end_turn()]
    argv = agent_runs(tmp_path, first, second)
    async with run_app(argv, fixed_cwd(tmp_path), wait_ready=False) as h:
        await h.until(lambda: h.session.state is SessionState.CRASHED, "the crash")
        banner = h.one(CrashBanner)
        await h.until(lambda: banner.has_class("-visible"), "the banner")
        text = plain(banner)
        assert "closed its output but is still running" in text
        assert "lost my stdout somehow" in text and "ctrl+r" in text
        assert "● crashed" in h.one(StatusBar).render().plain
        await h.pilot.press("ctrl+r")
        await h.ready()
        assert h.session.session_id == "s-2"
        await h.prompt("hello")


async def test_an_agent_that_closes_its_output_mid_turn_ends_the_turn(tmp_path: Path) -> None:
    first = [
        initialize_ok(),
        new_session_ok("s-1"),
        expect_prompt(),
        {"close_stdout": True},
        LINGER,
    ]
    argv = agent_runs(tmp_path, first)
    async with run_app(argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("are you there?")
        await h.until(lambda: h.session.state is SessionState.CRASHED, "the crash")
        await h.until(lambda: not h.session.turn_running, "the turn to end")
        assert h.session.crash is not None and h.session.crash.during == "prompt"


def slow_settings() -> dict[str, Any]:
    return {"settings": Settings(initialize_warning_seconds=0.3)}


async def test_no_answer_to_initialize_is_reported_and_restart_works(tmp_path: Path) -> None:
    first = [{"stderr": "waiting for a lock file\n"}, LINGER]
    second = [initialize_ok(), new_session_ok("s-2"), expect_prompt(), end_turn()]
    argv = agent_runs(tmp_path, first, second)
    async with run_app(
        argv, fixed_cwd(tmp_path), wait_ready=False, session_kwargs=slow_settings()
    ) as h:
        banner = h.one(CrashBanner)
        await h.until(lambda: banner.has_class("-visible"), "the stall banner")
        await h.until(lambda: "waiting for a lock file" in plain(banner), "its stderr")
        text = plain(banner)
        assert "has not answered initialize after 0.3 s" in text
        assert "ctrl+r" in text and "ctrl+q" in text
        assert "● not answering" in h.one(StatusBar).render().plain
        assert h.session.state is SessionState.STARTING
        await h.pilot.press("ctrl+r")
        await h.ready()
        assert not banner.has_class("-visible")
        assert h.session.session_id == "s-2"
        await h.prompt("hello")


async def test_a_late_answer_to_initialize_clears_the_warning(tmp_path: Path) -> None:
    steps = [
        {"sleep": 0.6},  # slower than the warning, then fine
        initialize_ok(),
        new_session_ok("s-1"),
    ]
    argv = agent_runs(tmp_path, steps)
    async with run_app(
        argv, fixed_cwd(tmp_path), wait_ready=False, session_kwargs=slow_settings()
    ) as h:
        banner = h.one(CrashBanner)
        await h.until(lambda: banner.has_class("-visible"), "the stall banner")
        await h.ready()
        await h.until(lambda: not banner.has_class("-visible"), "the banner to go")
        assert "● ready" in h.one(StatusBar).render().plain


NO_SESSION: list[dict[str, Any]] = [
    initialize_ok(),
    {"stderr": "--dangerously-skip-permissions cannot be used with root/sudo privileges\n"},
    {"expect": "session/new", "save_as": "never"},  # never answered
    LINGER,
]


async def test_a_start_shows_its_time_and_the_agents_stderr(tmp_path: Path) -> None:
    argv = agent_runs(tmp_path, NO_SESSION)
    async with run_app(argv, fixed_cwd(tmp_path), wait_ready=False) as h:
        empty = h.one(EmptyState)
        await h.until(lambda: "root/sudo" in plain(empty), "the stderr while it starts")
        assert re.search(r"Starting \S.*… \d+s", plain(empty)), plain(empty)
        assert re.search(r"● starting \d+s", h.one(StatusBar).render().plain)
        await h.type_prompt("hello")
        queue = h.one(QueueView)
        await h.until(lambda: queue.border_title is not None, "the queue")
        assert "waiting for the session" in str(queue.border_title)
        assert "turn ends" not in str(queue.border_title), "no turn is running"


async def test_no_session_past_the_start_timeout_says_so_with_wait_restart_and_quit(
    tmp_path: Path,
) -> None:
    second = [initialize_ok(), new_session_ok("s-2"), expect_prompt(), end_turn()]
    argv = agent_runs(tmp_path, NO_SESSION, second)
    settings = {"settings": Settings(start_timeout=0.3)}
    async with run_app(argv, fixed_cwd(tmp_path), wait_ready=False, session_kwargs=settings) as h:
        banner = h.one(CrashBanner)
        await h.until(lambda: banner.has_class("-visible"), "the not-answering banner")
        text = plain(banner)
        assert "is not answering: no session after" in text and "session/new" in text
        assert "root/sudo privileges" in text, "its stderr"
        assert "esc wait on" in text and "ctrl+r restart" in text and "ctrl+q quit" in text
        assert "● not answering" in h.one(StatusBar).render().plain

        def footer() -> str:
            return h.screen_text().splitlines()[-1]

        await h.until(lambda: "esc wait on" in footer(), "esc in the footer")
        assert "cancel turn" not in footer(), "no turn runs"
        await h.type_prompt("hello")
        queue = h.one(QueueView)
        await h.until(lambda: "not answering" in str(queue.border_title), "the queue's wait")
        assert any("waits for the session" in n for n in h.notified), h.notified

        # wait on: the banner goes, and comes back past the bound (0.3 s: on a loaded machine
        # the escape's press can outlast it, so each change is seen as the screen shows it)
        seen: list[tuple[bool, bool]] = []  # (a stall, the banner shown)
        h.session.stalled.subscribe(
            lambda stall: seen.append((stall is not None, banner.has_class("-visible")))
        )
        await h.pilot.press("escape")
        await h.until(lambda: banner.has_class("-visible"), "the banner again")
        assert seen[:2] == [(False, False), (True, True)]

        await h.pilot.press("ctrl+r")
        await h.ready()
        assert not banner.has_class("-visible") and h.session.session_id == "s-2"
        await h.until(lambda: h.sent_methods("session/prompt"), "the queued prompt sent")

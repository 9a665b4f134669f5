"""Keys typed right after launch, before the UI shows, end up in the prompt; Enter typed then
sends the prompt.

The real `acp-tui --demo` runs on a PTY; the test types at once (the process has only just
started: Python, Textual and the agent are still loading) and reads the screen through a
terminal emulator until the prompt shows. Escape sequences typed meanwhile are not run as
commands (F2 would open the changes screen, up would recall history)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from acp_tui.host.pty_process import PtyProcess
from acp_tui.host.terminal_emulator import TerminalEmulator

COLUMNS, ROWS = 120, 40
TIMEOUT = 60.0  # the first frame of a whole app on a loaded machine (pytest-timeout: 120)


@pytest.fixture
async def demo_app(tmp_path: Path) -> AsyncIterator[tuple[PtyProcess, TerminalEmulator]]:
    """`acp-tui --demo` on a PTY, its output fed to an emulator; killed (group) at the end."""
    project = tmp_path / "project"
    project.mkdir()
    argv = [sys.executable, "-m", "acp_tui", "--demo", "--cwd", str(project)]
    env = {**os.environ, "TERM": "xterm-256color", "ACP_TUI_CONFIG": str(tmp_path / "none.toml")}
    app = await PtyProcess.spawn(argv, env=env, cwd=tmp_path, columns=COLUMNS, rows=ROWS)
    emulator = TerminalEmulator(COLUMNS, ROWS)
    app.start_reading(emulator.feed, lambda: None)
    try:
        yield app, emulator
    finally:
        if app.exit_status is None:
            os.kill(app.pid, signal.SIGTERM)  # the app ends its agent and watchdog itself
            try:
                async with asyncio.timeout(20):
                    await app.wait()
            except TimeoutError:
                app.signal_group(signal.SIGKILL)
                await app.wait()
        app.close()


def prompt_line(emulator: TerminalEmulator) -> str | None:
    """The first line inside the prompt box, once the UI shows it."""
    lines = emulator.screen.display
    for index, line in enumerate(lines[:-1]):
        if "─ Prompt ─" in line:  # the box's first line: │ text │ (the sidebar beside it)
            parts = lines[index + 1].split("│")
            return parts[1].strip() if len(parts) > 2 else None
    return None


async def test_keys_typed_before_the_ui_shows_land_in_the_prompt(
    demo_app: tuple[PtyProcess, TerminalEmulator],
) -> None:
    app, emulator = demo_app
    app.write(b"hello\x1b[12~ th\x1b[Aer\x7fre")  # F2 and up between the words, a backspace
    try:
        async with asyncio.timeout(TIMEOUT):
            while prompt_line(emulator) != "hello there":
                assert app.exit_status is None, "acp-tui exited"
                await asyncio.sleep(0.05)  # the screen has no event to wait on
    except TimeoutError:
        screen = "\n".join(emulator.screen.display)
        raise AssertionError(f"the prompt never showed 'hello there':\n{screen}") from None
    assert "Changes" not in "\n".join(emulator.screen.display), "F2 was not run"


async def test_a_prompt_sent_before_the_ui_shows_goes_to_the_agent(
    demo_app: tuple[PtyProcess, TerminalEmulator],
) -> None:
    app, emulator = demo_app
    app.write(b"/xyzzy\rdraft")  # Enter typed while the tty still turns it into a line feed

    def shown() -> bool:
        screen = "\n".join(emulator.screen.display)
        answered = "no `/xyzzy` command" in screen or "no /xyzzy command" in screen
        return prompt_line(emulator) == "draft" and answered

    try:
        async with asyncio.timeout(TIMEOUT):
            while not shown():  # the demo answered, "draft" waits in the prompt
                assert app.exit_status is None, "acp-tui exited"
                await asyncio.sleep(0.05)  # the screen has no event to wait on
    except TimeoutError:
        screen = "\n".join(emulator.screen.display)
        raise AssertionError(f"'/xyzzy' was not sent, or 'draft' not kept:\n{screen}") from None

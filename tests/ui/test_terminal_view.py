"""TerminalView over real PTYs, driven by a Pilot."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from textual.app import App, ComposeResult

from acp_tui.host.terminals import Terminal, TerminalHost
from acp_tui.ui.widgets.terminal_view import MAX_ROWS, TerminalView, key_to_bytes
from tests.routed import RoutedTerminals

TIMEOUT = 10.0


class TerminalApp(App[None]):
    def __init__(self, terminal: Terminal, *, fit_output: bool = False) -> None:
        super().__init__()
        self.terminal = terminal
        self.fit_output = fit_output

    def compose(self) -> ComposeResult:
        yield TerminalView(self.terminal, fit_output=self.fit_output)


@pytest.fixture
async def host(tmp_path: Path) -> AsyncIterator[RoutedTerminals]:
    terminal_host = TerminalHost(tmp_path)
    yield RoutedTerminals(terminal_host)
    await terminal_host.close_all()


async def start(host: RoutedTerminals, command: str, *args: str) -> Terminal:
    params = {"sessionId": "s", "command": command, "args": list(args)}
    terminal = host.get((await host.create(params))["terminalId"])
    assert isinstance(terminal, Terminal)
    return terminal


async def until(pilot, condition: Callable[[], bool]) -> None:
    """Let the app run frames until `condition` holds (deadline TIMEOUT)."""
    async with asyncio.timeout(TIMEOUT):
        while not condition():
            await pilot.pause(0.02)


async def test_answering_a_prompt_by_typing(host: RoutedTerminals) -> None:
    created = await host.create(
        {"sessionId": "s", "command": """sh -c 'read -p "continue? " a; echo "got $a"'"""}
    )
    terminal = host.get(created["terminalId"])
    assert terminal is not None
    app = TerminalApp(terminal)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TerminalView)
        view.focus()
        await until(pilot, lambda: "continue?" in "\n".join(view.text_lines()))
        await pilot.press("y", "enter")
        await until(pilot, lambda: "got y" in view.text_lines())
        await asyncio.wait_for(terminal.wait_for_exit(), TIMEOUT)
        await until(pilot, lambda: view.border_subtitle == "exit code 0")
        assert view.text_lines()[:2] == ["continue? y", "got y"]


async def test_colours_progress_bars_and_exit_status(host: RoutedTerminals) -> None:
    script = (
        "import sys\n"
        "print('\\x1b[31mred\\x1b[0m plain')\n"
        "for i in range(0, 101, 25):\n"
        "    sys.stdout.write(f'\\r{i:3d}%'); sys.stdout.flush()\n"
        "print(); sys.exit(4)\n"
    )
    terminal = await start(host, sys.executable, "-c", script)
    app = TerminalApp(terminal)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TerminalView)
        await until(pilot, lambda: view.border_subtitle == "exit code 4")
        assert view.text_lines() == ["red plain", "100%"]
        assert view.has_class("-failed")
        first = view.render_line(0)
        red = [seg for seg in first if seg.text == "red"]
        assert red and red[0].style is not None and red[0].style.color is not None
        assert red[0].style.color.number == 1


async def test_ctrl_k_kills_the_command(host: RoutedTerminals) -> None:
    terminal = await start(host, "sleep", "100")
    app = TerminalApp(terminal)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TerminalView)
        view.focus()
        assert view.border_subtitle is not None and "ctrl+k" in view.border_subtitle
        await pilot.press("ctrl+k")
        status = await asyncio.wait_for(terminal.wait_for_exit(), TIMEOUT)
        assert status.signal == "SIGKILL"
        await until(pilot, lambda: view.border_subtitle == "killed by SIGKILL")


async def test_ctrl_c_goes_to_the_program(host: RoutedTerminals) -> None:
    terminal = await start(host, "sleep", "100")
    app = TerminalApp(terminal)
    async with app.run_test(size=(80, 24)) as pilot:
        app.query_one(TerminalView).focus()
        await pilot.press("ctrl+c")
        status = await asyncio.wait_for(terminal.wait_for_exit(), TIMEOUT)
        assert status.signal == "SIGINT"


async def test_pty_size_follows_the_widget(host: RoutedTerminals) -> None:
    terminal = await start(host, "bash", "-c", "read x; stty size")
    app = TerminalApp(terminal)
    async with app.run_test(size=(60, 24)) as pilot:
        view = app.query_one(TerminalView)
        view.focus()
        await pilot.pause()
        region = view.scrollable_content_region
        await pilot.press("enter")
        await until(pilot, lambda: terminal.exit_status is not None)
        await until(pilot, lambda: f"{region.height} {region.width}" in view.text_lines())
        assert region.width < 60 and region.height == 12


async def test_a_fitted_view_is_as_tall_as_its_output(host: RoutedTerminals) -> None:
    terminal = await start(host, "printf", "one\\ntwo\\nthree\\n")
    app = TerminalApp(terminal, fit_output=True)
    async with app.run_test(size=(80, 40)) as pilot:
        view = app.query_one(TerminalView)
        await until(pilot, lambda: view.border_subtitle == "exit code 0")
        await until(pilot, lambda: view.size.height == 3)
        assert view.outer_size.height == 5  # and the border
        assert view.text_lines() == ["one", "two", "three"]
        assert view.max_scroll_y == 0


async def test_a_fitted_view_grows_to_a_maximum_then_scrolls(host: RoutedTerminals) -> None:
    terminal = await start(host, "bash", "-c", "read x; seq 1 50; stty size")
    app = TerminalApp(terminal, fit_output=True)
    async with app.run_test(size=(60, 40)) as pilot:
        view = app.query_one(TerminalView)
        view.focus()
        await pilot.pause()
        await pilot.press("enter")  # the PTY was sized by now
        await until(pilot, lambda: view.border_subtitle == "exit code 0")
        await until(pilot, lambda: view.size.height == MAX_ROWS)
        lines = view.text_lines()
        assert lines[1:51] == [str(i) for i in range(1, 51)]  # (after the typed Enter)
        # the program sees MAX_ROWS rows (not the one row the view had when it started)
        assert lines[-1] == f"{MAX_ROWS} {view.scrollable_content_region.width}"
        assert view.scroll_y == view.max_scroll_y > 0  # following the output


async def test_a_flood_ends_with_the_right_screen_and_scrollback(host: RoutedTerminals) -> None:
    terminal = await start(host, "seq", "1", "20000")
    app = TerminalApp(terminal)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TerminalView)
        await until(pilot, lambda: view.border_subtitle == "exit code 0")
        lines = view.text_lines()
        assert lines[-3:] == ["19998", "19999", "20000"]
        assert lines == [str(i) for i in range(20001 - len(lines), 20001)]  # no gaps
        assert view.scroll_y == view.max_scroll_y  # following the output


async def test_a_late_view_replays_the_output(host: RoutedTerminals) -> None:
    terminal = await start(host, "printf", "one\\ntwo\\n")
    await asyncio.wait_for(terminal.wait_for_exit(), TIMEOUT)
    app = TerminalApp(terminal)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(TerminalView)
        await pilot.pause()
        assert view.text_lines() == ["one", "two"]
        assert view.border_subtitle == "exit code 0"


def test_key_mapping() -> None:
    assert key_to_bytes("enter", "\r") == b"\r"
    assert key_to_bytes("up", None) == b"\x1b[A"
    assert key_to_bytes("ctrl+c", "\x03") == b"\x03"
    assert key_to_bytes("ctrl+d", None) == b"\x04"
    assert key_to_bytes("y", "y") == b"y"
    assert key_to_bytes("eacute", "é") == "é".encode()
    assert key_to_bytes("shift+f13", None) is None

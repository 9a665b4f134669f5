"""The first frame drawn before Textual loads: the layout skeleton on a real terminal, and nothing
of it left when the process ends before Textual took the terminal."""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import struct
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tui.host.terminal_emulator import TerminalEmulator
from acp_tui.launch_options import LaunchOptions
from acp_tui.ui import launch
from acp_tui.ui.first_frame import ENTER, LEAVE, PASTE_OFF, PASTE_ON, FirstFrame

COLUMNS, LINES = 120, 30  # wide enough for the sidebar (`shows_sidebar`)


@pytest.fixture
def terminal() -> Iterator[tuple[int, int]]:
    """A pseudo-terminal of COLUMNS x LINES: (master, slave)."""
    master, slave = os.openpty()
    os.set_blocking(master, False)
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
    try:
        yield master, slave
    finally:
        os.close(slave)
        os.close(master)


def written(master: int) -> bytes:
    """Everything written to the terminal so far."""
    data = b""
    while select.select([master], [], [], 0)[0]:
        try:
            chunk = os.read(master, 65536)
        except BlockingIOError:
            break
        if not chunk:
            break
        data += chunk
    return data


class NoGuard:
    """A process guard that installs nothing (the launch tests start no agent)."""

    def install(self) -> None:
        pass

    def child_env(self) -> dict[str, str]:
        return {}

    def close(self) -> None:
        pass


@contextlib.contextmanager
def stdio_on(fd: int, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """`sys.stdin` and `sys.stdout` on (a duplicate of) `fd` while the block runs."""
    with os.fdopen(os.dup(fd), "r+b", buffering=0) as stdio:
        monkeypatch.setattr(sys, "stdout", stdio)
        monkeypatch.setattr(sys, "stdin", stdio)
        yield


def test_the_skeleton_shows_the_prompt_box_and_the_starting_agent(
    terminal: tuple[int, int],
) -> None:
    master, slave = terminal
    assert FirstFrame(slave).show("my\x1b[31magent")  # the program's name is printed inert
    data = written(master)
    assert data.startswith((ENTER + PASTE_ON).encode())  # a paste's line breaks are no Enter
    emulator = TerminalEmulator(COLUMNS, LINES)
    emulator.feed(data)
    lines = emulator.screen.display
    assert lines[-5].startswith("╭─ Prompt ─") and lines[-5].rstrip().endswith("╮▏")
    assert lines[-4].startswith("│ ") and lines[-4].rstrip().endswith("│▏")
    assert "enter send" in lines[-3]
    assert lines[-2].strip() == "my[31magent   ● starting"


def screen_after(master: int, emulator: TerminalEmulator) -> list[str]:
    emulator.feed(written(master))
    return emulator.screen.display


def test_the_early_prompt_shows_what_is_typed_the_cursor_and_the_queued_prompts(
    terminal: tuple[int, int],
) -> None:
    master, slave = terminal
    frame = FirstFrame(slave)
    frame.show("agent")
    emulator = TerminalEmulator(COLUMNS, LINES)
    frame.show_prompt("two\nlines", 3, ["first", "second\nprompt"])
    lines = screen_after(master, emulator)
    assert lines[-4].startswith("│ two⏎lines ") and lines[-4].rstrip().endswith("│▏")
    cursor = emulator.screen.buffer[LINES - 4][2 + 3]
    assert (cursor.data, cursor.reverse) == ("⏎", True), "the cursor on the line break"
    assert lines[-6].startswith(" ⏳ second ⏎ prompt ")
    assert lines[-7].startswith(" ⏳ first ")
    assert lines[-8].strip() == "▏"
    edge = [emulator.screen.buffer[LINES - row][COLUMNS - 38].data for row in (6, 7, 8)]
    assert edge == ["▏"] * 3, "the sidebar's edge stays where it is"

    width = COLUMNS - 38 - 4  # the prompt's inner width beside the sidebar
    frame.show_prompt("界" * width, width, [])  # wider than the box: its end, then the cursor
    line = screen_after(master, emulator)[-4]
    assert line.startswith("│ 界") and line.rstrip().endswith("│▏"), "nothing past the box"


def test_a_resized_terminal_gets_the_skeleton_again_at_its_size(
    terminal: tuple[int, int],
) -> None:
    master, slave = terminal
    frame = FirstFrame(slave)
    frame.show("agent")
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES - 10, COLUMNS - 20, 0, 0))
    emulator = TerminalEmulator(COLUMNS - 20, LINES - 10)
    frame.show_prompt("hi", 2, [])
    lines = screen_after(master, emulator)
    assert lines[-5].startswith("╭─ Prompt ─") and lines[-4].startswith("│ hi ")
    assert lines[-2].strip() == "agent   ● starting"


def test_nothing_is_drawn_once_textual_took_over(terminal: tuple[int, int]) -> None:
    master, slave = terminal
    frame = FirstFrame(slave)
    frame.show("agent")
    written(master)
    frame.handed_over()
    frame.show_prompt("late", 4, ["late"])
    assert written(master) == b""


def test_restore_leaves_the_alternate_screen_unless_textual_took_over(
    terminal: tuple[int, int],
) -> None:
    master, slave = terminal
    frame = FirstFrame(slave)
    frame.show("agent")
    written(master)
    frame.restore()
    frame.restore()
    assert written(master) == (PASTE_OFF + LEAVE).encode()  # once

    frame = FirstFrame(slave)
    frame.show("agent")
    written(master)
    frame.handed_over()
    frame.restore()
    assert written(master) == b""  # Textual restores the terminal itself


def test_nothing_is_drawn_without_a_terminal(tmp_path: Path) -> None:
    with (tmp_path / "out").open("wb") as out:
        frame = FirstFrame(out.fileno())
        assert not frame.show("agent")
        frame.restore()
    assert (tmp_path / "out").read_bytes() == b""


def test_keys_typed_on_the_skeleton_show_in_its_prompt_as_they_are_typed(
    terminal: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`EarlyStart` wires the reader to the prompt and the frame: no Textual, no app, and the
    text shows before anything takes it."""
    from acp_tui.ui.early_start import EarlyStart

    master, slave = terminal
    emulator = TerminalEmulator(COLUMNS, LINES)
    with stdio_on(slave, monkeypatch):
        echo_when_drawn: list[int] = []
        show = FirstFrame.show

        def noting_echo(frame: FirstFrame, agent: str) -> bool:
            echo_when_drawn.append(termios.tcgetattr(slave)[3] & termios.ECHO)
            return show(frame, agent)

        monkeypatch.setattr(FirstFrame, "show", noting_echo)
        start = EarlyStart.begin(["agent"])
        assert echo_when_drawn == [0], "the tty echoes nothing over the frame"
        try:
            os.write(master, b"first\rdraft")
            deadline = time.monotonic() + 30  # (a deadline on a loaded machine, not a delay)
            while not screen_after(master, emulator)[-4].startswith("│ draft "):
                assert time.monotonic() < deadline, "\n".join(emulator.screen.display)
                select.select([master], [], [], 0.05)
            assert emulator.screen.display[-6].startswith(" ⏳ first ")
            typed = start.take()
            assert (typed.sent, typed.text) == (["first"], "draft")
        finally:
            start.end()


class Interrupted(Exception):
    pass


def test_a_launch_that_fails_before_textual_leaves_no_frame_behind(
    terminal: tuple[int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent's start fails at once (here: interrupted): the skeleton was drawn, and the
    terminal is back on the main screen with the cursor shown when `run_app` ends."""
    master, slave = terminal

    async def failing_prestart(*args: object, **kwargs: object) -> None:
        raise Interrupted

    monkeypatch.setattr(launch, "prestart", failing_prestart)
    monkeypatch.setattr(launch, "ProcessGuard", NoGuard)
    with stdio_on(slave, monkeypatch):
        options = LaunchOptions(["some-agent"], tmp_path, None, demo=False)
        with pytest.raises(Interrupted):
            launch.run_app(options)
    data = written(master)
    assert "● starting".encode() in data  # the frame was drawn
    assert data.rfind(LEAVE.encode()) > data.rfind(ENTER.encode()) >= 0


def test_what_was_typed_is_not_lost_when_the_launch_fails_before_textual(
    terminal: tuple[int, int], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from acp_tui.ui.early_start import EarlyStart

    master, slave = terminal
    with stdio_on(slave, monkeypatch):
        start = EarlyStart.begin(["agent"])
        os.write(master, b"sent one\rhalf typed")
        start.early_input.take()  # (what the thread had not read yet, read now)
        start.end()
        start.end()
    assert capsys.readouterr().err.splitlines() == [
        "acp-tui: not sent: sent one",
        "acp-tui: not sent: half typed",
    ]


def test_ctrl_c_while_the_app_loads_stops_the_early_agent_and_quits_quietly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """SIGINT (ctrl+c: the tty still sends it while the app loads) arrives in the middle of the
    imports: the agent started early is stopped, and `acp-tui` exits 130 without a traceback."""
    from acp_tui import cli

    discarded: list[bool] = []

    class Early:
        async def discard(self) -> None:
            discarded.append(True)

    async def early_agent(*args: object, **kwargs: object) -> Early:
        return Early()

    def interrupted(*args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(launch, "prestart", early_agent)
    monkeypatch.setattr(launch, "ProcessGuard", NoGuard)
    monkeypatch.setattr(launch, "_run", interrupted)
    monkeypatch.setenv("ACP_TUI_CONFIG", str(tmp_path / "none.toml"))
    with open(os.devnull, "rb") as null, stdio_on(null.fileno(), monkeypatch):  # (no tty)
        assert cli.main(["--cwd", str(tmp_path), "--", sys.executable]) == 130
    assert discarded == [True]
    assert capsys.readouterr().err == ""

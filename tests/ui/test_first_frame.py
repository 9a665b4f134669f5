"""The first frame drawn before Textual loads: the layout skeleton on a real terminal, and nothing
of it left when the process ends before Textual took the terminal."""

from __future__ import annotations

import fcntl
import os
import select
import struct
import sys
import termios
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tui.host.terminal_emulator import TerminalEmulator
from acp_tui.launch_options import LaunchOptions
from acp_tui.ui import launch
from acp_tui.ui.first_frame import ENTER, LEAVE, FirstFrame

COLUMNS, LINES = 100, 30


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


def test_the_skeleton_shows_the_prompt_box_and_the_starting_agent(
    terminal: tuple[int, int],
) -> None:
    master, slave = terminal
    assert FirstFrame(slave).show("my\x1b[31magent")  # the program's name is printed inert
    data = written(master)
    assert data.startswith(ENTER.encode())
    emulator = TerminalEmulator(COLUMNS, LINES)
    emulator.feed(data)
    lines = emulator.screen.display
    assert lines[-5].startswith("╭─ Prompt ─") and lines[-5].rstrip().endswith("╮▏")
    assert lines[-4].startswith("│ ") and lines[-4].rstrip().endswith("│▏")
    assert "enter send" in lines[-3]
    assert lines[-2].strip() == "my[31magent   ● starting"


def test_restore_leaves_the_alternate_screen_unless_textual_took_over(
    terminal: tuple[int, int],
) -> None:
    master, slave = terminal
    frame = FirstFrame(slave)
    frame.show("agent")
    written(master)
    frame.restore()
    frame.restore()
    assert written(master) == LEAVE.encode()  # once

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

    class NoGuard:
        def install(self) -> None:
            pass

        def child_env(self) -> dict[str, str]:
            return {}

        def close(self) -> None:
            pass

    monkeypatch.setattr(launch, "prestart", failing_prestart)
    monkeypatch.setattr(launch, "ProcessGuard", NoGuard)
    with os.fdopen(os.dup(slave), "w") as tty:
        monkeypatch.setattr(sys, "stdout", tty)
        monkeypatch.setattr(sys, "stdin", tty)
        options = LaunchOptions(["some-agent"], tmp_path, None, demo=False)
        with pytest.raises(Interrupted):
            launch.run_app(options)
    data = written(master)
    assert "● starting".encode() in data  # the frame was drawn
    assert data.rfind(LEAVE.encode()) > data.rfind(ENTER.encode()) >= 0

"""`EarlyInput`: the bytes typed before the UI shows, read as they come (in a thread) and handed
on; the terminal quiet meanwhile (no echo, no line discipline) and given back afterwards."""

from __future__ import annotations

import os
import pty
import termios
import threading
from collections.abc import Iterator

import pytest

from acp_tui.ui.early_input import EarlyInput

WAIT = 30.0  # a deadline for a thread to be scheduled on a loaded machine, not a delay


@pytest.fixture
def tty() -> Iterator[tuple[int, int]]:
    """A pseudo-terminal: (leader, follower), closed after the test."""
    leader, follower = pty.openpty()
    try:
        yield leader, follower
    finally:
        os.close(leader)
        os.close(follower)


class Received:
    """What the reader handed on, and an event set at each hand-over."""

    def __init__(self) -> None:
        self.data = b""
        self.threads: set[str] = set()
        self.arrived = threading.Event()

    def __call__(self, data: bytes) -> None:
        self.data += data
        self.threads.add(threading.current_thread().name)
        self.arrived.set()

    def wait_for(self, data: bytes) -> None:
        while self.data != data:
            assert self.arrived.wait(WAIT), f"only {self.data!r} arrived"
            self.arrived.clear()


def test_typed_bytes_are_handed_on_as_they_come_and_the_terminal_restored(
    tty: tuple[int, int],
) -> None:
    leader, follower = tty
    before = termios.tcgetattr(follower)
    early = EarlyInput(follower)
    received = Received()
    early.start(received)
    attributes = termios.tcgetattr(follower)
    assert not attributes[3] & (termios.ECHO | termios.ICANON), "no echo, no line editing"
    assert not attributes[0] & termios.ICRNL, "Enter stays a CR (ctrl+j is the new line)"
    os.write(leader, b"hi \x1b[Athere\r")
    received.wait_for(b"hi \x1b[Athere\r")  # before `take`: read by the thread
    assert received.threads == {"early-input"}
    early.take()
    assert termios.tcgetattr(follower) == before
    assert not any(t.name == "early-input" for t in threading.enumerate()), "thread ended"
    os.write(leader, b"later")
    early.take()
    assert received.data == b"hi \x1b[Athere\r", "nothing read once taken"


def test_an_enter_typed_before_the_start_is_an_enter_again(tty: tuple[int, int]) -> None:
    """Typed while the tty still turned CR into LF (cooked mode: the command was just run)."""
    leader, follower = tty
    os.write(leader, b"sent\rdraft")
    early = EarlyInput(follower)
    received = Received()
    early.start(received)
    received.wait_for(b"sent\rdraft")
    os.write(leader, b"\nnext")  # typed after the start: ctrl+j stays a line feed
    received.wait_for(b"sent\rdraft\nnext")
    early.take()


def test_take_hands_on_what_the_thread_had_not_read_yet(tty: tuple[int, int]) -> None:
    leader, follower = tty
    early = EarlyInput(follower)
    received = Received()
    early.start(received)
    early._stop_reader()  # (the thread stopped first: the bytes below wait in the tty)
    os.write(leader, b"pending")
    early.take()
    assert received.data == b"pending"
    assert received.threads == {threading.current_thread().name}


def test_without_a_tty_nothing_is_read() -> None:
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"abc")
        early = EarlyInput(read_end)
        received = Received()
        early.start(received)
        early.take()
        assert received.data == b""
        assert os.read(read_end, 10) == b"abc", "stdin that is no terminal is left alone"
    finally:
        os.close(read_end)
        os.close(write_end)

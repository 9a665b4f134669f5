"""`typed_text`: bytes typed before the UI shows, as text for the prompt (never commands)."""

from __future__ import annotations

import os
import pty
import termios

from acp_tui.ui.early_input import EarlyInput, typed_text


def test_printable_text_is_kept_and_backspace_applied() -> None:
    assert typed_text(b"hello thx\x7fere") == "hello there"
    assert typed_text(b"caf\xc3\xa9\tok\x08K") == "café oK"


def test_escape_sequences_and_controls_are_dropped() -> None:
    typed = b"a\x1b[A\x1b[12~\x1bOQ\x1b]52;c;eA==\x07\x1bxb\r\n\x03\x1b"
    assert typed_text(typed) == "ab"


def test_early_input_reads_what_was_typed_and_restores_the_terminal() -> None:
    leader, follower = pty.openpty()
    try:
        before = termios.tcgetattr(follower)
        early = EarlyInput(follower)
        early.start()
        assert not termios.tcgetattr(follower)[3] & termios.ECHO, "no echo while the UI loads"
        os.write(leader, b"hi \x1b[Athere")
        assert early.take() == "hi there"
        assert termios.tcgetattr(follower) == before
        assert early.take() == "", "taken once"
    finally:
        os.close(leader)
        os.close(follower)


def test_without_a_tty_nothing_is_read() -> None:
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"abc")
        early = EarlyInput(read_end)
        early.start()
        assert early.take() == ""
        assert os.read(read_end, 10) == b"abc", "stdin that is no terminal is left alone"
    finally:
        os.close(read_end)
        os.close(write_end)

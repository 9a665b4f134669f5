"""Output text reconstruction, the byte-limited buffer, and the scrollback screen."""

from hypothesis import given
from hypothesis import strategies as st

from acp_tui.host.terminal_emulator import ScrollbackScreen, TerminalEmulator
from acp_tui.host.terminal_screen import MAX_RETAINED_BYTES, OutputBuffer, render_text

# -- render_text --------------------------------------------------------------------------------


def test_crlf_becomes_lf() -> None:
    assert render_text(b"one\r\ntwo\r\n") == "one\ntwo\n"


def test_colours_and_other_escapes_are_removed() -> None:
    data = b"\x1b[1;31merror\x1b[0m: \x1b]0;title\x07bad\x1b(B\x1b[?25l!\r\n"
    assert render_text(data) == "error: bad!\n"


def test_progress_bar_shows_its_final_state() -> None:
    data = b"".join(b"\r%3d%% [%-10s]" % (p, b"#" * (p // 10)) for p in range(0, 101, 5))
    assert render_text(data + b"\r\ndone\r\n") == "100% [##########]\ndone\n"


def test_shorter_overwrite_keeps_the_rest_of_the_line_like_a_terminal() -> None:
    assert render_text(b"Progress 100%\rDone") == "Doneress 100%"


def test_erase_to_end_of_line_after_carriage_return() -> None:
    assert render_text(b"Progress 100%\rDone\x1b[K\r\n") == "Done\n"
    assert render_text(b"Progress 100%\r\x1b[2KDone\r\n") == "Done\n"


def test_backspace_overwrites() -> None:
    assert render_text(b"abc\x08\x08X\r\n") == "aXc\n"


def test_other_control_bytes_are_dropped_and_tabs_kept() -> None:
    assert render_text(b"a\x07b\x00c\td\r\n") == "abc\td\n"


def test_invalid_utf8_is_replaced_not_raised() -> None:
    assert render_text(b"ok \xff\xfe\r\n") == "ok \ufffd\ufffd\n"


def test_cut_off_escape_at_the_end_is_dropped() -> None:
    assert render_text(b"text\x1b[3") == "text"
    assert "\x1b" not in render_text(b"text\x1b")


# -- OutputBuffer -------------------------------------------------------------------------------


def test_buffer_keeps_everything_under_the_limit() -> None:
    buffer = OutputBuffer(100)
    buffer.append(b"hello ")
    buffer.append(b"world")
    assert buffer.tail(100) == (b"hello world", False)


def test_buffer_keeps_the_most_recent_bytes() -> None:
    buffer = OutputBuffer(10)
    for i in range(100):
        buffer.append(b"%03d\n" % i)
    data, truncated = buffer.tail(10)
    assert truncated
    assert data == b"7\n098\n099\n"


def test_buffer_cuts_at_a_utf8_character_boundary() -> None:
    buffer = OutputBuffer(5)
    buffer.append("ééé".encode())  # 6 bytes: keeping 5 would start inside the first é
    data, truncated = buffer.tail(5)
    assert (data, truncated) == ("éé".encode(), True)


def test_zero_limit_keeps_nothing_but_reports_truncation() -> None:
    buffer = OutputBuffer(0)
    buffer.append(b"abc")
    assert buffer.tail(0) == (b"", True)


def test_huge_limit_is_capped_and_allocates_nothing_up_front() -> None:
    buffer = OutputBuffer(2**64)
    assert buffer.limit == MAX_RETAINED_BYTES
    assert len(buffer) == 0
    buffer.append(b"x")
    assert buffer.tail(2**64) == (b"x", False)


@given(
    chunks=st.lists(st.text(max_size=20).map(str.encode), max_size=30),
    limit=st.integers(min_value=0, max_value=60),
)
def test_tail_is_valid_utf8_within_limit_and_a_suffix(chunks: list[bytes], limit: int) -> None:
    buffer = OutputBuffer(limit)
    for chunk in chunks:
        buffer.append(chunk)
    everything = b"".join(chunks)
    data, truncated = buffer.tail(limit)
    assert len(data) <= limit
    assert everything.endswith(data)
    data.decode("utf-8")  # a whole number of characters
    assert truncated == (len(data) < len(everything))
    assert len(everything) - len(data) <= (3 if len(everything) > limit else 0) + max(
        0, len(everything) - limit
    )


# -- the screen -----------------------------------------------------------------------------------


def _history_text(screen: ScrollbackScreen) -> list[str]:
    lines = []
    for row in screen.history:
        if isinstance(row, str):
            lines.append(row)
        else:
            lines.append("".join(row[x].data for x in range(screen.columns)).rstrip())
    return lines


def test_scrolled_lines_go_to_history() -> None:
    emulator = TerminalEmulator(columns=20, lines=3)
    emulator.feed(b"".join(b"line %d\r\n" % i for i in range(6)))
    screen = emulator.screen
    assert _history_text(screen) == ["line 0", "line 1", "line 2", "line 3"]
    assert [line.rstrip() for line in screen.display] == ["line 4", "line 5", ""]


def test_catching_up_on_a_flood_shows_the_same_result() -> None:
    data = b"\x1b[32mstart\x1b[0m " + b"".join(b"row %d\r\n" % i for i in range(2000)) + b"end"
    slow, fast = TerminalEmulator(40, 5, history=500), TerminalEmulator(40, 5, history=500)
    slow.feed(data)
    fast.feed(data, budget=300)
    assert fast.screen.display == slow.screen.display
    assert (fast.screen.cursor.x, fast.screen.cursor.y) == (
        slow.screen.cursor.x,
        slow.screen.cursor.y,
    )
    assert _history_text(fast.screen) == _history_text(slow.screen)
    assert any(isinstance(row, str) for row in fast.screen.history)  # it did skip through pyte


def test_shrinking_the_screen_keeps_the_cursor_line_and_moves_the_rest_to_history() -> None:
    emulator = TerminalEmulator(columns=10, lines=6)
    emulator.feed(b"a\r\nb\r\nc\r\nd")
    emulator.resize(columns=10, lines=2)
    screen = emulator.screen
    assert [line.rstrip() for line in screen.display] == ["c", "d"]
    assert _history_text(screen) == ["a", "b"]


def test_clear_scrollback_sequence_empties_history() -> None:
    emulator = TerminalEmulator(columns=10, lines=2)
    emulator.feed(b"1\r\n2\r\n3\r\n")
    assert emulator.screen.history
    emulator.feed(b"\x1b[3J")
    assert not emulator.screen.history


def test_device_status_reports_go_back_to_the_process() -> None:
    emulator = TerminalEmulator(columns=10, lines=2)
    replies: list[str] = []
    emulator.screen.on_process_input = replies.append
    emulator.feed(b"ab\x1b[6n")
    assert replies == ["\x1b[1;3R"]

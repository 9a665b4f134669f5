"""`EarlyPrompt`: the skeleton's prompt, fed the bytes typed before Textual shows. Text is edited
as a prompt is; Enter sends; nothing else is ever a command."""

from __future__ import annotations

from acp_tui.ui.early_prompt import MAX_CHARACTERS, EarlyPrompt


def typed(*reads: bytes) -> EarlyPrompt:
    prompt = EarlyPrompt()
    for data in reads:
        prompt.feed(data)
    prompt.finish()
    return prompt


def test_printable_text_is_kept_and_backspace_applied() -> None:
    assert typed(b"hello thx\x7fere").text == "hello there"
    assert typed(b"caf\xc3\xa9\tok\x08K").text == "café oK"


def test_escape_sequences_and_controls_are_dropped() -> None:
    prompt = typed(b"a\x1b[A\x1b[12~\x1bOQ\x1b]52;c;eA==\x07\x1bxb\x03\x04\x1b")
    assert (prompt.text, prompt.sent) == ("ab", [])


def test_enter_sends_and_an_empty_enter_sends_nothing() -> None:
    prompt = typed(b"one\r\r   \rtwo\rthree")
    assert prompt.sent == ["one", "two"]
    assert (prompt.text, prompt.cursor) == ("three", 5)


def test_ctrl_j_and_a_pasted_text_keep_their_line_breaks_without_sending() -> None:
    prompt = typed(b"a\nb ", b"\x1b[200~x\ry\r\nz\x1b[201~", b"!")
    assert prompt.sent == []
    assert prompt.text == "a\nb x\ny\nz!", "CR, LF and CR LF are one line break each"


def test_the_cursor_moves_and_edits_where_it_is() -> None:
    prompt = typed(b"helo\x1b[Dl\x1b[F world\x01>\x05<")
    assert prompt.text == ">hello world<"
    prompt = typed(b"abcdef\x1b[D\x1b[D\x1b[D\x0b\x1b[H\x1b[3~")  # ctrl+k, then delete
    assert (prompt.text, prompt.cursor) == ("bc", 0)
    prompt = typed(b"one\ntwo three\x1bOD\x1bOD\x15")  # SS3 left twice, then ctrl+u
    assert (prompt.text, prompt.cursor) == ("one\nee", 4)


def test_a_split_sequence_and_a_split_character() -> None:
    prompt = typed(b"a\x1b[", b"D", b"\xc3", b"\xa9")
    assert (prompt.text, prompt.cursor) == ("éa", 1)
    prompt = typed(b"\x1b[20", b"0~x\ry\x1b[2", b"01~\r")
    assert prompt.sent == ["x\ny"]


def test_the_text_kept_is_bounded() -> None:
    prompt = typed(b"x" * (MAX_CHARACTERS - 2) + b"\r" + b"y" * 10)
    assert prompt.size == MAX_CHARACTERS
    assert prompt.text == "yy"
    prompt = typed(b"ab\x1b[D", b"\x1b[200~" + b"p\tq\x07" * MAX_CHARACTERS + b"\x1b[201~")
    assert prompt.size == MAX_CHARACTERS
    assert prompt.text.startswith("ap q") and prompt.text.endswith("b")
    assert prompt.cursor == MAX_CHARACTERS - 1


def test_the_esc_key_then_a_key_is_the_key_not_alt_key() -> None:
    assert typed(b"a\x1b", b"b").text == "ab"
    assert typed(b"a\x1bb").text == "a", "Esc and a key in one write: alt+key, dropped"
    prompt = typed(b"\x1b[200~x\x1b", b"[201~\r")  # a paste cut right after an Esc
    assert (prompt.sent, prompt.text) == (["x"], "")

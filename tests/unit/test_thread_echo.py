"""An agent echoing the prompt it was just sent (Mistral Vibe does) shows it once."""

from __future__ import annotations

from acp_tui.protocol import models as m
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.entries import MessageEntry
from acp_tui.thread.thread import Thread
from tests.unit.thread_support import chunk, notify


def messages(thread: Thread) -> list[tuple[str, str]]:
    return [(e.role, e.text) for e in thread.entries if isinstance(e, MessageEntry)]


def send(thread: Thread, text: str) -> MessageEntry:
    entry = thread.add_user_prompt([m.text_block(text)])
    thread.begin_turn()
    return entry


def test_an_echo_in_one_chunk_is_merged(thread: Thread, events: list[ch.Change]) -> None:
    prompt = send(thread, "say hi please")
    events.clear()
    notify(thread, chunk("user_message_chunk", "say hi please", messageId="u1"))
    assert events == []
    notify(thread, chunk("agent_message_chunk", "Hi!"))
    assert messages(thread) == [("user", "say hi please"), ("agent", "Hi!")]
    assert thread.entries[0] is prompt


def test_an_echo_in_pieces_and_with_other_whitespace_is_merged(thread: Thread) -> None:
    send(thread, "fix the\nbug  in main.py\n")
    for piece in ("fix ", "the bug", " in ", "main.py", "\n"):
        notify(thread, chunk("user_message_chunk", piece))
    notify(thread, chunk("agent_message_chunk", "ok"))
    assert messages(thread) == [("user", "fix the\nbug  in main.py\n"), ("agent", "ok")]


def test_the_model_path_merges_too(thread: Thread) -> None:
    send(thread, "hello")
    thread.apply(m.parse_session_update(chunk("user_message_chunk", "hello", messageId="x")))
    assert messages(thread) == [("user", "hello")]


def test_text_that_is_not_the_prompt_is_shown_with_what_was_held(thread: Thread) -> None:
    send(thread, "say hi please")
    notify(thread, chunk("user_message_chunk", "say "))  # could be an echo: held
    notify(thread, chunk("user_message_chunk", "something else"))
    assert messages(thread) == [("user", "say hi please"), ("user", "say something else")]


def test_a_chunk_ending_mid_word_is_no_echo(thread: Thread) -> None:
    send(thread, "say hi")
    notify(thread, chunk("user_message_chunk", "sa "))
    assert messages(thread) == [("user", "say hi"), ("user", "sa ")]


def test_a_second_copy_after_the_echo_is_shown(thread: Thread) -> None:
    send(thread, "again")
    notify(thread, chunk("user_message_chunk", "again"))
    notify(thread, chunk("user_message_chunk", "again"))
    assert messages(thread) == [("user", "again"), ("user", "again")]


def test_no_echo_expected_outside_a_turn(thread: Thread) -> None:
    send(thread, "first")
    thread.end_turn("end_turn")
    notify(thread, chunk("user_message_chunk", "first"))  # e.g. a replay of history
    assert messages(thread) == [("user", "first"), ("user", "first")]


def test_a_non_text_block_ends_the_echo_and_keeps_held_text(thread: Thread) -> None:
    send(thread, "look at this")
    notify(thread, chunk("user_message_chunk", "look"))
    image = {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}
    notify(thread, {"sessionUpdate": "user_message_chunk", "content": image})
    [_, extra] = [e for e in thread.entries if isinstance(e, MessageEntry)]
    assert extra.role == "user" and extra.text == "look"
    assert [type(b) for b in extra.blocks] == [m.TextContent, m.ImageContent]

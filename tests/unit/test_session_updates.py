"""`protocol.session_updates`: a `session/update` notification read into a typed update."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from acp_tui.protocol.models import AgentMessageChunk, TextContent, ToolCall, UnknownUpdate
from acp_tui.protocol.session_updates import (
    TextChunk,
    parse_update_notification,
    parse_v2_update_notification,
)
from acp_tui.thread.entries import MessageEntry, UnknownEntry
from acp_tui.thread.thread import Thread


def note(update: Any) -> dict[str, Any]:
    return {"sessionId": "s", "update": update}


def test_a_plain_text_chunk_takes_the_fast_path_with_its_text_made_safe() -> None:
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "a\x1b"}}
    assert parse_update_notification(note(chunk)) == TextChunk("agent_message_chunk", "a␛")
    with_id = {**chunk, "messageId": "m1"}
    assert parse_update_notification(note(with_id)) == TextChunk("agent_message_chunk", "a␛", "m1")
    thought = {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "t"}}
    assert parse_update_notification(note(thought)) == TextChunk("agent_thought_chunk", "t")


@pytest.mark.parametrize(
    "extra",
    [
        {"messageId": 3},  # not a string: the model decides (and drops it)
        {"_meta": {"x": 1}},
        {"content": {"type": "text", "text": "a", "annotations": {"priority": 1}}},
    ],
)
def test_anything_but_plain_text_goes_through_the_model(extra: dict[str, Any]) -> None:
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "a"}}
    parsed = parse_update_notification(note({**chunk, **extra}))
    assert isinstance(parsed, AgentMessageChunk)
    assert isinstance(parsed.content, TextContent) and parsed.content.text == "a"


def test_other_kinds_are_their_models_and_unknown_ones_stay_raw() -> None:
    call = {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read \x07"}
    parsed = parse_update_notification(note(call))
    assert isinstance(parsed, ToolCall) and parsed.title == "Read ␇"
    future = {"sessionUpdate": "hologram", "shape": "cube"}
    unknown = parse_update_notification(note(future))
    assert isinstance(unknown, UnknownUpdate)
    assert unknown.raw == future and unknown.session_update == "hologram"


@pytest.mark.parametrize(
    ("params", "error"),
    [
        ([1], "params is not an object"),
        ({"sessionId": "s"}, "params has no update object"),
        ({"sessionId": "s", "update": "x"}, "params has no update object"),
    ],
)
def test_params_without_an_update_are_unknown_updates(params: Any, error: str) -> None:
    parsed = parse_update_notification(params)
    assert isinstance(parsed, UnknownUpdate) and parsed.error == error and parsed.raw == params
    v2 = parse_v2_update_notification(params)
    assert isinstance(v2, UnknownUpdate) and v2.raw == params


def test_the_thread_applies_what_was_parsed_unknown_updates_included() -> None:
    thread = Thread()
    for text in ("Hel", "lo"):
        thread.apply_update(
            parse_update_notification(
                note(
                    {
                        "sessionUpdate": "agent_message_chunk",
                        "content": {"type": "text", "text": text},
                    }
                )
            )
        )
    thread.apply_update(parse_update_notification(note({"sessionUpdate": "hologram"})))
    message, unknown = thread.entries
    assert isinstance(message, MessageEntry) and message.text == "Hello"
    assert isinstance(unknown, UnknownEntry)


def test_a_replayed_chunk_or_tool_call_is_dropped_even_when_invalid() -> None:
    thread = Thread()
    thread.skip_replayed = True
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "old"}}
    thread.apply_update(parse_update_notification(note(chunk)))
    thread.apply_update(parse_update_notification(note({"sessionUpdate": "tool_call"})))
    assert thread.entries == []


def test_the_session_layer_reads_no_wire_keys() -> None:
    """The reducer gets typed updates: no `session/update` field is read from a dict there."""
    wire_keys = {"sessionUpdate", "messageId", "update", "toolCallId", "sessionId"}
    root = Path(Thread.__module__.replace(".", "/")).parent
    package = Path(__file__).resolve().parents[2] / root
    found = [
        f"{path.name}:{node.lineno}: {node.value}"
        for path in sorted(package.glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and node.value in wire_keys
    ]
    assert not found, found

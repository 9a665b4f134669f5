"""The frame validator the whole suite relies on really rejects bad frames."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tests.schema_check import FrameValidator, validating_tap


@dataclass
class Event:
    direction: str
    raw: str


def run(frames: list[tuple[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
    failures: list[str] = []
    sent: list[dict[str, Any]] = []
    tap = validating_tap(FrameValidator(), failures, sent)
    for direction, frame in frames:
        tap(Event(direction, frame if isinstance(frame, str) else json.dumps(frame)))
    return failures, sent


def test_valid_exchange_passes_and_is_recorded() -> None:
    read = {"jsonrpc": "2.0", "id": 0, "method": "fs/read_text_file",
            "params": {"sessionId": "s", "path": "/a"}}  # fmt: skip
    answer = {"jsonrpc": "2.0", "id": 0, "result": {"content": "x"}}
    failures, sent = run([("in", read), ("out", answer)])
    assert failures == [] and sent == [answer]


def test_wrong_result_shape_unknown_method_and_garbage_are_caught() -> None:
    read = {"jsonrpc": "2.0", "id": 7, "method": "fs/read_text_file",
            "params": {"sessionId": "s", "path": "/a"}}  # fmt: skip
    failures, _ = run([
        ("in", read),
        ("out", {"jsonrpc": "2.0", "id": 7, "result": {"text": "x"}}),  # needs "content"
        ("out", {"jsonrpc": "2.0", "id": 1, "method": "session/frobnicate", "params": {}}),
        ("out", {"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": {}}),
        ("out", "not json"),
    ])  # fmt: skip
    assert len(failures) == 4
    assert "result of fs/read_text_file" in failures[0]
    assert "unknown method" in failures[1]
    assert "params of session/prompt" in failures[2]
    assert "not JSON" in failures[3]

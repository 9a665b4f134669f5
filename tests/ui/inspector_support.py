"""A store of made-up traffic and a bare app that shows the inspector over it."""

from __future__ import annotations

import json
from typing import Any

from textual.app import App

from acp_tui.protocol.traffic import TrafficEvent
from acp_tui.protocol.traffic_raw import RawFrames
from acp_tui.protocol.traffic_store import TrafficStore
from acp_tui.ui.inspector.screen import InspectorScreen


def frame(direction: str, t: float, body: dict[str, Any]) -> TrafficEvent:
    return TrafficEvent(direction, t, json.dumps({"jsonrpc": "2.0", **body}))  # type: ignore[arg-type]


def chunk(text: str) -> dict[str, Any]:
    update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
    return {"method": "session/update", "params": {"sessionId": "s", "update": update}}


def sample_store(raws: RawFrames | None = None) -> TrafficStore:
    """A turn: initialize, session/new, a prompt streaming 5 chunks, a read with a relative path
    answered with an error, a tool call with an unknown kind, the prompt's answer. `raws`: where
    the frames' text is kept (a small budget drops the oldest)."""
    store = TrafficStore(raws)
    events = [
        frame("out", 100.0, {"id": 0, "method": "initialize", "params": {"protocolVersion": 1}}),
        frame("in", 100.2, {"id": 0, "result": {"protocolVersion": 1}}),
        frame("out", 100.3, {"id": 1, "method": "session/new", "params": {"cwd": "/w"}}),
        frame("in", 100.35, {"id": 1, "result": {"sessionId": "s"}}),
        frame("out", 101.0, {"id": 2, "method": "session/prompt", "params": {"sessionId": "s"}}),
        *(frame("in", 101.1 + i / 100, chunk(f"part {i} \x1b[31m")) for i in range(5)),
        frame(
            "in",
            101.5,
            {
                "id": 0,
                "method": "fs/read_text_file",
                "params": {"sessionId": "s", "path": "notes.txt"},
            },
        ),
        frame("out", 101.6, {"id": 0, "error": {"code": -32002, "message": "not found"}}),
        frame(
            "in",
            101.7,
            {
                "method": "session/update",
                "params": {
                    "sessionId": "s",
                    "update": {
                        "sessionUpdate": "tool_call",
                        "toolCallId": "t",
                        "title": "Fly",
                        "kind": "fly",
                    },
                },
            },
        ),
        *(frame("in", 101.8 + i / 100, chunk(f"more {i}")) for i in range(3)),
        frame("in", 103.0, {"id": 2, "result": {"stopReason": "end_turn"}}),
    ]
    for event in events:
        store.record(event)
    return store


class InspectorApp(App[None]):
    def __init__(self, store: TrafficStore) -> None:
        super().__init__()
        self.store = store

    def on_mount(self) -> None:
        self.push_screen(InspectorScreen(self.store))

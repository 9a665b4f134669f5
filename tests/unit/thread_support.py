"""Shared pieces of the session reducer tests (the fixtures live in conftest.py)."""

from __future__ import annotations

from typing import Any

from acp_tui.thread.thread import Thread


class Clock:
    """A clock the tests move by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def notify(thread: Thread, update: dict[str, Any]) -> None:
    thread.apply_notification({"sessionId": "s1", "update": update})


def chunk(kind: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"sessionUpdate": kind, "content": {"type": "text", "text": text}, **extra}

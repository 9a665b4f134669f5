"""Fixtures of the session reducer tests: a hand-moved clock, a thread, its change events."""

from __future__ import annotations

import pytest

from acp_tui.thread import thread_changes as ch
from acp_tui.thread.thread import Thread
from tests.unit.thread_support import Clock


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def thread(clock: Clock) -> Thread:
    return Thread(clock=clock)


@pytest.fixture
def events(thread: Thread) -> list[ch.Change]:
    seen: list[ch.Change] = []
    thread.subscribe(seen.append)
    return seen

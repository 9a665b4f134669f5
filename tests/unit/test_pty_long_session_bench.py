"""The long-session bench's own work between a turn's end on the screen and the next prompt does
not grow with the session (`bench/pty_long_session.py`).

The bench marked where each turn's output starts with ``len(run.text)``, which joins the whole
session's text (about 26,000 characters a turn): 1 ms after turn 1, 13 ms after turn 250, a
delay before each prompt that grew with the session. Prompted that much later, the app was at
another point of the turn end it was still finishing (its freeze and collection, a frame or two
after the reply), which changed how much of that work fell between the next prompt and its
reply: part of the growth of the late turns' lag at `--rate 0` was the bench's.

Here `run_session` drives a stand-in for the app on its pseudo-terminal (the real `PtyRun`
with no process: what it "prints" is fed to it) and the characters the bench joins are
counted, early and late in a session."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from bench import pty_long_session
from bench.pipe_agent import turn_marker
from bench.pty_harness import READY_TEXT, PtyRun

TURN_TEXT = "x" * 26_000
"""About what a turn of the real app prints (its frames, escape sequences removed)."""


class AppStandIn(PtyRun):
    """A `PtyRun` whose "app" answers each prompt at once: a turn's text, its marker, ready
    (the agent's stamp file written as `bench/pipe_agent.py` writes it)."""

    joined: list[int]
    """Characters of text joined by each read of `text`, in order."""

    def __init__(self, argv: Sequence[str], **_: Any) -> None:  # (no process: nothing forked)
        self.argv = list(argv)
        self._parts: list[str] = []
        self._starts: list[int] = []
        self._length = 0
        self._joined = ""
        self._pending = b""
        self._watched: dict[str, float | None] = {}
        self.first_text = None
        self.closed = False
        self.output = bytearray()
        self.stamp = Path(self.argv[self.argv.index("--stamp") + 1])
        self.turn = 0
        self.joined = []
        self._add_text(f"{READY_TEXT}\n".encode())

    @property
    def text(self) -> str:
        if len(self._joined) != self._length:
            self.joined.append(self._length)
        return super().text

    def pump(self, timeout: float) -> bool:
        return True

    def send(self, data: bytes) -> None:
        self.turn += 1
        with self.stamp.open("a") as stamp:
            stamp.write(f"{self.turn} {time.monotonic()!r}\n")
        self._add_text(f"{TURN_TEXT} {turn_marker(self.turn)} {READY_TEXT}\n".encode())

    def cpu(self) -> float:
        return 0.0

    def rss_mb(self) -> float:
        return 50.0

    def close(self, quit_keys: bytes = b"", grace: float = 0.0) -> int | None:
        return 0


def test_the_bench_marks_a_turns_start_without_joining_the_session_so_far(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    runs: list[AppStandIn] = []

    def stand_in(argv: Sequence[str], **kwargs: Any) -> AppStandIn:
        runs.append(AppStandIn(argv, **kwargs))
        return runs[-1]

    monkeypatch.setattr(pty_long_session, "PtyRun", stand_in)
    measured = pty_long_session.run_session(40, 0, 24, 5.0)
    assert len(measured.lags) == 40
    (run,) = runs
    assert run.turn == 40
    assert sum(run.joined) < 2 * len(TURN_TEXT), run.joined  # (not the session's text per turn)

"""A prompt sent as the turn before ends goes out once that turn end has been put away, so the
turn end's work (its entries frozen, its collection) never runs between the prompt and the
reply of a fast agent (`acp_tui.thread.turn_end_gate`).

The real app drives a real agent process (`bench/pipe_agent.py`, the long-session bench's
agent, each reply written at once); the prompts are queued while the first turn runs, so each
goes out right as the turn before it ends (as `//all`, queued prompts, or a prompt typed as
"● ready" shows). What is counted: the turn ends whose collection had not run yet when the
next `session/prompt` request was written."""

from __future__ import annotations

import gc
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from acp_tui.ui import runtime
from tests.ui.app_harness import fixed_cwd, run_app

PIPE_AGENT = Path(__file__).resolve().parents[2] / "bench" / "pipe_agent.py"
REPLY = "## Reply\n\nSome prose, a `code` span and a list:\n\n- one\n- two\n\nDone. END-MARKER\n"
TURNS = 6


@pytest.fixture(autouse=True)
def own_collector_policy(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The policy is the process's: a fresh one (its count of turn-end collections)."""
    monkeypatch.setattr(runtime, "collection", runtime.CollectorPolicy())
    yield
    gc.unfreeze()  # (what the app froze is the next test's to walk, not garbage for good)


def agent_argv(tmp_path: Path) -> list[str]:
    """The pipe agent answering each prompt with `REPLY` at once (think 0.3 s before the first
    reply only matters for queueing: the later prompts are queued while it thinks)."""
    text = tmp_path / "reply.md"
    text.write_text(REPLY)
    return [sys.executable, str(PIPE_AGENT), str(text), "--chunk", "8", "--rate", "0",
            "--think", "0.3", "--stamp", str(tmp_path / "stamp"), "--numbered"]  # fmt: skip


async def test_a_queued_prompt_goes_out_after_the_turn_end_before_it_is_put_away(
    tmp_path: Path,
) -> None:
    """Each prompt sent as the turn before it ended went out at once, and that turn end's work
    (a frame or two later) ran while the agent's reply was arriving: in a pty, the collection
    between the prompt and the reply's first frame made that frame show part of the reply and
    the rest wait a frame more (the median lag of 300 replies written at once went from 29 ms
    to 45-55 ms in the turns that had it, most turns late in the session). Now the request
    waits until the turn end is put away: every collection has run before the next prompt."""
    async with run_app(agent_argv(tmp_path), fixed_cwd(tmp_path)) as h:
        late: list[tuple[int, int]] = []  # (prompts sent so far, turn-end collections run)
        sent = 0

        def tap(event: Any) -> None:
            nonlocal sent
            if event.direction != "out" or json.loads(event.raw).get("method") != "session/prompt":
                return
            sent += 1
            if runtime.collection.turns < sent - 1:  # (the turn end before it not put away)
                late.append((sent, runtime.collection.turns))

        h.session.traffic.subscribe(tap)
        await h.type_prompt("prompt 1")
        for turn in range(2, TURNS + 1):
            await h.type_prompt(f"prompt {turn}")  # (queued: sent as the turn before ends)
        await h.until(lambda: sent == TURNS, "every prompt sent")
        await h.settle()
        assert runtime.collection.turns == TURNS  # (one collection per turn end)
        assert h.session.thread.turn_end_gate.waited >= 1  # (some prompt found it held)
        assert late == []

"""A `session/load` replay is collected and frozen once it has been drawn: the first turn end
after it walks no more than the turn ends after that (`runtime.CollectorPolicy.replay_drawn`).

A real agent process (`bench/pipe_agent.py`, the long-session bench's agent) replays 300 turns
into the app, headless; then new turns follow. What a turn end's collection walks is counted
(the unfrozen objects as it starts), never timed."""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tui.client.session.history import OpenRequest
from acp_tui.ui import runtime
from tests.ui.app_harness import run_app

PIPE_AGENT = Path(__file__).resolve().parents[2] / "bench" / "pipe_agent.py"
REPLY = "## Reply\n\nSome prose, a `code` span and a list:\n\n- one\n- two\n\nDone. END-MARKER\n"
REPLAYED = 300


@pytest.fixture
def policy(monkeypatch: pytest.MonkeyPatch) -> Iterator[runtime.CollectorPolicy]:
    """A fresh process policy, its full-collection hook on as the launch sets it."""
    fresh = runtime.CollectorPolicy()
    monkeypatch.setattr(runtime, "collection", fresh)
    undo = runtime.bound_full_collections()
    yield fresh
    undo()
    gc.unfreeze()  # (what the app froze is the next test's to walk, not garbage for good)


def walked_at_turn_ends(
    monkeypatch: pytest.MonkeyPatch, policy: runtime.CollectorPolicy
) -> list[int]:
    """The unfrozen objects each turn end's collection walks, from now on."""
    walked: list[int] = []
    turn_ended = policy.turn_ended

    def counted() -> None:
        walked.append(len(gc.get_objects()))
        turn_ended()

    monkeypatch.setattr(policy, "turn_ended", counted)
    return walked


async def test_the_first_turn_end_after_a_load_walks_no_more_than_later_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, policy: runtime.CollectorPolicy
) -> None:
    """The replay left 46,000 unfrozen objects (33,000 of them garbage) to the first turn end's
    collection, against 10,000-13,000 at the turn ends after (headless, in this process)."""
    walked = walked_at_turn_ends(monkeypatch, policy)
    reply = tmp_path / "reply.md"
    reply.write_text(REPLY)
    agent = [sys.executable, str(PIPE_AGENT), str(reply), "--chunk", "8", "--rate", "0",
             "--stamp", str(tmp_path / "stamp"), "--numbered", "--load", str(REPLAYED)]  # fmt: skip
    opened = {"open_request": OpenRequest(resume_id="bench")}
    async with run_app(agent, tmp_path, app_kwargs=opened) as h:
        await h.settle()
        await h.until(lambda: policy.replays == 1, "the replay's collection")
        assert len(h.session.thread.entries) >= 2 * REPLAYED
        for turn in range(1, 5):
            await h.prompt(f"new {turn}")
        assert policy.replays == 1 and len(walked) >= 4
        first, later = walked[0], walked[1:]
        assert first <= max(later) * 1.3, walked

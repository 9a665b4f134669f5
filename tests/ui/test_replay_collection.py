"""A `session/load` replay is collected and frozen once it has been drawn: the first turn end
after it walks no more than the turn ends after that (`runtime.CollectorPolicy.replay_drawn`).

A real agent process (`bench/pipe_agent.py`, the long-session bench's agent) replays 300 turns
into the app, headless; then new turns follow. What a turn end's collection walks is counted
(the unfrozen objects as it starts), never timed."""

from __future__ import annotations

import gc
import sys
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.dom import DOMNode

from acp_tui.client.session.history import OpenRequest
from acp_tui.ui import runtime
from acp_tui.ui.widgets.conversation import ConversationView
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


def replay_agent(tmp_path: Path) -> list[str]:
    """The pipe agent, replaying `REPLAYED` turns on `session/load` as fast as the pipe takes
    them (each reply written at once when prompted)."""
    reply = tmp_path / "reply.md"
    reply.write_text(REPLY)
    return [sys.executable, str(PIPE_AGENT), str(reply), "--chunk", "8", "--rate", "0",
            "--stamp", str(tmp_path / "stamp"), "--numbered", "--load", str(REPLAYED)]  # fmt: skip


OPEN_LOADED = {"open_request": OpenRequest(resume_id="bench")}


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
    async with run_app(replay_agent(tmp_path), tmp_path, app_kwargs=OPEN_LOADED) as h:
        await h.settle()
        await h.until(lambda: policy.replays == 1, "the replay's collection")
        assert len(h.session.thread.entries) >= 2 * REPLAYED
        for turn in range(1, 5):
            await h.prompt(f"new {turn}")
        assert policy.replays == 1 and len(walked) >= 4
        first, later = walked[0], walked[1:]
        assert first <= max(later) * 1.3, walked


async def test_the_full_collections_while_a_load_replays_walk_a_bounded_number(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, policy: runtime.CollectorPolicy
) -> None:
    """The interpreter runs a full collection by itself every ~70,000 objects made: while 300
    turns were replayed, one walked 71,000-78,000 unfrozen objects (before the bound on full
    collections froze them). While a session opens they come more often, each walking at most
    about `MAX_UNFROZEN` and what a few collections of the middle generation promoted."""
    walked: list[int] = []
    thresholds = gc.get_threshold()
    opened = False
    freeze = runtime.freeze

    def session_opens() -> None:  # (the app freezes what it built, then opens the session)
        nonlocal opened
        freeze()
        opened = True

    def counted(phase: str, info: dict[str, int]) -> None:
        if opened and phase == "start" and info["generation"] == 2 and policy.replays == 0:
            walked.append(len(gc.get_objects()))

    monkeypatch.setattr(runtime, "freeze", session_opens)
    gc.callbacks.insert(0, counted)
    try:
        async with run_app(replay_agent(tmp_path), tmp_path, app_kwargs=OPEN_LOADED) as h:
            await h.settle()
            await h.until(lambda: policy.replays == 1, "the replay's collection")
            assert gc.get_threshold() == thresholds  # (as they were, once it is open)
    finally:
        gc.callbacks.remove(counted)
    assert walked and max(walked) <= 2 * runtime.MAX_UNFROZEN, walked
    # (the replay makes tens of thousands of objects: under load, with fewer frames drawn while
    # it comes, two full collections were seen, three or more on a quiet machine)
    assert len(walked) >= 2, walked


def in_conversation(node: object) -> bool:
    """A node of the conversation's (what a turn end merges into the history), not a toast's or
    the sidebar's, whose lives follow the clock rather than the turns."""
    return isinstance(node, DOMNode) and any(
        isinstance(ancestor, ConversationView) for ancestor in node.ancestors_with_self
    )


async def test_the_replays_freeze_keeps_no_widget_the_first_turn_end_merges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, policy: runtime.CollectorPolicy
) -> None:
    """The replay's collection froze the conversation's live window as it was on the screen
    (its last 40-80 entries' widgets): the first turn end merged them into the history, and
    they stayed in the permanent generation as garbage no collection walks (in a pty after
    300 turns, 15,000-70,000 objects). Now the replay settles as a turn end does first."""
    frozen_nodes: weakref.WeakSet[DOMNode] = weakref.WeakSet()
    freeze, replay_drawn = gc.freeze, policy.replay_drawn

    def freezing_replay() -> None:
        def counted_freeze() -> None:
            frozen_nodes.update(o for o in gc.get_objects() if in_conversation(o))
            freeze()

        monkeypatch.setattr(gc, "freeze", counted_freeze)
        try:
            replay_drawn()
        finally:
            monkeypatch.setattr(gc, "freeze", freeze)

    monkeypatch.setattr(policy, "replay_drawn", freezing_replay)
    async with run_app(replay_agent(tmp_path), tmp_path, app_kwargs=OPEN_LOADED) as h:
        await h.settle()
        await h.until(lambda: policy.replays == 1, "the replay's collection")
        for turn in range(1, 3):
            await h.prompt(f"new {turn}")
            await h.settle()
        alive = len(frozen_nodes)
        gc.unfreeze()
        gc.collect()
        stranded = alive - len(frozen_nodes)
    assert stranded == 0, f"{stranded} of the {alive} nodes the replay froze were garbage"

"""Turns back to back (prompts queued while a turn runs, as `//all` and fast agents give) leave
nothing behind: no widget of a finished turn outlives it, neither held by Textual nor frozen.

Each test drives a real agent process (`bench/pipe_agent.py`, the long-session bench's agent)
through several turns. A widget frozen alive (`gc.freeze`, `acp_tui.ui.runtime`) and removed
later is garbage no collection reaches: `gc.collect()` here frees only what is not frozen, so a
removed widget still alive after it was either held or frozen."""

from __future__ import annotations

import gc
import sys
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widget import Widget
from textual.widgets._footer import FooterKey

from acp_tui.ui import runtime
from acp_tui.ui.textual_internals import release_removed_children
from acp_tui.ui.widgets.conversation_drawing import EntryDrawing
from acp_tui.ui.widgets.screen_footer import ScreenFooter
from tests.ui.app_harness import AppHarness, fixed_cwd, run_app

PIPE_AGENT = Path(__file__).resolve().parents[2] / "bench" / "pipe_agent.py"
REPLY = "## Reply\n\nSome prose, a `code` span and a list:\n\n- one\n- two\n\nDone. END-MARKER\n"


@pytest.fixture(autouse=True)
def own_collector_policy(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The policy is the process's: a fresh one (no thread of an earlier test watched)."""
    monkeypatch.setattr(runtime, "collection", runtime.CollectorPolicy())
    yield
    gc.unfreeze()  # (what the app froze is the next test's to walk, not garbage for good)


def agent_argv(tmp_path: Path, think: float = 0.0) -> list[str]:
    """The pipe agent answering each prompt with `REPLY` at once (in chunks of 8 characters),
    `think` seconds after the prompt."""
    text = tmp_path / "reply.md"
    text.write_text(REPLY)
    stamp = tmp_path / "stamp"
    return [sys.executable, str(PIPE_AGENT), str(text), "--chunk", "8", "--rate", "0",
            "--think", str(think), "--stamp", str(stamp), "--numbered"]  # fmt: skip


class Seen:
    """Weak references to every widget of some kinds seen on the screen."""

    def __init__(self) -> None:
        self.refs: weakref.WeakKeyDictionary[Widget, None] = weakref.WeakKeyDictionary()
        self.count = 0

    def note(self, widgets: list[Widget]) -> None:
        for widget in widgets:
            if widget not in self.refs:
                self.refs[widget] = None
                self.count += 1

    def removed_alive(self) -> list[Widget]:
        alive = list(self.refs.keys())
        return [widget for widget in alive if widget is not None and not widget.is_attached]


async def until_idle(h: AppHarness, seen: Seen | None = None) -> None:
    """Until every turn has ended and settled (noting the footer's keys meanwhile)."""

    def idle() -> bool:
        if seen is not None:
            seen.note(list(h.app.screen.query(FooterKey)))
        return not h.session.turn_running and not h.session.queue and h.turn_end_settled()

    await h.until(idle, "every turn to end")
    await h.settle()


def note_live_entries(monkeypatch: pytest.MonkeyPatch, seen: Seen) -> None:
    """Every live view the conversation makes for an entry goes into `seen`."""
    make = EntryDrawing.view_for

    def noted(self: EntryDrawing, *args: Any, **kwargs: Any) -> Widget | None:
        view = make(self, *args, **kwargs)
        if view is not None:
            seen.note([view])
        return view

    monkeypatch.setattr(EntryDrawing, "view_for", noted)


async def test_a_turn_end_freezes_nothing_that_a_later_turn_replaces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn end froze everything alive, and some of it is replaced by the next turn: the
    footer's keys (rebuilt as a turn starts), the next turn's entries when prompts come back to
    back. Frozen, each stayed as garbage for good (0.4 MB a turn). With few objects to walk, a
    turn end now freezes nothing (the threshold raised here: a test process has more)."""
    monkeypatch.setattr(runtime, "FREEZE_AT", 10**9, raising=False)
    async with run_app(agent_argv(tmp_path, think=0.3), fixed_cwd(tmp_path)) as h:
        seen = Seen()
        note_live_entries(monkeypatch, seen)
        for turn in range(1, 4):
            await h.type_prompt(f"prompt {turn}")
            await until_idle(h, seen)
        for turn in range(4, 8):
            await h.type_prompt(f"prompt {turn}")  # (queued: sent as the turn before ends)
        await until_idle(h, seen)
        assert runtime.collection.turns >= 6
        assert seen.count >= 20
        release_removed_children(h.one(ScreenFooter))  # (its last layouts: bounded)
        gc.collect()
        assert seen.removed_alive() == []


async def test_the_footer_keeps_its_keys_across_turns(tmp_path: Path) -> None:
    """A turn's start shows the cancel key and its end hides it: the footer rebuilt its keys
    twice a turn (new widgets, the old ones garbage, frozen for good when a turn end's freeze
    caught them alive). After the first turn the same key widgets serve every turn, the cancel
    key shown while a turn runs and hidden after it."""
    async with run_app(agent_argv(tmp_path, think=0.3), fixed_cwd(tmp_path)) as h:
        seen = Seen()
        await h.type_prompt("prompt 1")
        await until_idle(h, seen)
        keys = list(h.app.screen.query(FooterKey))
        cancel = [key for key in keys if key.action == "cancel_turn"]
        assert len(cancel) == 1 and not cancel[0].display
        for turn in range(2, 6):
            await h.type_prompt(f"prompt {turn}")
            await h.until(lambda: cancel[0].display, "the cancel key shown as the turn runs")
            seen.note(list(h.app.screen.query(FooterKey)))
            await until_idle(h, seen)
            assert not cancel[0].display
        assert list(h.app.screen.query(FooterKey)) == keys
        assert all(new is old for new, old in zip(h.app.screen.query(FooterKey), keys, strict=True))
        assert seen.count == len(keys)


async def test_the_footer_lets_go_of_the_keys_it_replaces(tmp_path: Path) -> None:
    """Keys the footer rebuilds (their key remapped): Textual kept every key it ever built
    alive through the `compact` each key binds to (about seven widgets a rebuild, for good)."""
    async with run_app(agent_argv(tmp_path), fixed_cwd(tmp_path)) as h:
        seen = Seen()
        await h.type_prompt("prompt 1")
        await until_idle(h, seen)
        for turn in range(2, 6):
            remapped = f"f{turn + 6}"
            h.app.set_keymap({"main.changes": remapped})

            def rebuilt(remapped: str = remapped) -> bool:
                return any(key.key == remapped for key in h.all(FooterKey))

            await h.until(rebuilt, "the footer rebuilt with the remapped key")
            await h.type_prompt(f"prompt {turn}")
            await until_idle(h, seen)
        assert seen.count > 2 * len(h.all(FooterKey))  # (rebuilt: the test means something)
        release_removed_children(h.one(ScreenFooter))  # (its last layouts: bounded, not a leak)
        gc.unfreeze()  # (held, not frozen: that is the other test)
        gc.collect()
        assert seen.removed_alive() == []

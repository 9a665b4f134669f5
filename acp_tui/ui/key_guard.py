"""Keys the user pressed for one thing never answer another: the guard of every question.

A question (a permission prompt, an elicitation form, a held write's review) can appear while
the user is typing the next prompt; the keys already on their way were meant for the composer,
and one of them (`a`, `y`, enter) would otherwise answer it. `KeyGuard` holds what decides:

- the user *is typing* while their last keystroke meant for the composer is less than `idle`
  seconds old: a permission prompt does not take the focus then, it waits until they stop;
- a question *holds* its keys for `hold` seconds after it got them (`arm`), and for as long as
  the user goes on typing (each key less than `hold` after the one before): such keys are not
  answers, they go to the composer (`to_composer`), where the user was typing.

Both windows read `clock` (a monotonic clock in seconds), injected so tests are deterministic.
The composer's screen registers the sink that puts a redirected key into the prompt
(`composer_sink`). `KeyGuard.of(app)` finds the app's guard (an app that is not acp-tui's, a test
of one screen, gets a guard on the real clock).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual import events
from textual.app import App

HOLD_SECONDS = 0.6
IDLE_SECONDS = 1.0

Sink = Callable[[str, str | None, bool], None]
"""(key, character, focus the composer) → the key typed into the composer."""


class KeyGuard:
    """When a key may answer a question, on an injectable clock."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        *,
        hold: float = HOLD_SECONDS,
        idle: float = IDLE_SECONDS,
    ) -> None:
        self.clock = clock
        self.hold = hold
        self.idle = idle
        self.last_typed: float | None = None
        self.composer_sink: Sink | None = None

    @classmethod
    def unguarded(cls) -> KeyGuard:
        """A guard that never holds a key (tests that answer questions as soon as they show)."""
        return cls(hold=0.0, idle=0.0)

    @staticmethod
    def of(app: App[Any]) -> KeyGuard:
        """The app's guard (`key_guard` of acp-tui's app); one on the real clock otherwise."""
        guard = getattr(app, "key_guard", None)
        return guard if isinstance(guard, KeyGuard) else KeyGuard()

    def typed(self) -> None:
        """The user pressed a key meant for the composer (or typed through a question)."""
        self.last_typed = self.clock()

    def typing(self) -> bool:
        """The user typed in the composer less than `idle` seconds ago."""
        return self.last_typed is not None and self.clock() - self.last_typed < self.idle

    def arm(self) -> float:
        """A question got the keys now: the moment `holds` counts from."""
        return self.clock()

    def holds(self, armed_at: float | None) -> bool:
        """A key now is not an answer to the question armed at `armed_at` (None: the user went
        there on purpose, e.g. f4): too soon after it got the keys, or the user is still typing
        a run of keys that began before."""
        if armed_at is None or self.hold <= 0:
            return False
        now = self.clock()
        streak = self.last_typed is not None and now - self.last_typed < self.hold
        return now - armed_at < self.hold or streak

    def to_composer(self, event: events.Key, *, focus: bool) -> None:
        """A key held from a question: stopped there and typed into the composer instead
        (printable characters and backspace; other keys are dropped); `focus` moves the focus
        back there too."""
        event.stop()
        event.prevent_default()
        self.typed()
        if self.composer_sink is not None:
            character = event.character if event.is_printable else None
            self.composer_sink(event.key, character, focus)

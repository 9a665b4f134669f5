"""Keys the user pressed for one thing never answer another: the guard of every question.

A question (a permission prompt, an elicitation form, a held write's review, a host question
of `QuestionScreen`, the rewind confirmation, the session picker at start) can appear while the
user is typing the next prompt; the keys on their way were meant for the composer, and one of
them (`a`, `y`, enter) would otherwise answer it. One policy decides for all of them; each
question holds a `QuestionKeys` of the app's `KeyGuard`:

- a question *waits to be chosen* when the user typed in the composer less than `recent`
  seconds before it arrived, or types through it while it is up: no key answers it then; keys
  go to the composer (`to_composer`), where the user was typing, until the user chooses the
  question on purpose (f4, or a click on it: `QuestionKeys.choose`);
- otherwise it *holds* its keys for `hold` seconds after it arrived (`arm`) and for as long as
  the user goes on typing (each key less than `hold` after the one before): such keys also go
  to the composer (and so the question waits to be chosen from then on).

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
RECENT_SECONDS = 5.0
"""A question that arrives less than this after the user typed in the composer waits to be
chosen (a person who stops to think for a few seconds goes on typing their prompt)."""
CHOOSE_KEY = "f4"
"""The key that goes to a question on purpose (never held: it is how a waiting one is chosen)."""
WAITING_HINT = "You were typing: keys go to your prompt. f4 or a click answers here."

Sink = Callable[[str, str | None, bool], None]
"""(key, character, focus the composer) → the key typed into the composer."""


class KeyGuard:
    """When a key may answer a question, on an injectable clock."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        *,
        hold: float = HOLD_SECONDS,
        recent: float = RECENT_SECONDS,
    ) -> None:
        self.clock = clock
        self.hold = hold
        self.recent = recent
        self.last_typed: float | None = None
        self.composer_sink: Sink | None = None

    @classmethod
    def unguarded(cls) -> KeyGuard:
        """A guard that never holds a key (tests that answer questions as soon as they show)."""
        return cls(hold=0.0, recent=0.0)

    @staticmethod
    def of(app: App[Any]) -> KeyGuard:
        """The app's guard (`key_guard` of acp-tui's app); one on the real clock otherwise."""
        guard = getattr(app, "key_guard", None)
        return guard if isinstance(guard, KeyGuard) else KeyGuard()

    def typed(self) -> None:
        """The user pressed a key meant for the composer (or typed through a question)."""
        self.last_typed = self.clock()

    def typed_since(self, moment: float) -> bool:
        """The user typed in the composer at `moment` or later."""
        return self.last_typed is not None and self.last_typed >= moment

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
        (printable characters and backspace, which count as typing; other keys are dropped);
        `focus` moves the focus back there too."""
        event.stop()
        event.prevent_default()
        character = event.character if event.is_printable else None
        if character is not None or event.key == "backspace":
            self.typed()  # (typing; an enter or escape pressed twice is not)
        if self.composer_sink is not None:
            self.composer_sink(event.key, character, focus)


class QuestionKeys:
    """One question's side of the guard (`KeyGuard`'s policy): whether a key now may answer
    it. `arm` when the question arrives (or comes up again by itself); `choose` when the user
    goes there on purpose (f4, a click); `hold` on every key the question receives."""

    def __init__(self) -> None:
        self.guard: KeyGuard | None = None
        self.arrived: float | None = None
        self.chosen = False
        self.changed: list[Callable[[], None]] = []
        """Called when `waits` may have changed (the question shows the hint)."""

    def arm(self, app: App[Any]) -> None:
        """The question arrived now (or came up again by itself): not chosen yet."""
        self.guard = guard = KeyGuard.of(app)
        self.arrived = guard.clock()
        self.chosen = False
        self._notify()

    def choose(self) -> None:
        """The user went to the question on purpose: its keys answer it from now on."""
        self.chosen = True
        self._notify()

    def waits(self) -> bool:
        """It waits to be chosen: the user typed in the composer less than `recent` seconds
        before it arrived, or since."""
        guard, arrived = self.guard, self.arrived
        if self.chosen or guard is None or arrived is None or guard.recent <= 0:
            return False
        return guard.typed_since(arrived - guard.recent)

    def holds(self) -> bool:
        """A key now is not an answer: the question waits to be chosen, or the key comes too
        soon after it arrived, or in a run of typing."""
        if self.chosen or self.guard is None:
            return False
        return self.waits() or self.guard.holds(self.arrived)

    def hold(self, event: events.Key, *, focus: bool) -> bool:
        """If a key now is not an answer (`holds`), send it to the composer (`to_composer`,
        `focus` moving the focus there) and return True; the question waits to be chosen
        from then on."""
        if event.key == CHOOSE_KEY or not self.holds():
            return False
        assert self.guard is not None
        self.guard.to_composer(event, focus=focus)
        self._notify()
        return True

    def _notify(self) -> None:
        for listener in list(self.changed):
            listener()

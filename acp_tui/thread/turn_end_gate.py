"""The next prompt goes out once the last turn end has been put away: the gate between a turn's
end, as the views of the thread finish it, and the next `session/prompt` request.

A view of the thread finishes a turn after it ended: its streamed messages drawn again from
their data, its entries moved into the history, the turn's garbage collected (in the UI: one
frame or two after the reply's last frame). A prompt sent meanwhile (typed as "● ready" showed,
queued, `//all`) let a fast agent's reply arrive in the middle of that work: the collection ran
between the prompt and the reply, a first frame showed part of the reply and the rest waited a
frame's time more (300 replies written at once, each prompt typed at "● ready": the median lag
of the reply from 29 ms to 45-55 ms in the turns that had the last turn end's work in them, and
those became most turns as the session went on). The request waits for the gate instead (the
prompt is shown at once): a short wait where the work had to be done anyway, before the agent
is asked rather than while its answer is drawn.

Plain data (no UI): the view holds the gate while it puts a turn away and releases it once done;
a prompt waits at most `WAIT_AT_MOST` seconds (a view that never finishes cannot hold prompts).
"""

from __future__ import annotations

import asyncio
import contextlib

WAIT_AT_MOST = 0.5
"""Seconds a prompt waits for the turn end at most (it takes one or two frames)."""


class TurnEndGate:
    """Held while a view puts the last turn end away; a prompt request waits until released."""

    def __init__(self) -> None:
        self._holders = 0
        self._open = asyncio.Event()
        self._open.set()
        self.waited = 0
        """Prompts that found the gate held (for tests)."""

    @property
    def held(self) -> bool:
        """Whether a turn end is being put away now."""
        return self._holders > 0

    def hold(self) -> None:
        """A view starts putting a turn end away (each `hold` is `release`d once)."""
        self._holders += 1
        self._open.clear()

    def release(self) -> None:
        """A view is done with the turn end it held the gate for."""
        self._holders = max(self._holders - 1, 0)
        if not self._holders:
            self._open.set()

    async def wait(self, at_most: float = WAIT_AT_MOST) -> None:
        """Until no turn end is being put away (at most `at_most` seconds)."""
        if not self._holders:
            return
        self.waited += 1
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._open.wait(), at_most)

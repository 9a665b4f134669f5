"""Frames reach the terminal while the app is busy: the interpreter hands the GIL to a waiting
thread after 1 ms instead of its default 5 ms.

Textual writes each frame from its writer thread. A frame is put on the thread's queue while
the event loop goes on with the next piece of work (the rest of a reply, a layout), so the
thread waits for the GIL to wake, again after its write and again after its flush: up to the
switch interval each time. In a real terminal, at the end of a reply streamed at full speed,
the last frame appeared a median 17.7 ms after Textual handed it over (5 ms interval) and
2.3 ms after (1 ms interval), over 12 runs each. The other threads (the keys read before the
first frame, Textual's input thread, the warm-up) wait less for the GIL in the same way.
"""

from __future__ import annotations

import sys

SWITCH_INTERVAL = 0.001
"""Seconds a thread holds the GIL while another waits for it (`sys.setswitchinterval`)."""


def hand_frames_over_sooner() -> None:
    """Set the interpreter's switch interval for the app's process (`SWITCH_INTERVAL`)."""
    sys.setswitchinterval(SWITCH_INTERVAL)

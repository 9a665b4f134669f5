"""Press keys as one burst: the Key events `Pilot.press` sends, one wait for all of them.

`Pilot.press` waits for the app to go idle twice after every key (at least 2 x 20 ms, and a
frame drawn for each key): right where a test is about what one key does at one moment, slow
for typing a prompt (about 0.1 s a key on a busy machine, most of the UI tests' time).
`press_at_once` posts the same events (the same key names and characters: `test_key_burst.py`
checks it) in order, as a terminal delivers what a fast typist sends, then waits once for the
app to handle them. The app takes them one after another through the same path (bindings, the
focused widget's key handling, the key guard); only the frames between them are not drawn.

Tests about when a key arrives (typing while a question appears, a key right at a tab switch)
press their keys one by one with `Pilot.press`.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from textual import events
from textual.keys import ASCII_KEY_NAMES, KEY_NAME_REPLACEMENTS, KEY_TO_UNICODE_NAME, REPLACED_KEYS
from textual.pilot import Pilot


def key_event(key: str) -> events.Key:
    """The Key event `Pilot.press(key)` sends: `key` is a key name or a single character."""
    if len(key) == 1 and not key.isalnum():
        try:
            key = unicodedata.name(key).lower().replace("-", "_").replace(" ", "_")
        except ValueError:
            key = ASCII_KEY_NAMES.get(key, key)
        key = KEY_NAME_REPLACEMENTS.get(key, key)
    original = REPLACED_KEYS.get(key, key)
    character: str | None
    try:
        character = unicodedata.lookup(KEY_TO_UNICODE_NAME.get(original, original))
    except KeyError:
        character = key if len(key) == 1 else None
    return events.Key(key, character)


def text_keys(text: str) -> list[str]:
    """The keys that type `text` into the composer: a newline is ctrl+j."""
    return ["ctrl+j" if char == "\n" else char for char in text]


async def press_at_once(pilot: Pilot[Any], *keys: str) -> None:
    """Post the events of `keys` together, in order, then wait until the app has handled them."""
    app = pilot.app
    for key in keys:
        event = key_event(key)
        event.set_sender(app)  # as the driver sends it
        app.post_message(event)
    # The app forwards each key to the focused widget's queue: the first pause sees the app's
    # queue through, the second the widgets' (each pause also waits for the process to go idle).
    await pilot.pause()
    await pilot.pause()

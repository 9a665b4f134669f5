"""`press_at_once` sends what `Pilot.press` sends, in order, and returns once all is handled."""

from __future__ import annotations

import string

from textual import events
from textual.app import App, ComposeResult
from textual.widget import Widget

from tests.ui.key_burst import press_at_once, text_keys

NAMED = ["enter", "ctrl+j", "backspace", "tab", "shift+tab", "up", "down", "left", "right",
         "home", "end", "escape", "delete", "space", "slash", "alt+1", "f8"]  # fmt: skip
CHARACTERS = [c for c in string.printable if c == " " or not c.isspace()] + ["é", "ß", "→", "ж"]


class Recorder(Widget, can_focus=True):
    def __init__(self) -> None:
        super().__init__()
        self.keys: list[tuple[str, str | None, bool]] = []

    def on_key(self, event: events.Key) -> None:
        self.keys.append((event.key, event.character, event.is_printable))


class RecorderApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Recorder()

    def on_mount(self) -> None:
        self.query_one(Recorder).focus()


async def test_the_burst_sends_the_events_pilot_press_sends_in_order() -> None:
    keys = [*CHARACTERS, *NAMED]
    app = RecorderApp()
    async with app.run_test() as pilot:
        recorder = app.query_one(Recorder)
        for key in keys:
            await pilot.press(key)
        pressed = list(recorder.keys)
        assert len(pressed) == len(keys)
        recorder.keys.clear()
        await press_at_once(pilot, *keys)
        assert recorder.keys == pressed  # all of them handled when it returns, in order


async def test_a_newline_is_typed_as_ctrl_j() -> None:
    app = RecorderApp()
    async with app.run_test() as pilot:
        await press_at_once(pilot, *text_keys("a b\nc"))
        assert [key for key, _, _ in app.query_one(Recorder).keys] == [
            "a", "space", "b", "ctrl+j", "c"
        ]  # fmt: skip

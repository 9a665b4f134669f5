"""The inspector's key line: its screen's shown bindings drawn as one widget.

Textual's `Footer` is a widget per key and recomposes them whenever the screen it is on comes
back; with the app's bindings that was most of the time the inspector took to open (~50 ms of
the 50 ms it may take). This is one line of text built from the screen's bindings (keys as the
keymap set them), the command palette's key on the right as the footer shows it; pressing the
mouse on a key presses the key, as on the footer.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.widget import Widget


class KeyBar(Widget):
    """Keys and what they do, for the screen's bindings marked `show`."""

    COMPONENT_CLASSES = {"key-bar--key", "key-bar--description"}
    DEFAULT_CSS = """
    KeyBar {
        height: 1;
        dock: bottom;
        background: $footer-background;
        .key-bar--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .key-bar--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._spans: list[tuple[int, int, str]] = []
        """Cells each key takes on the line, and the key."""

    def _shown(self) -> tuple[list[Binding], Binding | None]:
        """The screen's own bindings marked `show`, one per action, and the palette's."""
        screen = self.screen
        active = screen.active_bindings
        shown: dict[str, Binding] = {}
        for item in active.values():
            binding = item.binding
            if item.node is screen and binding.show and binding.action not in shown:
                shown[binding.action] = binding
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        with_palette = self.app.ENABLE_COMMAND_PALETTE and palette is not None
        return list(shown.values()), palette.binding if with_palette and palette else None

    def render(self) -> Text:
        key_style = self.get_component_rich_style("key-bar--key")
        description_style = self.get_component_rich_style("key-bar--description")
        text = Text(no_wrap=True, overflow="crop", end="")
        spans = []
        bindings, palette = self._shown()

        def add(binding: Binding, *, pad: bool = True) -> None:
            start = text.cell_len
            key = self.app.get_key_display(binding)
            text.append(f" {key} " if pad else key, key_style)
            text.append(f"{binding.description} " if pad else binding.description,
                        description_style)  # fmt: skip
            spans.append((start, text.cell_len, binding.key))

        for binding in bindings:
            add(binding)
        if palette is not None:
            label = self.app.get_key_display(palette) + palette.description
            gap = self.size.width - text.cell_len - len(label) - 1
            if gap > 0:
                text.append(" " * gap)
                add(palette, pad=False)
        self._spans = spans
        return text

    def on_mouse_down(self, event: events.MouseDown) -> None:
        """A click on a key's label presses that key."""
        for start, end, key in self._spans:
            if start <= event.x < end:
                self.app.simulate_key(key)
                return

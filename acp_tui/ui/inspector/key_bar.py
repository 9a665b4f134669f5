"""The inspector's key line: its screen's shown bindings drawn as one widget.

Textual's `Footer` is a widget per key and recomposes them whenever the screen it is on comes
back; with the app's bindings that was most of the time the inspector took to open (~50 ms of
the 50 ms it may take). This is one line of text built from the screen's bindings (keys as the
keymap set them), the command palette's key on the right as the footer shows it; pressing the
mouse on a key presses the key, as on the footer. Keys that do not fit one line go on to a
second (80 columns hold about eight of them): none is lost off the right edge.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.widget import Widget


class KeyBar(Widget):
    """Keys and what they do, for the screen's bindings marked `show`."""

    COMPONENT_CLASSES = {"key-bar--key", "key-bar--description"}
    DEFAULT_CSS = """
    KeyBar {
        height: auto;
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
        self._spans: list[tuple[int, int, int, str]] = []
        """The line and cells each key takes, and the key."""

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

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """As many lines as the keys take at `width`."""
        return len(self._laid_out(width)[0])

    def render(self) -> Text:
        lines, self._spans = self._laid_out(self.size.width)
        return Text("\n", no_wrap=True, overflow="crop", end="").join(lines)

    def _laid_out(self, width: int) -> tuple[list[Text], list[tuple[int, int, int, str]]]:
        """The keys in lines of at most `width` cells (a new line where the next key would
        not fit), the palette's at the right of the last when there is room; and where each
        key is (line, first cell, cell after it, key)."""
        key_style = self.get_component_rich_style("key-bar--key")
        description_style = self.get_component_rich_style("key-bar--description")
        bindings, palette = self._shown()
        lines = [Text(no_wrap=True, overflow="crop", end="")]
        spans: list[tuple[int, int, int, str]] = []

        def add(binding: Binding, *, pad: bool = True) -> None:
            key = self.app.get_key_display(binding)
            label = Text.assemble(
                (f" {key} " if pad else key, key_style),
                (f"{binding.description} " if pad else binding.description, description_style),
            )
            text = lines[-1]
            if text.cell_len and text.cell_len + label.cell_len > width:
                text = Text(no_wrap=True, overflow="crop", end="")
                lines.append(text)
            start = text.cell_len
            text.append_text(label)
            spans.append((len(lines) - 1, start, text.cell_len, binding.key))

        for binding in bindings:
            add(binding)
        if palette is not None:
            text = lines[-1]
            label = self.app.get_key_display(palette) + palette.description
            gap = width - text.cell_len - len(label) - 1
            if gap > 0:
                text.append(" " * gap)
                add(palette, pad=False)
        return lines, spans

    def on_mouse_down(self, event: events.MouseDown) -> None:
        """A click on a key's label presses that key."""
        for line, start, end, key in self._spans:
            if line == event.y and start <= event.x < end:
                self.app.simulate_key(key)
                return

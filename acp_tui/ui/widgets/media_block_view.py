"""An image or audio block from the agent: a placeholder with its type and size; focus it and
press `o` to open it with the system viewer."""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.widgets import Static

from acp_tui.composer.system_open import media_file, open_with_system


class MediaBlockView(Static, can_focus=True):
    DEFAULT_CSS = """
    MediaBlockView:focus { background: $boost; }
    """
    BINDINGS = [Binding("o", "open_media", "open in viewer", id="media.open")]

    def __init__(self, block: Any, renderable: Any) -> None:
        super().__init__(renderable, classes="content-block")
        self.block = block
        self.opened: list[str] = []

    def action_open_media(self) -> None:
        try:
            path = media_file(str(getattr(self.block, "data", "")),
                              str(getattr(self.block, "mime_type", "")))  # fmt: skip
        except (ValueError, OSError) as error:
            self.notify(f"Cannot open: {error}", severity="error", markup=False)
            return
        problem = open_with_system(path)
        if problem is not None:
            self.notify(f"Cannot open {path}: {problem}", severity="error", markup=False)
            return
        self.opened.append(str(path))
        self.notify(f"Opened {path.name} with the system viewer", markup=False)

"""An image or audio block from the agent: a placeholder with its type and size; focus it and
press `o` to open it with the system viewer."""

from __future__ import annotations

from rich.console import RenderableType
from textual.binding import Binding
from textual.widgets import Static

from acp_tui.composer.system_open import media_file, open_with_system
from acp_tui.protocol.models import AudioContent, ImageContent
from acp_tui.ui.plain import notify


class MediaBlockView(Static, can_focus=True):
    """An image or audio block described in one line; o opens it in the system viewer."""

    DEFAULT_CSS = """
    MediaBlockView:focus { background: $boost; }
    """
    BINDINGS = [Binding("o", "open_media", "open in viewer", id="media.open")]

    def __init__(self, block: ImageContent | AudioContent, renderable: RenderableType) -> None:
        super().__init__(renderable, classes="content-block")
        self.block = block
        self.opened: list[str] = []

    def action_open_media(self) -> None:
        try:
            path = media_file(self.block.data, self.block.mime_type)
        except (ValueError, OSError) as error:
            notify(self, f"Cannot open: {error}", severity="error")
            return
        problem = open_with_system(path)
        if problem is not None:
            notify(self, f"Cannot open {path}: {problem}", severity="error")
            return
        self.opened.append(str(path))
        notify(self, f"Opened {path.name} with the system viewer")

"""An image or audio block from the agent: a placeholder with its type and size; focus it and
press `o` to open it with the system viewer."""

from __future__ import annotations

from rich.console import RenderableType
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import Static

from acp_tui.output.system_open import media_file, open_with_system
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
        """Open the image or audio with the desktop's program (through a temporary file of the
        host's).
        """
        opened = open_media(self, self.block)
        if opened is not None:
            self.opened.append(opened)


def open_media(widget: Widget, block: ImageContent | AudioContent) -> str | None:
    """Write ``block`` to a file and open it with the system viewer, saying so (or why not)
    on ``widget``'s screen; the file's path, None if it failed."""
    try:
        path = media_file(block.data, block.mime_type)
    except (ValueError, OSError) as error:
        notify(widget, f"Cannot open: {error}", severity="error")
        return None
    problem = open_with_system(path)
    if problem is not None:
        notify(widget, f"Cannot open {path}: {problem}", severity="error")
        return None
    notify(widget, f"Opened {path.name} with the system viewer")
    return str(path)

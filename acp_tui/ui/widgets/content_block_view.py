"""Non-text content blocks: image/audio placeholders, resource links, embedded resources."""

from __future__ import annotations

import base64
import json
from typing import Any

from rich.console import RenderableType
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from acp_tui.safe_text import safe_text
from acp_tui.ui.plain import literal


def human_size(count: int) -> str:
    """A byte count for people, e.g. "1.5 MB"."""
    size = float(count)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{count} B"


def decoded_size(data: str) -> int:
    """How many bytes base64 `data` holds (estimated when it is not valid base64)."""
    try:
        return len(base64.b64decode(data, validate=False))
    except (ValueError, TypeError):
        return len(data) * 3 // 4


def block_type(block: Any) -> str | None:
    """A content block's `type`, if it has a string one."""
    kind = getattr(block, "type", None)
    return kind if isinstance(kind, str) else None


def describe_block(block: Any) -> RenderableType:
    """A one-or-few-line renderable for a block that is not plain text."""
    kind = block_type(block)
    if kind in ("image", "audio"):
        icon = "🖼" if kind == "image" else "🔊"
        text = Text(f"{icon} [{kind}: {getattr(block, 'mime_type', '?')}, ", style="magenta")
        text.append(f"{human_size(decoded_size(str(getattr(block, 'data', ''))))}]")
        uri = getattr(block, "uri", None)
        if uri:
            text.append(f" {uri}", style="dim")
        return text
    if kind == "resource_link":
        text = Text("🔗 ", style="cyan")
        title = getattr(block, "title", None) or getattr(block, "name", "")
        uri = str(getattr(block, "uri", ""))
        # Style objects: a style *string* would parse the agent's URI as style words
        text.append(str(title), style=Style(bold=True, link=uri or None))
        text.append(f"  {uri}", style=Style(dim=True, link=uri or None))
        size = getattr(block, "size", None)
        if isinstance(size, int):
            text.append(f"  ({human_size(size)})", style="dim")
        return text
    raw = getattr(block, "raw", block)
    try:
        shown = json.dumps(raw, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        shown = repr(raw)
    return Text(safe_text(f"[{kind or 'unknown'} content]\n{shown[:2000]}"), style="dim")


class EmbeddedResourceView(Widget):
    """An embedded resource: collapsed to its URI, expandable to its text."""

    DEFAULT_CSS = """
    EmbeddedResourceView { height: auto; }
    EmbeddedResourceView Collapsible { padding: 0; border: none; }
    """

    def __init__(self, block: Any) -> None:
        super().__init__()
        self.block = block

    def compose(self) -> ComposeResult:
        resource = getattr(self.block, "resource", None)
        uri = str(getattr(resource, "uri", "resource"))
        text = getattr(resource, "text", None)
        if isinstance(text, str):
            lexer = Syntax.guess_lexer(uri, text[:2000])
            body: RenderableType = Syntax(text, lexer, word_wrap=True, line_numbers=False)
            title = f"📎 {uri} ({len(text.splitlines())} lines)"
        else:
            blob = str(getattr(resource, "blob", ""))
            body = Text(f"binary, {human_size(decoded_size(blob))}", style="dim")
            title = f"📎 {uri}"
        # a Collapsible parses its title as markup: the agent's URI must not be
        with Collapsible(title=literal(title), collapsed=True):
            yield Static(body)


def block_widget(block: Any) -> Widget:
    """The widget that shows a content block: an embedded resource view, a media view that opens the
    file, or a one-line description."""
    if block_type(block) == "resource":
        return EmbeddedResourceView(block)
    if block_type(block) in ("image", "audio"):
        from acp_tui.ui.widgets.media_block_view import MediaBlockView

        return MediaBlockView(block, describe_block(block))
    return Static(describe_block(block), classes="content-block")

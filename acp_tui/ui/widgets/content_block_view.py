"""Non-text content blocks: image/audio placeholders, resource links, embedded resources."""

from __future__ import annotations

import base64
import json

from rich.console import RenderableType
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from acp_tui.protocol.models import (
    AudioContent,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextResourceContents,
    UnknownContent,
)
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


def block_type(block: ContentBlock) -> str | None:
    """The block's wire `type` (an unknown block's own, if it names one)."""
    return block.type


def describe_block(block: ContentBlock) -> RenderableType:
    """A one-or-few-line renderable for a block that is not plain text."""
    match block:
        case ImageContent() | AudioContent():
            icon = "🖼" if block.type == "image" else "🔊"
            text = Text(f"{icon} [{block.type}: {block.mime_type}, ", style="magenta")
            text.append(f"{human_size(decoded_size(block.data))}]")
            uri = block.uri if isinstance(block, ImageContent) else None
            if uri:
                text.append(f" {uri}", style="dim")
            return text
        case ResourceLink():
            text = Text("🔗 ", style="cyan")
            title = block.title or block.name
            uri = block.uri
            # Style objects: a style *string* would parse the agent's URI as style words
            text.append(title, style=Style(bold=True, link=uri or None))
            text.append(f"  {uri}", style=Style(dim=True, link=uri or None))
            if block.size is not None:
                text.append(f"  ({human_size(block.size)})", style="dim")
            return text
    raw: object = block.raw if isinstance(block, UnknownContent) else block
    try:
        shown = json.dumps(raw, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        shown = repr(raw)
    return Text(safe_text(f"[{block.type or 'unknown'} content]\n{shown[:2000]}"), style="dim")


class EmbeddedResourceView(Widget):
    """An embedded resource: collapsed to its URI, expandable to its text."""

    DEFAULT_CSS = """
    EmbeddedResourceView { height: auto; }
    EmbeddedResourceView Collapsible { padding: 0; border: none; }
    """

    def __init__(self, block: EmbeddedResource) -> None:
        super().__init__()
        self.block = block

    def compose(self) -> ComposeResult:
        resource = self.block.resource
        uri = resource.uri
        if isinstance(resource, TextResourceContents):
            text = resource.text
            from rich.syntax import Syntax  # (pygments: loaded when first shown)

            lexer = Syntax.guess_lexer(uri, text[:2000])
            body: RenderableType = Syntax(text, lexer, word_wrap=True, line_numbers=False)
            title = f"📎 {uri} ({len(text.splitlines())} lines)"
        else:
            blob = resource.blob
            body = Text(f"binary, {human_size(decoded_size(blob))}", style="dim")
            title = f"📎 {uri}"
        # a Collapsible parses its title as markup: the agent's URI must not be
        with Collapsible(title=literal(title), collapsed=True):
            yield Static(body)


def block_widget(block: ContentBlock) -> Widget:
    """The widget that shows a content block: an embedded resource view, a media view that opens the
    file, or a one-line description."""
    match block:
        case EmbeddedResource():
            return EmbeddedResourceView(block)
        case ImageContent() | AudioContent():
            from acp_tui.ui.widgets.media_block_view import MediaBlockView

            return MediaBlockView(block, describe_block(block))
    return Static(describe_block(block), classes="content-block")

"""Streaming Markdown: an incremental block splitter and a widget that renders it."""

from acp_tui.ui.markdown.stream_view import StreamingMarkdown

__all__ = ["StreamingMarkdown"]

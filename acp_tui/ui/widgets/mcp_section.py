"""The sidebar's MCP servers: what the last session/new, load or resume passed to the agent.

Hidden when no MCP server is configured. Names come from the user's config, shown as plain text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from acp_tui.client.events import SessionState
from acp_tui.mcp_servers import server_kind
from acp_tui.safe_text import safe_text

if TYPE_CHECKING:
    from acp_tui.client.session.facade import SessionFacade


def describe_servers(
    sent: Sequence[dict[str, object]], configured: Sequence[dict[str, object]]
) -> Text:
    """The servers passed (name, kind, where), then the configured ones not passed, struck."""
    text = Text()
    for server in sent:
        where = server.get("url") if server_kind(server) != "stdio" else server.get("command")
        if text:
            text.append("\n")
        text.append(safe_text(str(server.get("name", "?"))), style="bold")
        text.append(f"  {server_kind(server)}", style="dim")
        text.append(f"\n  {safe_text(str(where))}", style="dim")
    sent_names = {str(s.get("name")) for s in sent}
    for server in configured:
        if str(server.get("name")) not in sent_names:
            if text:
                text.append("\n")
            text.append(safe_text(str(server.get("name", "?"))), style="strike dim")
            text.append(f"  {server_kind(server)}: not passed", style="dim")
    return text


class McpSection(Static):
    """The title and the list; refreshed whenever the session becomes ready."""

    def __init__(self, session: SessionFacade, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.session = session
        self._unsubscribe: Callable[[], None] | None = None
        self._shown: Text | None = None
        """The list drawn (drawn again only when it changes: each update lays the screen out,
        and the session's start to "ready" changed nothing here but asked for a layout)."""

    def on_mount(self) -> None:
        """Follow the session's state and list its MCP servers."""
        self._unsubscribe = self.session.state_changed.subscribe(self._on_state)
        self.refresh_servers()

    def on_unmount(self) -> None:
        """Stop following the session's state."""
        if self._unsubscribe is not None:
            self._unsubscribe()

    def _on_state(self, state: SessionState) -> None:
        if state is SessionState.READY:
            self.refresh_servers()

    def refresh_servers(self) -> None:
        """List the configured MCP servers and which were sent to the agent (hidden when none
        are configured).
        """
        configured = self.session.mcp_servers
        self.display = bool(configured)
        title = Text("MCP servers", style="bold")
        body = describe_servers(self.session.mcp_sent, configured)
        shown = Text("\n").join([title, body]) if body else title
        if shown != self._shown:
            self._shown = shown
            self.update(shown)

"""What an empty conversation says: whom you talk to, how to send, `/` and `@`, where help is;
while the agent starts, for how long it has been starting and the last lines of its stderr.

The first screen was three quarters empty conversation with no word, and "● starting" with no
time: an agent that hung in `session/new` looked the same at 3 s and at 3 minutes.
"""

from __future__ import annotations

import time

from rich.console import Group, RenderableType
from rich.text import Text
from textual.widgets import Static

from acp_tui.client.events import SessionState
from acp_tui.client.session.facade import SessionFacade
from acp_tui.composer.slash import agent_commands
from acp_tui.ui.key_labels import key_label
from acp_tui.ui.widgets.status_bar import format_elapsed

STDERR_LINES = 6
TOUR = "tour"
"""An agent command the hint names when the agent offers it (the demo's guided tour)."""


class EmptyState(Static):
    """The hint over an empty conversation (hidden once it has an entry)."""

    DEFAULT_CSS = """
    EmptyState {
        height: auto;
        padding: 1 2;
        color: $text-muted;
    }
    """

    def __init__(self, session: SessionFacade, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session = session
        self._shown: str | None = None
        """The text drawn (drawn again only when it changes: a tab shown again lays out
        nothing that did not change)."""

    def on_mount(self) -> None:
        """Draw it as the session is now."""
        self.update_state()

    def update_state(self) -> None:
        """Draw it again (the state, the agent's name or commands changed, a second passed
        while it starts); shown only while the conversation is empty."""
        empty = not self.session.thread.entries
        if self.display != empty:
            self.display = empty
        if empty:
            renderable = self.renderable_now()
            text = "\n".join(r.plain for r in renderable.renderables if isinstance(r, Text))
            if text != self._shown:
                self._shown = text
                self._redraw(renderable)

    def _redraw(self, renderable: Group) -> None:
        """Draw `renderable`; the screen laid out again only if the hint's height changes (the
        session's start to "ready" is three lines for three: a layout of the whole screen,
        the largest part of the frame that says "ready")."""
        laid_out = self.content_size
        self.update(renderable, layout=False)
        width, height = laid_out
        if not width or self.get_content_height(self.size, self.app.size, width) != height:
            self.refresh(layout=True)

    def renderable_now(self) -> Group:
        """The hint for the session as it is now."""
        session = self.session
        name = session.agent_name
        lines: list[RenderableType] = []
        since = session.starting_since
        if session.state is SessionState.STARTING:
            title = Text(f"Starting {name}… ", style="bold")
            if since is not None:
                title.append(format_elapsed(time.monotonic() - since), style="bold yellow")
            lines.append(title)
            stderr = session.stderr_tail(STDERR_LINES)
            if stderr:
                lines.append(Text("its stderr:", style="dim"))
                lines += [Text("  " + line, no_wrap=True, overflow="ellipsis") for line in stderr]
            lines.append(Text("Type your prompt already: it is sent once the session is open."))
        else:
            lines.append(Text(name, style="bold"))
            lines.append(Text("Type a prompt and press enter to send it (ctrl+j: a new line)."))
        lines.append(self._keys_line())
        return Group(*lines)

    def _keys_line(self) -> Text:
        app = self.app
        line = Text()
        line.append("/", style="bold")
        line.append(" commands   ")
        line.append("@", style="bold")
        line.append(" attach a file   ")
        line.append(key_label(app, "app.help", "f1"), style="bold")
        line.append(" help")
        if any(c.name == TOUR for c in agent_commands(self.session.thread.commands)):
            line.append("   ")
            line.append(f"/{TOUR}", style="bold")
            line.append(" a guided tour")
        return line

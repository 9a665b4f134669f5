"""The status line: agent, title, mode, model, thought level, running indicator, usage."""

from __future__ import annotations

import time

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def format_tokens(count: int) -> str:
    """A token count for the status bar, e.g. "12.3k", "1.2M"."""
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f}M"
    if count >= 1_000:
        return f"{count / 1_000:.1f}k"
    return str(count)


def format_elapsed(seconds: float) -> str:
    """A duration for the status bar, e.g. "42s", "3m05s"."""
    seconds = max(0, int(seconds))
    minutes, secs = divmod(seconds, 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


class StatusBar(Widget):
    """The line at the bottom: agent, session title, mode, the running turn (time, how to cancel) or
    the session state, usage."""

    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        background: $panel;
        color: $text-muted;
        padding: 0 1;
    }
    """

    agent_name: reactive[str] = reactive("")
    title: reactive[str] = reactive("")
    mode: reactive[str] = reactive("")
    model: reactive[str] = reactive("")
    thought: reactive[str] = reactive("")
    thought_name: reactive[str] = reactive("thinking")
    """What the agent calls its thought-level option ("Effort", "Reasoning Effort"), made safe."""
    state: reactive[str] = reactive("starting")
    usage: reactive[str] = reactive("")
    running_since: reactive[float | None] = reactive(None)
    starting_since: reactive[float | None] = reactive(None)
    """While the agent starts: since when (its time is shown beside "starting")."""
    queued: reactive[int] = reactive(0)
    activity: reactive[str] = reactive("")
    """v2: what `state_update` said, e.g. "idle · end_turn" or "requires action: Edit a.py"."""

    def on_mount(self) -> None:
        """Tick four times a second (the turn's clock); `show_clock` pauses it while hidden."""
        self._ticker = self.set_interval(0.25, self._tick)

    def show_clock(self, shown: bool) -> None:
        """Tick the running turn's clock only while shown (a session in the background costs no
        timer); shown again, it is drawn up to date at once."""
        if shown:
            self._ticker.resume()
            self._tick()
        else:
            self._ticker.pause()

    def _tick(self) -> None:
        if self.running_since is not None or self.starting_since is not None:
            self.refresh()

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f" {self.agent_name or 'agent'} ", style="bold reverse")
        if self.title:
            text.append(f" {self.title}", style="bold")
        if self.mode:
            text.append("  mode: ", style="dim")
            text.append(self.mode, style="bold")
        if self.model:
            text.append("  model: ", style="dim")
            text.append(self.model, style="bold")
        if self.thought:
            text.append(f"  {self.thought_name}: ", style="dim")
            text.append(self.thought, style="bold")
        if self.running_since is not None:
            elapsed = time.monotonic() - self.running_since
            frame = SPINNER[int(elapsed * 8) % len(SPINNER)]
            text.append(f"  {frame} working {format_elapsed(elapsed)}", style="bold yellow")
            text.append("  esc to cancel", style="dim")
        else:
            text.append(f"  ● {self.state}", style=_state_style(self.state))
            if self.starting_since is not None and self.state == "starting":
                waited = format_elapsed(time.monotonic() - self.starting_since)
                text.append(f" {waited}", style=_state_style(self.state))
        if self.activity:
            style = "bold magenta" if self.activity.startswith("requires") else "dim"
            text.append(f"  {self.activity}", style=style)
        if self.queued:
            text.append(f"  {self.queued} queued", style="cyan")
        if self.usage:
            text.append(f"  {self.usage}", style="dim")
        return text


def _state_style(state: str) -> str:
    return {
        "ready": "green",
        "crashed": "bold red",
        "failed": "bold red",
        "authenticating": "yellow",
    }.get(state, "dim")

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
    replay: reactive[str] = reactive("")
    """`--replay`: where the recording is, e.g. "12/68 x1 paused"."""

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
        """The parts in their order; on a narrow screen the least needed go first (the thought
        level, the title, the model, the cancel hint, the usage, the mode), so the state, or the
        running turn and its time, always show (at 80 columns they were cut off)."""
        parts = self.parts()
        width = self.content_size.width
        kept = sorted(range(len(parts)), key=lambda i: parts[i][0])  # most needed last
        shown = set(range(len(parts)))
        for index in kept:
            if width <= 0 or sum(parts[i][1].cell_len for i in shown) <= width:
                break
            if parts[index][0] < KEEP:
                shown.discard(index)
        text = Text(no_wrap=True, overflow="ellipsis")
        for index in sorted(shown):
            text.append_text(parts[index][1])
        return text

    def parts(self) -> list[tuple[int, Text]]:
        """What the bar says, in order, each with how much it is needed (dropped lowest first
        when the bar is too narrow; `KEEP` never)."""
        parts: list[tuple[int, Text]] = [
            (KEEP, Text(f" {self.agent_name or 'agent'} ", style="bold reverse"))
        ]
        if self.replay:
            parts.append((KEEP, Text(f"  frame {self.replay}", style="bold cyan")))
        if self.title:
            parts.append((2, Text(f" {self.title}", style="bold")))
        if self.mode:
            parts.append((6, Text.assemble(("  mode: ", "dim"), (self.mode, "bold"))))
        if self.model:
            parts.append((3, Text.assemble(("  model: ", "dim"), (self.model, "bold"))))
        if self.thought:
            name = f"  {self.thought_name}: "
            parts.append((1, Text.assemble((name, "dim"), (self.thought, "bold"))))
        if self.running_since is not None:
            elapsed = time.monotonic() - self.running_since
            frame = SPINNER[int(elapsed * 8) % len(SPINNER)]
            working = f"  {frame} working {format_elapsed(elapsed)}"
            parts.append((KEEP, Text(working, style="bold yellow")))
            parts.append((4, Text("  esc to cancel", style="dim")))
        else:
            state = Text(f"  ● {self.state}", style=_state_style(self.state))
            if self.starting_since is not None and self.state == "starting":
                state.append(f" {format_elapsed(time.monotonic() - self.starting_since)}")
            parts.append((KEEP, state))
        if self.activity:
            style = "bold magenta" if self.activity.startswith("requires") else "dim"
            parts.append((KEEP, Text(f"  {self.activity}", style=style)))
        if self.queued:
            parts.append((KEEP, Text(f"  {self.queued} queued", style="cyan")))
        if self.usage:
            parts.append((5, Text(f"  {self.usage}", style="dim")))
        return parts


KEEP = 100
"""A part of the status bar never dropped for the width (the agent, its state, what waits)."""


def _state_style(state: str) -> str:
    return {
        "ready": "green",
        "crashed": "bold red",
        "failed": "bold red",
        "authenticating": "yellow",
    }.get(state, "dim")

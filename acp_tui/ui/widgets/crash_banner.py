"""The banner shown when the agent exits or fails: what happened, stderr tail, how to restart."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from textual.widgets import Static

from acp_tui.client.events import AgentCrash
from acp_tui.client.unavailable_package import unavailable_package


class CrashBanner(Static):
    """The banner over the conversation when the agent crashed or could not start: what happened,
    its last stderr lines, how to restart."""

    DEFAULT_CSS = """
    CrashBanner {
        dock: top;
        height: auto;
        max-height: 18;
        background: $error 20%;
        border: heavy $error;
        padding: 0 1;
        display: none;
    }
    CrashBanner.-visible { display: block; }
    """

    def show_crash(self, crash: AgentCrash, agent_name: str) -> None:
        """Show how the agent ended and what it last wrote to stderr."""
        self.update(crash_renderable(crash, agent_name))
        self.add_class("-visible")

    def show_stall(self, stall: AgentCrash, agent_name: str, keys: str) -> None:
        """Show that the agent is not answering: since when, during what, its stderr, and
        `keys` (how to wait, restart or quit)."""
        self.update(crash_renderable(stall, agent_name, keys))
        self.add_class("-visible")

    def show_error(self, message: str) -> None:
        """Show an error that stopped the session (e.g. a failed handshake)."""
        title = Text("✖ ", style="bold red")
        title.append(message, style="bold")
        self.update(Group(title, Text("ctrl+r restart the agent · ctrl+q quit", style="dim")))
        self.add_class("-visible")

    def hide(self) -> None:
        """Hide the banner (the agent runs again)."""
        self.remove_class("-visible")


def crash_renderable(
    crash: AgentCrash,
    agent_name: str,
    keys: str = "ctrl+r restart the agent and continue · ctrl+q quit",
) -> RenderableType:
    """The banner's text for a crash (or a stall): what happened, during what, the last stderr
    lines and the keys."""
    title = Text("✖ ", style="bold red")
    title.append(f"{agent_name} {crash.description.removeprefix('agent ')}", style="bold")
    when = "while idle" if crash.during == "idle" else f"during {crash.during}"
    title.append(f" ({when})", style="dim")
    lines: list[RenderableType] = [title]
    if crash.stderr_tail:
        lines.append(Text("last lines of its stderr:", style="dim"))
        for line in crash.stderr_tail[-10:]:
            lines.append(Text("  " + line, style="red", no_wrap=True, overflow="ellipsis"))
    else:
        lines.append(Text("it wrote nothing to stderr", style="dim"))
    early = crash.during not in ("prompt", "idle")
    missing = unavailable_package(crash.stderr_tail) if early else None
    if missing is not None:  # a restart installs the same missing version: not offered
        lines.append(Text(missing.advice(), style="bold yellow"))
        lines.append(Text("ctrl+t another agent or version · ctrl+q quit", style="bold"))
        return Group(*lines)
    lines.append(Text(keys, style="bold"))
    return Group(*lines)

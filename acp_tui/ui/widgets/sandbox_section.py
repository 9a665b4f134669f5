"""The sidebar's Sandbox: which sandbox the agent and its terminals run in and what it allows."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from acp_tui.safe_text import safe_text
from acp_tui.sandbox.policy import shown_path

if TYPE_CHECKING:
    from acp_tui.client.session.facade import SessionFacade
    from acp_tui.sandbox.policy import SandboxPolicy


def describe_sandbox(policy: SandboxPolicy | None, error: str | None, home: Path) -> Text:
    """The mode in a line, then the places it may write and the secrets it may not read."""
    text = Text("Sandbox", style="bold")
    if policy is None:
        text.append("\nnot started: ", style="bold red")
        text.append(safe_text(error or "the sandbox could not be set up"))
        return text
    if not policy.active:
        text.append("\noff", style="bold yellow")
        text.append(f": {policy.notice or 'the agent runs unsandboxed'}", style="dim")
        return text
    text.append(f"\n{policy.mode.value}", style="bold green")
    text.append(f"  Landlock ABI {policy.abi}", style="dim")
    text.append("\nwrites only in:", style="dim")
    for path in policy.writable:
        text.append(f"\n  {safe_text(shown_path(path, home))}")
    if policy.unreadable:
        text.append("\nunreadable:", style="dim")
        for path in policy.unreadable:
            text.append(f"\n  {safe_text(shown_path(path, home))}")
    return text


class SandboxSection(Static):
    """The section (its content is fixed for the session: the sandbox is planned once)."""

    def __init__(self, session: SessionFacade, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.session = session

    def on_mount(self) -> None:
        """Say what the sandbox is."""
        self.update(describe_sandbox(self.session.sandbox, self.session.sandbox_error, Path.home()))

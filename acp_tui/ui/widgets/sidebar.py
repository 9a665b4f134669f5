"""The sidebar: session modes, settings (config options), the plans, the agent's notices, the
slash commands."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from acp_tui.thread import thread_changes
from acp_tui.thread.thread import Thread
from acp_tui.ui.widgets.account_section import AccountSection
from acp_tui.ui.widgets.mcp_section import McpSection
from acp_tui.ui.widgets.mode_list import ModeList
from acp_tui.ui.widgets.notices_section import NoticesSection, notices_text
from acp_tui.ui.widgets.plan_view import PlanView
from acp_tui.ui.widgets.sandbox_section import SandboxSection
from acp_tui.ui.widgets.settings_section import SettingsSection

if TYPE_CHECKING:
    from acp_tui.client.session.facade import SessionFacade


class ProvidersRow(Static, can_focus=True):
    """In Settings, when the agent offers `providers/*`: Enter or a click opens the providers."""

    DEFAULT_CSS = """
    ProvidersRow { height: auto; padding: 0 0 0 1; margin-bottom: 1; }
    ProvidersRow:focus { background: $boost; }
    ProvidersRow:hover { background: $boost; }
    """
    BINDINGS = [Binding("enter", "open", "providers", show=False)]

    def __init__(self, session: SessionFacade, *, id: str | None = None) -> None:
        super().__init__(Text("LLM providers…", style="bold"), id=id)
        self.session = session

    def on_click(self) -> None:
        """A click opens the providers screen."""
        self.action_open()

    def action_open(self) -> None:
        """Open the agent's providers screen."""
        from acp_tui.ui.screens.providers_screen import ProvidersScreen

        self.app.push_screen(ProvidersScreen(self.session))


class Sidebar(VerticalScroll):
    """The session's side panel: modes, plans, the agent's slash commands."""

    DEFAULT_CSS = """
    Sidebar {
        width: 38;
        height: 1fr;
        border-left: vkey $primary 30%;
        padding: 0 1;
    }
    Sidebar .section-title { text-style: bold; color: $text-accent; margin-top: 1; }
    Sidebar #plans { height: auto; }
    Sidebar #commands { color: $text-muted; }
    Sidebar #mcp-servers { margin-top: 1; }
    Sidebar #sandbox { margin-top: 1; }
    """

    def __init__(
        self, thread: Thread, *, id: str | None = None, session: SessionFacade | None = None
    ) -> None:
        super().__init__(id=id)
        self.thread = thread
        self.session = session  # for the MCP servers passed (optional)
        self._unsubscribe: Callable[[], None] | None = None
        self._stale: list[Callable[[], None]] | None = None
        """While its tab is hidden: the sections to redraw when it is shown again."""
        self._notices_due = False
        """The notices section is redrawn once after the next screen refresh, not per notice."""

    def compose(self) -> ComposeResult:
        # A section with nothing to show yet (no plan, notice or command: the session is not
        # open) is composed as its refresh would draw it, not drawn again once mounted (the
        # plans' placeholder was mounted in a second pass, each section restyled and updated)
        yield Static("Modes  (shift+tab)", classes="section-title")
        yield ModeList(id="modes")
        yield Static("Settings", classes="section-title", id="settings-title")
        yield SettingsSection(self.thread, id="settings")
        if self.session is not None:
            providers = ProvidersRow(self.session, id="providers-row")
            providers.display = self._providers_offered()
            yield providers
            yield McpSection(self.session, id="mcp-servers")
            yield SandboxSection(self.session, id="sandbox")
            yield AccountSection(self.session, id="account")
        yield Static("Plans", classes="section-title", id="plans-title")
        with VerticalScroll(id="plans"):
            if not self._has_plans():
                yield _no_plan()
        no_notices = not self.thread.notices
        yield _hidden(Static("Notices", classes="section-title", id="notices-title"), no_notices)
        notices = NoticesSection(notices_text((), self.thread.notice_count), id="notices")
        yield _hidden(notices, no_notices)
        yield Static("Commands", classes="section-title", id="commands-title")
        yield Static(_no_commands() if not self.thread.commands else "", id="commands")

    def on_mount(self) -> None:
        """Follow the thread, and fill each section that has something to show by now."""
        self._unsubscribe = self.thread.subscribe(self._on_change)
        if self._has_plans():
            self.refresh_plans()
        if self._providers_offered():
            self.refresh_providers()
        if self.thread.notices:
            self.refresh_notices()
        if self.thread.commands:
            self.refresh_commands()

    def on_unmount(self) -> None:
        """Stop following the thread."""
        if self._unsubscribe is not None:
            self._unsubscribe()

    def _on_change(self, change: thread_changes.Change) -> None:
        match change:
            case thread_changes.PlanChanged() | thread_changes.PlanRemoved():
                self._refresh(self.refresh_plans)
            case thread_changes.CommandsChanged():
                self._refresh(self.refresh_commands)
            case thread_changes.NoticeReceived():
                self._refresh(self._refresh_notices_soon)

    def _refresh_notices_soon(self) -> None:
        """A notice arrived: redraw the section once for every notice that arrives meanwhile
        (a flood of thousands is one redraw a frame, not one a notice)."""
        if not self._notices_due:
            self._notices_due = True
            self.call_after_refresh(self._refresh_notices_due)

    def _refresh_notices_due(self) -> None:
        self._notices_due = False
        self.refresh_notices()

    def _refresh(self, refresh: Callable[[], None]) -> None:
        if self._stale is None:
            refresh()
        elif refresh not in self._stale:
            self._stale.append(refresh)

    def hide(self) -> None:
        """Its tab was switched away from: sections changed meanwhile are redrawn once, when it
        is shown again (`catch_up`)."""
        if self._stale is None:
            self._stale = []

    def catch_up(self) -> bool:
        """Its tab is shown again: redraw each section that changed while it was hidden. True
        if any had changed."""
        stale, self._stale = self._stale or [], None
        for refresh in stale:
            refresh()
        return bool(stale)

    def _providers_offered(self) -> bool:
        return self.session is not None and self.session.agent_capabilities.providers is not None

    def refresh_providers(self) -> None:
        """The providers row shows only when the agent offers `providers/*`."""
        offered = self._providers_offered()
        for row in self.query("#providers-row"):
            row.display = offered

    def refresh_notices(self) -> None:
        """The agent's notices from the thread (the section shows only once there is one)."""
        notices = self.thread.notices
        for widget in self.query("#notices-title, #notices"):
            widget.display = bool(notices)
        for section in self.query("#notices").results(NoticesSection):
            section.show_notices(notices, self.thread.notice_count)

    def refresh_plans(self) -> None:
        """Redraw the plans section from the thread."""
        containers = self.query("#plans").results(VerticalScroll)
        container = next(containers, None)
        if container is None:
            return  # not composed (the app is closing before it was shown)
        container.remove_children()
        views: list[PlanView] = []
        if self.thread.plan:
            view = PlanView()
            view.show_entries(self.thread.plan)
            views.append(view)
        for plan_id, state in self.thread.plans.items():
            view = PlanView()
            view.show_plan(state, f"Plan {plan_id}")
            views.append(view)
        if not views:
            views.append(_no_plan())
        container.mount_all(views)

    def _has_plans(self) -> bool:
        return bool(self.thread.plan or self.thread.plans)

    def refresh_commands(self) -> None:
        """Redraw the agent's slash commands from the thread."""
        commands = list(self.thread.commands)
        text = Text()
        for command in commands:
            text.append(f"/{command.name}", style="bold")
            text.append(f"  {command.description}\n", style="dim")
        for static in self.query("#commands").results(Static):
            static.update(text if commands else _no_commands())


def _no_commands() -> Text:
    """What the commands section shows while the agent has offered none."""
    return Text("none", style="dim")


def _no_plan() -> PlanView:
    """What the plans section shows while the thread has no plan."""
    return PlanView(Text("no plan yet", style="dim"))


def _hidden(widget: Static, hidden: bool) -> Static:
    widget.display = not hidden
    return widget

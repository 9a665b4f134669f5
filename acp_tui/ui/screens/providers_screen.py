"""The agent's LLM providers (unstable `providers/*`): listed when the screen opens, one set
with a small form (protocol from those it supports, base URL, `Name: value` header lines) or
disabled (not offered for a required one).

Headers are secrets: the form starts empty, is cleared once the agent took them, and they are
never shown or logged. Everything the agent sent is drawn as `Text`, never markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, OptionList, Select, Static, TextArea
from textual.widgets.option_list import Option

from acp_tui.client.providers import parse_headers
from acp_tui.protocol.models import ProviderInfo
from acp_tui.safe_text import safe_text
from acp_tui.ui.plain import notify

if TYPE_CHECKING:
    from acp_tui.client.session.facade import SessionFacade


def provider_text(provider: ProviderInfo) -> Text:
    """One provider in the list: id, protocols, where it points now, required."""
    text = Text(safe_text(provider.provider_id), style="bold")  # (kept raw: echoed back)
    if provider.required:
        text.append("  required", style="yellow")
    text.append(f"\n  speaks: {', '.join(provider.supported) or 'nothing listed'}", style="dim")
    current = provider.current
    now = f"{current.api_type} at {current.base_url}" if current is not None else "disabled"
    text.append(f"\n  now: {now}", style="dim")
    return text


class ProvidersScreen(ModalScreen[None]):
    """List, set and disable the agent's providers."""

    DEFAULT_CSS = """
    ProvidersScreen { align: center middle; }
    ProvidersScreen > VerticalScroll {
        width: 90; max-width: 100%; height: auto; max-height: 90%;
        border: round $primary; padding: 0 1; background: $surface;
    }
    ProvidersScreen #providers { height: auto; max-height: 14; }
    ProvidersScreen #provider-form { height: auto; }
    ProvidersScreen #headers { height: 5; }
    ProvidersScreen Horizontal { height: auto; }
    """
    BINDINGS = [Binding("escape", "close", "close", id="providers.close")]

    def __init__(self, session: SessionFacade) -> None:
        super().__init__()
        self.session = session
        self.providers: list[ProviderInfo] = []
        self.chosen: ProviderInfo | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll():  # (the form below the list fits no 24-row terminal)
            yield Static(Text("LLM providers", style="bold"))
            yield Static(Text("asking the agent…", style="dim"), id="providers-status")
            yield OptionList(id="providers")
            with Vertical(id="provider-form"):
                yield Static("", id="form-title")
                yield Select[str]([], prompt="protocol", id="api-type", allow_blank=True)
                yield Input(placeholder="base URL", id="base-url")
                yield TextArea(id="headers")
                with Horizontal():
                    yield Button("Set", id="set", variant="primary")
                    yield Button("Disable", id="disable", variant="error")

    def on_mount(self) -> None:
        """Hide the edit form and load the agent's providers in a worker."""
        self.query_one("#provider-form").display = False
        self.query_one("#headers", TextArea).border_title = "headers (Name: value lines)"
        self.run_worker(self.reload(), exclusive=True)

    def _status(self, text: str, style: str = "dim") -> None:
        self.query_one("#providers-status", Static).update(Text(safe_text(text), style=style))

    async def reload(self) -> None:
        """Ask the agent for its providers again and list them (a failure is shown, not raised)."""
        providers, error = await self.session.list_providers()
        if error is not None:
            self._status(f"providers/list failed: {error}", "red")
            return
        self.providers = providers
        self._status(f"{len(providers)} provider(s); Enter on one to change it")
        listing = self.query_one("#providers", OptionList)
        listing.clear_options()
        listing.add_options([Option(provider_text(p)) for p in providers])
        if providers:
            listing.highlighted = 0
            listing.focus()

    @on(OptionList.OptionSelected, "#providers")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        provider = self.providers[event.option_index]
        self.chosen = provider
        self.query_one("#form-title", Static).update(Text(f"Set {safe_text(provider.provider_id)}"))
        select = self.query_one("#api-type", Select)
        select.set_options([(Text(p), p) for p in provider.supported])  # never markup
        current = provider.current
        if current is not None and current.api_type in provider.supported:
            select.value = current.api_type
        elif provider.supported:
            select.value = provider.supported[0]
        self.query_one("#base-url", Input).value = current.base_url if current else ""
        self.query_one("#headers", TextArea).text = ""  # never shown back
        self.query_one("#disable", Button).display = not provider.required
        self.query_one("#provider-form").display = True
        select.focus()

    @on(Button.Pressed, "#set")
    async def _set(self) -> None:
        provider = self.chosen
        if provider is None:
            return
        api_type = self.query_one("#api-type", Select).value
        base_url = self.query_one("#base-url", Input).value.strip()
        headers, problem = parse_headers(self.query_one("#headers", TextArea).text)
        if not isinstance(api_type, str):
            problem = "pick a protocol"
        elif not base_url:
            problem = "a base URL is needed"
        if problem is not None:
            self._status(problem, "red")
            return
        assert isinstance(api_type, str)
        error = await self.session.set_provider(provider.provider_id, api_type, base_url, headers)
        self._done(provider, "set", error)

    @on(Button.Pressed, "#disable")
    async def _disable(self) -> None:
        provider = self.chosen
        if provider is None or provider.required:
            return
        error = await self.session.disable_provider(provider.provider_id)
        self._done(provider, "disabled", error)

    def _done(self, provider: ProviderInfo, what: str, error: str | None) -> None:
        if error is not None:
            self._status(f"{provider.provider_id}: {error}", "red")
            return
        notify(self.app, f"Provider {provider.provider_id} {what}")
        self.query_one("#headers", TextArea).text = ""
        self.query_one("#provider-form").display = False
        self.chosen = None
        self.run_worker(self.reload(), exclusive=True)

    def action_close(self) -> None:
        """Close the providers screen."""
        self.dismiss(None)

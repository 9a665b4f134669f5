"""The agent's LLM providers (unstable `providers/*`) from the sidebar's Settings, by keys: the
list on open, one set with the form (headers sent, never shown back), one disabled; a required
one offers no Disable; an agent without `providers` shows no entry. Frames schema-checked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual.widgets import Button, Input, OptionList, Select, TextArea
from textual.widgets._select import SelectOverlay

from acp_tui.safe_text import safe_text
from acp_tui.ui.screens.main import MainScreen
from acp_tui.ui.screens.providers_screen import ProvidersScreen
from acp_tui.ui.widgets.sidebar import ProvidersRow
from tests.agents.hostile import hostile, hostile_providers, shown_tag
from tests.agents.scenarios import initialize_ok, new_session_ok, write_scenario
from tests.ui.app_harness import AppHarness, fixed_cwd, run_app
from tests.ui.key_burst import press_at_once
from tests.ui.test_app_hostile import assert_clean, terminal_output

MAIN = {
    "providerId": "main",
    "supported": ["anthropic", "openai"],
    "required": True,
    "current": {"apiType": "anthropic", "baseUrl": "https://api.anthropic.com"},
}
FAST = {"providerId": "fast", "supported": ["openai"], "required": False, "current": None}


def palette_names(h: AppHarness) -> list[str]:
    screen = h.app.screen
    assert isinstance(screen, MainScreen)
    return [name for name, _, _ in screen.extra_commands()]


def listed(*providers: dict[str, Any]) -> dict[str, Any]:
    return {"expect": "providers/list", "respond": {"providers": list(providers)}}


async def test_providers_are_listed_set_and_disabled_from_settings(tmp_path: Path) -> None:
    fast_now = {**FAST, "current": {"apiType": "openai", "baseUrl": "http://proxy:8080"}}
    steps = [
        initialize_ok(providers={}),
        new_session_ok("s-1"),
        listed(MAIN, FAST),
        {"expect": "providers/set", "respond": {}},
        listed(MAIN, fast_now),
        {"expect": "providers/disable", "match": {"providerId": "fast"}, "respond": {}},
        listed(MAIN, FAST),
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        row = h.one(ProvidersRow)
        await h.until(lambda: row.display, "the providers row")
        assert "LLM providers…" in palette_names(h)  # (the keyboard's way there)
        row.focus()
        await h.pilot.press("enter")
        await h.until(lambda: isinstance(h.app.screen, ProvidersScreen), "the providers screen")
        screen = h.app.screen
        assert isinstance(screen, ProvidersScreen)
        listing = screen.query_one("#providers", OptionList)
        await h.until(lambda: listing.option_count == 2, "the list")
        assert "https://api.anthropic.com" in str(listing.get_option_at_index(0).prompt)
        # the required one: no Disable
        await h.pilot.press("enter")
        await h.until(lambda: screen.chosen is not None, "the form")
        assert not screen.query_one("#disable", Button).display
        # the other one: set it
        listing.focus()
        await h.pilot.press("down", "enter")
        await h.until(lambda: screen.chosen is not None and screen.chosen.provider_id == "fast", "")
        screen.query_one("#base-url", Input).focus()
        await press_at_once(h.pilot, *"http://proxy:8080")
        screen.query_one("#headers", TextArea).text = "Authorization: Bearer s3cret\n"
        screen.query_one("#set", Button).focus()
        await h.pilot.press("enter")
        await h.until(lambda: len(h.sent_methods("providers/list")) == 2, "the list again")
        (sent,) = h.sent_methods("providers/set")
        assert sent["params"] == {
            "providerId": "fast",
            "apiType": "openai",
            "baseUrl": "http://proxy:8080",
            "headers": {"Authorization": "Bearer s3cret"},
        }
        await h.until(lambda: "http://proxy:8080" in str(listing.get_option_at_index(1).prompt), "")
        assert "s3cret" not in h.screen_text()
        assert screen.query_one("#headers", TextArea).text == ""
        # ... and disable it
        listing.focus()
        listing.highlighted = 1
        await h.pilot.press("enter")
        await h.until(lambda: screen.chosen is not None, "the form")
        assert screen.query_one("#headers", TextArea).text == ""  # never shown back
        screen.query_one("#disable", Button).focus()
        await h.pilot.press("enter")
        await h.until(lambda: len(h.sent_methods("providers/list")) == 3, "the list again")
        assert h.sent_methods("providers/disable")[0]["params"] == {"providerId": "fast"}
        assert "Provider fast disabled" in h.notified
        await h.pilot.press("escape")
        await h.until(lambda: not isinstance(h.app.screen, ProvidersScreen), "closed")


async def test_no_providers_row_when_the_agent_offers_none(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok("s-1")])
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.pilot.pause()
        assert not h.one(ProvidersRow).display
        assert "LLM providers…" not in palette_names(h)


async def test_markup_in_provider_protocols_is_shown_as_text(tmp_path: Path) -> None:
    """`[/]` in a protocol name crashed the app (MarkupError) and `[b]…[/b]` was drawn bold:
    the protocol `Select` got the names as markup."""
    steps = [initialize_ok(providers={}), new_session_ok("s-1"), hostile_providers()]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        row = h.one(ProvidersRow)
        await h.until(lambda: row.display, "the providers row")
        row.focus()
        await h.pilot.press("enter")
        await h.until(lambda: isinstance(h.app.screen, ProvidersScreen), "the providers screen")
        screen = h.app.screen
        assert isinstance(screen, ProvidersScreen)
        listing = screen.query_one("#providers", OptionList)
        await h.until(lambda: listing.option_count == 1, "the list")
        await h.pilot.press("enter")  # the form, with the protocols in its Select
        await h.until(lambda: screen.chosen is not None, "the form")
        select = screen.query_one("#api-type", Select)
        assert select.value == "[b]bold[/b]"  # (its current protocol)
        select.focus()
        await h.pilot.press("enter")  # open the list of protocols
        overlay = select.query_one(SelectOverlay)
        await h.until(lambda: overlay.display and overlay.option_count == 4, "the protocols")
        await h.pilot.pause()
        assert h.app._exception is None
        text = assert_clean(h, "the protocols")
        assert "[/]" in text and "[b]bold[/b]" in text and shown_tag("protocol") in text
        prompts = [overlay.get_option_at_index(i).prompt for i in range(1, 4)]
        assert [p.plain if isinstance(p, Text) else p for p in prompts] == [
            "[/]",
            "[b]bold[/b]",
            safe_text(hostile("protocol")),
        ]
        _, segments = terminal_output(h)
        bold = [s.text.strip() for s in segments if s.style is not None and s.style.bold]
        assert "bold" not in bold  # ("[b]bold[/b]" parsed: "bold" alone, in bold)


async def test_at_80x24_the_dialog_fits_and_its_set_button_can_be_reached(tmp_path: Path) -> None:
    """A 90-column dialog was cut at the right of an 80-column terminal, and the form under the
    list ran off the bottom of 24 rows with no way down to Set."""
    steps = [initialize_ok(providers={}), new_session_ok("s-1"), listed(MAIN, FAST)]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path), size=(80, 24)) as h:
        row = h.one(ProvidersRow)
        await h.until(lambda: row.display, "the providers row")
        await h.app.push_screen(ProvidersScreen(h.session))
        screen = h.app.screen
        assert isinstance(screen, ProvidersScreen)
        listing = screen.query_one("#providers", OptionList)
        await h.until(lambda: listing.option_count == 2, "the list")
        listing.focus()
        await h.pilot.press("down", "enter")
        await h.until(lambda: screen.chosen is not None, "the form")
        box = screen.children[0]
        assert box.region.right <= 80
        set_button = screen.query_one("#set", Button)
        set_button.focus()
        await h.pilot.pause()
        await h.until(lambda: box.region.contains_region(set_button.region), "Set in view")

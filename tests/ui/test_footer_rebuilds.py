"""The footer rebuilds its keys only when what they show changes: Textual rebuilt them on every
refresh of the screen's bindings, and while the app starts (the focus set, the session opened)
that made three builds of the same keys before the prompt was ready."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Footer

from tests.agents.scenarios import initialize_ok, new_session_ok, write_scenario
from tests.ui.app_harness import AppHarness, fixed_cwd, run_app


def footer_key_widgets(h: AppHarness) -> list[object]:
    return list(h.one(Footer).query("FooterKey"))


def footer_texts(h: AppHarness) -> list[str]:
    keys = [key for key in h.one(Footer).query("FooterKey") if key.display]  # (shown ones)
    return [f"{getattr(key, 'key_display', '')} {getattr(key, 'description', '')}" for key in keys]


async def test_the_footer_keeps_its_keys_when_the_bindings_refresh_to_the_same_keys(
    tmp_path: Path,
) -> None:
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.settle()
        await h.until(lambda: footer_key_widgets(h), "the footer's keys")
        before = footer_key_widgets(h)
        shown = footer_texts(h)
        h.app.screen.refresh_bindings()  # what a focus change or a state change does
        await h.pilot.pause()
        await h.pilot.pause()
        after = footer_key_widgets(h)
        assert footer_texts(h) == shown
        assert all(old is new for old, new in zip(before, after, strict=True))


async def test_the_footer_still_shows_a_key_that_changed(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.settle()
        await h.until(lambda: "f2 changes" in footer_texts(h), "the changes key")
        h.app.set_keymap({"main.changes": "f9"})
        await h.until(lambda: "f9 changes" in footer_texts(h), "the remapped key in the footer")
        assert "f2 changes" not in footer_texts(h)

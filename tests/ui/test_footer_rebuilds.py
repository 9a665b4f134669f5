"""The footer rebuilds its keys only when what they show changes: Textual rebuilt them on every
refresh of the screen's bindings, and while the app starts (the focus set, the session opened)
that made three builds of the same keys before the prompt was ready."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import ComposeResult
from textual.widgets import Footer

from acp_tui.ui.widgets.screen_footer import ScreenFooter
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


async def test_changes_asked_before_the_footer_rebuilt_make_one_rebuild(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each change of the bindings asks for a rebuild after the next refresh; those asked
    before it (while the app starts: the focus set, the session's state) rebuilt the same keys
    once each."""
    builds: list[object] = []
    compose = ScreenFooter.compose

    def counting_compose(footer: ScreenFooter) -> ComposeResult:
        builds.append(footer)
        return compose(footer)

    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.settle()
        await h.until(lambda: "f2 changes" in footer_texts(h), "the changes key")
        monkeypatch.setattr(ScreenFooter, "compose", counting_compose)
        footer = h.one(ScreenFooter)
        h.app.set_keymap({"main.changes": "f9"})
        for _ in range(3):  # three changes before the footer's next refresh (as its own)
            footer.call_later(footer.bindings_changed, h.app.screen)
        await h.until(lambda: "f9 changes" in footer_texts(h), "the remapped key in the footer")
        for _ in range(5):
            await h.pilot.pause()
        assert len(builds) == 1


async def test_each_key_is_styled_once_when_the_footer_builds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new key's `compact` starts True and its watcher added the class once the key was
    mounted, which styled every key a second time (about half of what building the footer
    costs, on the way to ready)."""
    from textual.css.stylesheet import Stylesheet

    styled: list[object] = []
    apply = Stylesheet.apply

    def counting_apply(sheet: Stylesheet, node: Any, *args: Any, **kwargs: Any) -> None:
        styled.append(node)
        apply(sheet, node, *args, **kwargs)

    monkeypatch.setattr(Stylesheet, "apply", counting_apply)
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.settle()
        await h.until(lambda: "f2 changes" in footer_texts(h), "the changes key")
        keys = footer_key_widgets(h)
        assert all(key.has_class("-compact") for key in keys)  # type: ignore[attr-defined]
        assert [styled.count(key) for key in keys] == [1] * len(keys)


async def test_the_footer_builds_its_keys_once_with_the_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual's `Footer` composed no key at first and rebuilt once the screen's bindings
    refreshed: its keys mounted after the first frame, the screen laid out and painted again
    on the way to ready. They are built with the screen, once."""
    builds: list[int] = []
    compose = ScreenFooter.compose

    def counting_compose(footer: ScreenFooter) -> ComposeResult:
        built = list(compose(footer))
        builds.append(len(built))
        return iter(built)

    monkeypatch.setattr(ScreenFooter, "compose", counting_compose)
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.settle()
        await h.until(lambda: "f2 changes" in footer_texts(h), "the changes key")
        for _ in range(3):
            await h.pilot.pause()
        assert len(builds) == 1 and builds[0] == len(footer_key_widgets(h))

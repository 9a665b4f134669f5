"""The agent picker with the registry: its agents beside the presets (version, description,
installed or not), the index refreshed in the background, a failed refresh a toast."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList

from acp_tui.presets import Preset
from acp_tui.registry.catalog import Catalog
from acp_tui.ui.screens.agent_picker import DEMO_ID, MAX_LISTED, AgentPickerApp, picker_for
from tests.registry_server import binary_agent, index_with, serve, tar_bytes
from tests.ui.app_harness import _record_notifications


async def until(pilot: Pilot[Any], condition: Callable[[], object], what: str) -> None:
    try:
        async with asyncio.timeout(15):
            while not condition():
                await pilot.pause(0.02)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what}") from None


def ids(app: AgentPickerApp) -> list[str | None]:
    options = app.query_one(OptionList)
    return [options.get_option_at_index(i).id for i in range(options.option_count)]


def label(app: AgentPickerApp, option_id: str) -> str:
    return str(app.query_one(OptionList).get_option(option_id).prompt)


@pytest.fixture(autouse=True)
def empty_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))


def _index(url: str) -> dict[str, object]:
    tiny = binary_agent("tiny", url, "./agent")
    tiny["name"] = "Tiny\x1b]0;owned\x07"
    npx = {"id": "node-one", "name": "Node One", "version": "2.0.0", "description": "via node",
           "distribution": {"npx": {"package": "node-one@2.0.0"}}}  # fmt: skip
    return index_with(tiny, npx)


async def test_registry_agents_appear_after_the_background_refresh(tmp_path: Path) -> None:
    with serve() as server:
        server.files["tiny.tar.gz"] = tar_bytes("w:gz", [("agent", b"#!/bin/sh\n")])
        url = server.put_index(_index(server.url("tiny.tar.gz")))
        catalog = Catalog(url, tmp_path / "cache", config_path=tmp_path / "none.toml")
        app = picker_for(catalog)
        async with app.run_test() as pilot:
            await until(pilot, lambda: "tiny" in ids(app), "the registry's agents")
            assert ids(app)[0] == "tiny"  # startable (downloaded when started) before the rest
            tiny = label(app, "tiny")
            assert "Tiny␛]0;owned␇  1.0.0  (downloads when started)" in tiny
            assert "\x1b" not in tiny and "the tiny test agent" in tiny
            node = app.query_one(OptionList).get_option("node-one")
            assert node.disabled
            assert "node-one is started with npx, which is not on PATH" in str(node.prompt)
            assert app.query_one(OptionList).get_option("gemini").disabled  # a preset, missing
            await pilot.press("enter")
    assert isinstance(app.return_value, Preset) and app.return_value.name == "tiny"
    assert app.return_value.registry is not None and app.return_value.registry.kind == "binary"


async def test_a_failed_refresh_is_a_toast_and_the_cache_is_shown(tmp_path: Path) -> None:
    with serve() as server:
        url = server.put_index(_index(server.url("tiny.tar.gz")))
        catalog = Catalog(url, tmp_path / "cache", config_path=tmp_path / "none.toml")
        catalog.refresh()  # cached once
        server.fail_with = 500
        app = picker_for(Catalog(url, tmp_path / "cache", config_path=tmp_path / "none.toml"))
        notified: list[str] = []
        _record_notifications(app, notified)  # type: ignore[arg-type]
        async with app.run_test() as pilot:
            assert "tiny" in ids(app)  # from the cache, before the refresh ends
            await until(pilot, lambda: notified, "the notice")
            assert notified[0].startswith(f"could not refresh the agent registry ({url}): HTTP 500")
            assert "tiny" in ids(app)
            await pilot.press("escape")
    assert app.return_value is None


async def test_leaving_the_picker_does_not_wait_for_the_registry(tmp_path: Path) -> None:
    """A registry that never answers: Esc leaves, and no thread is left that the interpreter
    would wait for at exit (a non-daemon worker held the process for the whole timeout)."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)  # connections are queued, never answered
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/registry.json"
        app = picker_for(Catalog(url, tmp_path / "cache", config_path=tmp_path / "none.toml"))
        async with app.run_test() as pilot:
            await until(pilot, lambda: _refreshing(), "the refresh to start")
            await pilot.press("escape")
        assert app.return_value is None
        assert [
            t.name for t in threading.enumerate() if not t.daemon and t.name != "MainThread"
        ] == []


def _refreshing() -> bool:
    return any(t.name == "acp-tui-registry" for t in threading.enumerate())


async def test_a_huge_registry_is_listed_in_part(tmp_path: Path) -> None:
    """Issue 40: every agent of a registry of 20,000 was an option."""
    many = [binary_agent(f"agent-{i:04}", f"https://example.invalid/{i}.tar.gz")
            for i in range(MAX_LISTED + 30)]  # fmt: skip
    with serve() as server:
        url = server.put_index(index_with(*many))
        catalog = Catalog(url, tmp_path / "cache", config_path=tmp_path / "none.toml")
        app = picker_for(catalog)
        async with app.run_test() as pilot:
            await until(pilot, lambda: "agent-0000" in ids(app), "the registry's agents")
            listed = ids(app)
            # the agents that start, the demo after them, then the line that counts the rest
            assert len(listed) == MAX_LISTED + 2 and listed[-1] is None
            assert listed[:MAX_LISTED] == [f"agent-{i:04}" for i in range(MAX_LISTED)]
            assert listed[MAX_LISTED] == DEMO_ID
            more = app.query_one(OptionList).get_option_at_index(MAX_LISTED + 1)
            hidden = len(app.ordered) - MAX_LISTED  # (30 of the registry, the presets)
            assert more.disabled and str(more.prompt).startswith(f"… {hidden} more agents, not")

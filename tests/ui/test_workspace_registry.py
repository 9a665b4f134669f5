"""ctrl+t offers the ACP registry's agents (the registry served on 127.0.0.1): an installed one
opens directly, a binary not installed yet is downloaded first with its progress in the picker,
a failed download is said there (the picker stays, nothing opens), one that cannot start here
is greyed with why."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import OptionList, Static

from acp_tui.registry.catalog import Catalog
from acp_tui.ui.workspace.new_session import MAX_LISTED, NewSessionScreen
from acp_tui.ui.workspace.registry_agents import RegistryAgents
from tests.registry_server import (
    RegistryServer,
    binary_agent,
    index_with,
    serve,
    tar_bytes,
    trickle,
)
from tests.ui.app_harness import AppHarness
from tests.ui.workspace_support import workspace_app

DEMO = f"#!/bin/sh\nexec {sys.executable} -m acp_tui.demo.agent\n".encode()
"""An ACP agent as a registry archive or an `npx` would start it: the demo agent."""


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[RegistryServer]:
    """The registry: `tiny` (a binary, downloaded when picked), `node-one` (npx, which is on
    PATH: installed), `py-one` (uvx, which is not: cannot start here)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    npx = bin_dir / "npx"
    npx.write_bytes(DEMO)
    npx.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    with serve() as server:
        server.files["tiny.tar.gz"] = tar_bytes("w:gz", [("agent", DEMO)])
        node = {"id": "node-one", "name": "Node One", "version": "2.0.0", "description": "via node",
                "distribution": {"npx": {"package": "node-one@2.0.0"}}}  # fmt: skip
        py = {"id": "py-one", "name": "Py One", "version": "3.0.0", "description": "via uv",
              "distribution": {"uvx": {"package": "py-one"}}}  # fmt: skip
        server.put_index(index_with(binary_agent("tiny", server.url("tiny.tar.gz")), node, py))
        yield server


def registry(tmp_path: Path, server: RegistryServer) -> RegistryAgents:
    url = server.url("registry.json")
    return RegistryAgents(Catalog(url, tmp_path / "cache", config_path=tmp_path / "none.toml"))


def picker(h: AppHarness) -> NewSessionScreen:
    screen = h.app.screen
    assert isinstance(screen, NewSessionScreen)
    return screen


def option_ids(h: AppHarness) -> list[str]:
    options = picker(h).query_one(OptionList)
    return [options.get_option_at_index(i).id or "" for i in range(options.option_count)]


def option_of(h: AppHarness, name: str) -> str:
    """The id of the registry agent `name`'s option."""
    screen = picker(h)
    (found,) = [
        option_id
        for option_id in option_ids(h)
        if option_id.startswith("registry:")
        and screen.registry_presets[int(option_id.removeprefix("registry:"))].name == name
    ]
    return found


def said(h: AppHarness) -> str:
    return str(picker(h).query_one("#new-error", Static).render())


async def ctrl_t_until_offered(h: AppHarness, name: str) -> None:
    await h.pilot.press("ctrl+t")
    await h.until(lambda: isinstance(h.app.screen, NewSessionScreen), "the picker")
    await h.until(
        lambda: any(p.name == name for p in picker(h).registry_presets), f"{name} offered"
    )


async def press_enter_on(h: AppHarness, option_id: str) -> None:
    """Move the highlight down to `option_id` by keys, then Enter."""
    options = picker(h).query_one(OptionList)
    for _ in range(options.option_count):
        if options.highlighted is not None and option_ids(h)[options.highlighted] == option_id:
            break
        await h.pilot.press("down")
    assert options.highlighted is not None and option_ids(h)[options.highlighted] == option_id
    await h.pilot.press("enter")


async def test_an_installed_registry_agent_opens_directly(
    tmp_path: Path, server: RegistryServer
) -> None:
    async with workspace_app(tmp_path, app_kwargs={"registry": registry(tmp_path, server)}) as h:
        await ctrl_t_until_offered(h, "node-one")
        node = picker(h).query_one(OptionList).get_option(option_of(h, "node-one"))
        assert not node.disabled and "node-one · Node One 2.0.0 in" in str(node.prompt)
        assert "(registry, runs with npx)" in str(node.prompt)
        py = picker(h).query_one(OptionList).get_option(option_of(h, "py-one"))
        assert py.disabled and "py-one is started with uvx, which is not on PATH" in str(py.prompt)
        ids = option_ids(h)
        assert ids[-2:] == ["directory", "worktree"]  # the registry's agents come before these

        await press_enter_on(h, option_of(h, "node-one"))
        await h.until(lambda: len(h.app.tabs) == 2, "the registry agent's tab")
        tab = h.app.tabs[1]
        assert tab.spec.argv == ("npx", "-y", "node-one@2.0.0")
        assert tab.spec.preset is not None and tab.spec.preset.name == "node-one"
        await h.until(lambda: tab.session.session_id is not None, "its session (the agent runs)")


async def test_a_registry_binary_is_downloaded_with_its_progress_then_opened(
    tmp_path: Path, server: RegistryServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown: list[str] = []
    show_error = NewSessionScreen.show_error

    def record(screen: NewSessionScreen, message: str) -> None:
        shown.append(message)
        show_error(screen, message)

    monkeypatch.setattr(NewSessionScreen, "show_error", record)
    async with workspace_app(tmp_path, app_kwargs={"registry": registry(tmp_path, server)}) as h:
        await ctrl_t_until_offered(h, "tiny")
        tiny = picker(h).query_one(OptionList).get_option(option_of(h, "tiny"))
        assert "(registry, downloads when picked)" in str(tiny.prompt) and not tiny.disabled
        await press_enter_on(h, option_of(h, "tiny"))
        await h.until(lambda: len(h.app.tabs) == 2, "the downloaded agent's tab")
        tab = h.app.tabs[1]
        installed = tmp_path / "cache" / "agents" / "tiny" / "1.0.0" / "agent"
        assert tab.spec.argv == (str(installed),) and installed.read_bytes() == DEMO
        await h.until(lambda: tab.session.session_id is not None, "its session (the agent runs)")
    assert shown[0] == "Downloading tiny 1.0.0…"
    assert any(line.startswith("Downloading tiny 1.0.0: ") and "(100%)" in line for line in shown)
    assert server.requests_for("tiny.tar.gz")


async def test_a_failed_download_is_said_and_nothing_opens(
    tmp_path: Path, server: RegistryServer
) -> None:
    del server.files["tiny.tar.gz"]  # the registry names an archive its server does not have
    async with workspace_app(tmp_path, app_kwargs={"registry": registry(tmp_path, server)}) as h:
        await ctrl_t_until_offered(h, "tiny")
        await press_enter_on(h, option_of(h, "tiny"))
        await h.until(lambda: "Could not install" in said(h), "the error")
        assert said(h).startswith("Could not install tiny 1.0.0: could not download http://")
        assert "HTTP Error 404" in said(h) or "404" in said(h)
        assert isinstance(h.app.screen, NewSessionScreen) and len(h.app.tabs) == 1
        assert not (tmp_path / "cache" / "agents" / "tiny" / "1.0.0").exists()
        await h.pilot.press("escape")
        await h.until(lambda: not isinstance(h.app.screen, NewSessionScreen), "the picker gone")
        assert len(h.app.tabs) == 1


async def test_quitting_during_a_download_leaves_no_partial_directory(
    tmp_path: Path, server: RegistryServer
) -> None:
    """Issue 40: ctrl+q during a download in the ctrl+t picker left a `.partial-*` directory
    (the server here sends a byte every 50 ms and never ends).

    The app abandons its downloads as it ends (`on_unmount`, which the harness runs when it
    leaves the app, as `App.run` does once the app has exited): the directory is gone then, the
    download still trickling (its stall limit, `STALL_SECONDS`, is far off)."""
    with trickle(0.05) as url:
        server.put_index(index_with(binary_agent("tiny", url)))
        agents = registry(tmp_path, server)
        async with workspace_app(tmp_path, app_kwargs={"registry": agents}) as h:
            await ctrl_t_until_offered(h, "tiny")
            await press_enter_on(h, option_of(h, "tiny"))
            await h.until(lambda: "Downloading tiny 1.0.0: " in said(h), "bytes coming in")
            parent = tmp_path / "cache" / "agents" / "tiny"
            assert [p.name.startswith(".1.0.0.partial-") for p in parent.iterdir()] == [True]
            await h.pilot.press("ctrl+q")
            await h.until(lambda: h.app.return_code == 0, "the app to quit")
        assert not agents.downloads
        assert list(parent.iterdir()) == []


async def test_a_huge_registry_is_listed_in_part(tmp_path: Path, server: RegistryServer) -> None:
    """Issue 40: 20,000 registry agents were each an option of the picker (12.7 s a ctrl+t)."""
    many = [
        {"id": f"agent-{i:05}", "name": f"Agent {i}", "version": "1.0.0", "description": "d",
         "distribution": {"npx": {"package": f"pkg-{i}@1.0.0"}}}
        for i in range(MAX_LISTED + 50)
    ]  # fmt: skip
    server.put_index(index_with(*many))
    async with workspace_app(tmp_path, app_kwargs={"registry": registry(tmp_path, server)}) as h:
        await ctrl_t_until_offered(h, "agent-00000")
        listed = [i for i in option_ids(h) if i.startswith("registry:")]
        assert len(listed) == MAX_LISTED
        more = picker(h).query_one(OptionList).get_option("more")
        assert more.disabled and str(more.prompt).startswith("… 50 more registry agents")

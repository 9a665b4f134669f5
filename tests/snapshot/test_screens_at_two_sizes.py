"""Every modal screen at the narrowest terminal the README promises (80x24) and a wide one
(160x50), each shown over a bare app: no agent process, nothing that moves with time.

The screens the main screen shows around a running agent (the conversation's cards, the sidebar,
F1, F5, the forms) are in `test_app_at_two_sizes.py`.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.screen import Screen
from textual.widgets import Input, OptionList

from acp_tui.client.hello import AuthMethodInfo
from acp_tui.client.rewind import FileStep, RewindPlan
from acp_tui.client.session.overview import named_changes
from acp_tui.host.asker import Choice, FixedAnswer, Question
from acp_tui.host.boundary import DENY
from acp_tui.host.filesystem import FileSystemHost
from acp_tui.host.permission_rules import PermissionPolicy, RuleEffect, RulesStore
from acp_tui.presets import Preset
from acp_tui.registry.catalog import Catalog
from acp_tui.thread.diff import compute_diff
from acp_tui.ui.key_guard import KeyGuard
from acp_tui.ui.screens import changes_screen
from acp_tui.ui.screens.agent_picker import picker_for
from acp_tui.ui.screens.auth import AuthMethodScreen
from acp_tui.ui.screens.changes_screen import ChangesScreen
from acp_tui.ui.screens.choice_picker import Choice as PickerChoice
from acp_tui.ui.screens.choice_picker import ChoicePicker
from acp_tui.ui.screens.compare_screen import CompareScreen
from acp_tui.ui.screens.diff_screen import DiffScreen
from acp_tui.ui.screens.overview_screen import OverviewScreen
from acp_tui.ui.screens.question import QuestionScreen
from acp_tui.ui.screens.rename_screen import RenameScreen
from acp_tui.ui.screens.review_screen import WriteReviewScreen
from acp_tui.ui.screens.rewind_screen import RewindScreen
from acp_tui.ui.screens.rules_screen import RulesScreen
from acp_tui.ui.workspace.new_session import NewSessionScreen
from acp_tui.ui.workspace.registry_agents import RegistryAgents
from acp_tui.ui.workspace.spec import SessionSpec
from tests.agents.hostile import hostile
from tests.registry_server import index_with, serve
from tests.snapshot.test_app_at_two_sizes import SIZES
from tests.snapshot.test_diff_view_snapshots import NEW, OLD
from tests.ui.inspector_support import InspectorApp, sample_store
from tests.ui.test_rules_screen import remember
from tests.ui.workspace_sessions import Workspace
from tests.unit.thread_support import Clock

PROJECT = Path("/work/project")


class ScreenApp(App[None]):
    """Shows one screen over an empty default screen; its questions take keys at once (no
    guard hint that comes and goes with the clock)."""

    key_guard = KeyGuard.unguarded()

    def __init__(self, screen: Screen[Any]) -> None:
        super().__init__()
        self.shown = screen

    def on_mount(self) -> None:
        self.push_screen(self.shown)


async def still(pilot) -> None:
    """Text fields' cursors steadily on: a blinking cursor is a clock."""
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
def test_review_of_a_held_write(snap_compare, size: tuple[int, int]) -> None:
    screen = WriteReviewScreen(PROJECT / "shop.py", OLD, NEW, watch=False)
    assert snap_compare(ScreenApp(screen), terminal_size=size, press=["y"])  # hunk 1 accepted


@pytest.mark.parametrize("size", SIZES)
def test_diff_of_a_tool_call(snap_compare, size: tuple[int, int]) -> None:
    screen = DiffScreen([compute_diff(str(PROJECT / "shop.py"), OLD, NEW)])
    assert snap_compare(ScreenApp(screen), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_changes_f2(snap_compare, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch) -> None:
    # the screen reads each file as it is now: here from this table, so that the paths it shows
    # (absolute in the diff's header) are the same on every machine
    disk = {PROJECT / "shop.py": NEW, PROJECT / "notes.md": "# Notes\n\nThe tax is a fraction.\n"}
    monkeypatch.setattr(
        changes_screen, "read_regular", lambda path, **_: disk[path].encode("utf-8")
    )
    fs = FileSystemHost(PROJECT, FixedAnswer(DENY))
    fs.changes.add(PROJECT / "shop.py", OLD, NEW)
    fs.changes.add(PROJECT / "notes.md", None, disk[PROJECT / "notes.md"])
    screen = ChangesScreen(fs.reverts, root=PROJECT)

    async def loaded(pilot) -> None:
        while screen.loads < 1:
            await pilot.pause(0.02)
        await still(pilot)

    assert snap_compare(ScreenApp(screen), terminal_size=size, run_before=loaded)


@pytest.fixture
def utc(monkeypatch: pytest.MonkeyPatch):
    """The local time zone is UTC (the rules' "created" column is in local time)."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("size", SIZES)
def test_permission_rules_f3(snap_compare, size: tuple[int, int], tmp_path: Path, utc) -> None:
    saved = RulesStore(PROJECT, tmp_path / "rules.json")  # the title names the project
    remember(saved, "execute", {"command": "make test"}, RuleEffect.ALLOW)
    remember(saved, "delete", {"path": "build/out.bin"}, RuleEffect.REJECT)
    remember(saved, "edit", {"path": "src/app.py"}, RuleEffect.ALLOW)
    data = json.loads((tmp_path / "rules.json").read_text())
    for rule in data["rules"]:
        rule["created"] = "2026-11-02T09:30:00+00:00"  # a fixed time for the picture
    (tmp_path / "rules.json").write_text(json.dumps(data))
    store = RulesStore(PROJECT, tmp_path / "rules.json")
    screen = RulesScreen(store, PermissionPolicy.ALLOW_READS, config_path=Path("/c/config.toml"))
    assert snap_compare(ScreenApp(screen), terminal_size=size, run_before=still)


def rewind_plan() -> RewindPlan:
    src = PROJECT / "src"
    return RewindPlan(
        files=[
            FileStep(src / "app.py", b"a\nb\n", b"a\nB\nc\n", b"a\nB\nc\n", reverts=1),
            FileStep(src / "new.py", None, b"x = 1\n", b"x = 1\n", reverts=2),
            FileStep(src / "cart.py", b"cart\n", b"cart 2\n", b"cart 3\n", reverts=3),
        ],
        unknown=[(PROJECT / "build" / "out.bin", "written by a command")],
        commands=["make test"],
        other=["Fetch https://example.invalid"],
    )


@pytest.mark.parametrize("size", SIZES)
def test_rewind_confirmation(snap_compare, size: tuple[int, int]) -> None:
    screen = RewindScreen(rewind_plan(), PROJECT, "Rewind to before \u201cfix total\u201d?")
    assert snap_compare(ScreenApp(screen), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_inspector_f12(snap_compare, size: tuple[int, int]) -> None:
    # the frames are from 1970: the frames/s counter is steadily 0
    assert snap_compare(InspectorApp(sample_store()), terminal_size=size, press=["x", "home"])


@pytest.mark.parametrize("size", SIZES)
def test_overview_ctrl_o(snap_compare, size: tuple[int, int]) -> None:
    workspace = Workspace(Clock())
    screen = OverviewScreen(workspace.rows, current=1)
    assert snap_compare(ScreenApp(screen), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_compare(snap_compare, size: tuple[int, int]) -> None:
    claude, _, codex = Workspace(Clock()).sessions
    screen = CompareScreen(named_changes(claude, hostile("agent")), named_changes(codex))
    assert snap_compare(ScreenApp(screen), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_registry_picker(
    snap_compare, size: tuple[int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))  # no preset's program is installed
    # agents started by npx and uvx, neither on PATH: listed, not startable, saying why (a
    # downloaded binary's line would name this run's cache directory)
    node = {"id": "node-one", "name": "Node One", "version": "2.0.0", "description": "via node",
            "distribution": {"npx": {"package": "node-one@2.0.0"}}}  # fmt: skip
    python = {"id": "py-one", "name": "Py [b]One[/b]", "version": "0.3.1",
              "description": "a Python agent",
              "distribution": {"uvx": {"package": "py-one"}}}  # fmt: skip
    with serve() as server:
        url = server.put_index(index_with(node, python))
        app = picker_for(Catalog(url, tmp_path / "cache", config_path=tmp_path / "none.toml"))

        async def refreshed(pilot) -> None:
            options = app.query_one(OptionList)
            while "py-one" not in [options.get_option_at_index(i).id
                                   for i in range(options.option_count)]:  # fmt: skip
                await pilot.pause(0.02)
            await still(pilot)

        assert snap_compare(app, terminal_size=size, run_before=refreshed)


@pytest.mark.parametrize("size", SIZES)
def test_question_form(snap_compare, size: tuple[int, int]) -> None:
    question = Question(
        kind="outside_cwd",
        title="Write outside the project?",
        detail="The agent wants to write /etc/hosts, outside /work/project.",
        choices=(Choice("once", "Allow once"), Choice("no", "Reject")),
    )
    assert snap_compare(ScreenApp(QuestionScreen(question)), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_login_form(snap_compare, size: tuple[int, int]) -> None:
    methods = [
        AuthMethodInfo("oauth", "Log in with a browser", "Opens the provider's page", "agent"),
        AuthMethodInfo("key", "API key", None, "agent", env_vars=("SCRIPTED_API_KEY",)),
        AuthMethodInfo("tty", "Log in in a terminal", "Runs `scripted login`", "terminal"),
    ]
    screen = AuthMethodScreen("Scripted Agent", methods, "401: the key was refused")
    assert snap_compare(ScreenApp(screen), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_rename_form(snap_compare, size: tuple[int, int]) -> None:
    screen = RenameScreen("Fix total()", told_to_agent=True)
    assert snap_compare(ScreenApp(screen), terminal_size=size, run_before=still)


@pytest.mark.parametrize("size", SIZES)
def test_choice_picker_f6(snap_compare, size: tuple[int, int]) -> None:
    choices = [
        PickerChoice("opus", "Opus", "the largest", group="Anthropic"),
        PickerChoice("sonnet", "Sonnet", "fast and able", group="Anthropic"),
        PickerChoice("gpt", "GPT-5", None, group="OpenAI"),
        PickerChoice("local", "Local [model]", "markup drawn as text"),
    ]
    screen = ChoicePicker("Model", choices, current="sonnet")
    assert snap_compare(ScreenApp(screen), terminal_size=size, run_before=still)


@pytest.mark.parametrize("size", SIZES)
def test_new_session_ctrl_t_with_the_registry(
    snap_compare, size: tuple[int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))  # the registry's npx agent cannot start
    claude = Preset("claude", ("claude-agent-acp",))
    gemini = Preset("gemini", ("gemini", "--acp"))
    current = SessionSpec(claude.command, PROJECT, claude)
    node = {"id": "node-one", "name": "Node One", "version": "2.0.0", "description": "via node",
            "distribution": {"npx": {"package": "node-one@2.0.0"}}}  # fmt: skip
    with serve() as server:
        url = server.put_index(index_with(node))
        catalog = Catalog(url, tmp_path / "cache", config_path=tmp_path / "none.toml")
        screen = NewSessionScreen(current, (claude, gemini), RegistryAgents(catalog))

        async def listed(pilot) -> None:
            while not screen.registry_presets:
                await pilot.pause(0.02)
            await still(pilot)

        assert snap_compare(ScreenApp(screen), terminal_size=size, run_before=listed)

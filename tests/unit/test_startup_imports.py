"""What launching imports before the first frame: modules the first frame does not need stay out
(and what starts once the session is open is not loaded before it is).

Each check runs in a fresh interpreter (this process has imported everything already). Timings
are `bench/startup.py`'s business; these tests only check which modules are loaded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# Loaded when first used, never on the way to the first frame.
LAZY = (
    "pydantic_settings",  # not used at all any more
    "pyte",  # at the first terminal shown
    "acp_tui.host.terminal_emulator",
    "acp_tui.ui.inspector.screen",  # f12
    "acp_tui.ui.screens.session_picker",  # --resume, /sessions
    "acp_tui.ui.screens.review_screen",
    "acp_tui.ui.replay_app",  # --replay
    "acp_tui.client.replay",
    "acp_tui.client.check",  # `acp-tui check`
    "markdown_it",
    "pygments",  # at the first code fence, diff or attached file shown
    "rich.syntax",
    "acp_tui.registry.fetch",  # a registry refresh (`acp-tui NAME`, ctrl+t, --list-agents)
    "acp_tui.registry.install",  # a registry binary downloaded
    "importlib.metadata",  # pydantic's plugin scan, skipped (`acp_tui/pydantic_plugins.py`)
    "acp_tui.client.message_fork",  # continuing from a message, forking
    "acp_tui.client.rewind",  # e, //rewind, f5 `w`
    "acp_tui.client.rewind_branches",
    "acp_tui.ui.rewind_actions",
    "acp_tui.worktrees.worktree_diff",  # a worktree tab in the overview (ctrl+o), compare
    "acp_tui.worktrees.worktrees",  # a worktree made (ctrl+t) or removed; git
    "acp_tui.client.saved_workspace",  # the tabs saved for --continue (once a session is open)
    "acp_tui.ui.workspace.workspace_overview",  # ctrl+o
    "acp_tui.ui.screens.overview_screen",
    "acp_tui.ui.screens.question",  # a question asked (log out, //clear, a tab closed, ...)
    "acp_tui.ui.screens.choice_picker",  # a setting picked (f6, the sidebar's Settings)
    "acp_tui.output.export",  # //export, a copy (f8)
    "acp_tui.output.clipboard",
    "textual.widgets._data_table",  # the overview's and the rules' tables
)

# Runs the real launch (`acp_tui.cli.main`, prestart and all) on Textual's headless driver and
# writes the modules above that are loaded once the main screen is mounted, then quits.
LAUNCH = """
import json, sys
from acp_tui.cli import main
from acp_tui.ui.app import AcpApp

lazy, out, cwd = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
mount = AcpApp.on_mount

async def on_mount(self):
    await mount(self)
    with open(out, "w") as stream:
        json.dump([name for name in lazy if name in sys.modules], stream)
    self.exit(0)

AcpApp.on_mount = on_mount
sys.exit(main(["--cwd", cwd, "--demo"]))
"""


# Started once the session is open (the change monitor, the composer's file index): not loaded
# when the status bar first says "ready".
AFTER_READY = (
    "watchfiles",
    "anyio",
    # the v2 draft's models, rules and driver: loaded once an agent answers `initialize` with
    # v2 (the demo agent speaks v1), never by a v1 session
    "acp_tui.protocol.models.v2",
    "acp_tui.protocol.conformance_v2",
    "acp_tui.client.v2.session",
    "acp_tui.client.v2.handshake",
    "acp_tui.thread.v2.updates",
    # the models of rarely used methods (`models.LATER`): built when one is first used
    "acp_tui.protocol.models.history",  # session/list, resume, fork
    "acp_tui.protocol.models.providers",  # providers/*
    "acp_tui.protocol.models.auth_status",  # the unstable auth status
    "acp_tui.protocol.models.mcp_over_acp",  # mcp/message
    "acp_tui.protocol.models.requests",  # what the client sends (it writes plain dicts)
    "acp_tui.protocol.models.client_methods",  # the agent's requests: at the first one
    "acp_tui.protocol.conformance",  # the traffic's marks: the inspector's (`traffic_store`)
    "acp_tui.host.pty_process",  # the agent's first terminal
    "acp_tui.host.terminal_screen",
    "acp_tui.sandbox.refusals",  # a tool call or turn that ended, in a sandbox
)

# The same launch, but the modules are looked at when the session turns ready (the state
# listener added after the main screen's own).
LAUNCH_TO_READY = """
import json, sys
from acp_tui.cli import main
from acp_tui.client.events import SessionState
from acp_tui.ui.app import AcpApp

lazy, out, cwd = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
mount = AcpApp.on_mount

async def on_mount(self):
    await mount(self)

    def on_state(state):
        if state is SessionState.READY:
            with open(out, "w") as stream:
                json.dump([name for name in lazy if name in sys.modules], stream)
            self.exit(0)
        elif state in (SessionState.CRASHED, SessionState.FAILED):
            print("the session", state, self.session.error, file=sys.stderr)
            self.exit(3)

    self.session.state_changed.subscribe(on_state)

AcpApp.on_mount = on_mount
sys.exit(main(["--cwd", cwd, "--demo"]))
"""


def run_python(code: str, *args: str, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def headless_launch(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """The environment of a real launch on Textual's headless driver (no user settings), and
    an empty project directory for it."""
    env = {
        **os.environ,
        "TEXTUAL_DRIVER": "textual.drivers.headless_driver:HeadlessDriver",
        "ACP_TUI_CONFIG": str(tmp_path / "config.toml"),  # no user settings
    }
    project = tmp_path / "project"
    project.mkdir()
    return env, project


def test_the_main_screen_mounts_without_the_lazy_modules(tmp_path: Path) -> None:
    out = tmp_path / "loaded.json"
    env, project = headless_launch(tmp_path)
    run_python(LAUNCH, json.dumps(LAZY), str(out), str(project), env=env)
    assert json.loads(out.read_text()) == []


def test_the_session_opens_before_the_change_monitor_and_the_file_index_start(
    tmp_path: Path,
) -> None:
    out = tmp_path / "loaded.json"
    env, project = headless_launch(tmp_path)
    (project / "a.txt").write_text("a\n")
    run_python(LAUNCH_TO_READY, json.dumps([*LAZY, *AFTER_READY]), str(out), str(project), env=env)
    assert json.loads(out.read_text()) == []


# The same launch to ready with the pipe agent of the benches: whether the traffic's
# conformance checker was loaded by then (the store checks its first frames later), and which
# protocol models built their validators (the handshake's answers, validated as they come).
LAUNCH_PLAIN_AGENT = """
import json, sys
from pydantic import BaseModel
from acp_tui.cli import main
from acp_tui.client.events import SessionState
from acp_tui.ui.app import AcpApp

out, cwd, agent = sys.argv[1], sys.argv[2], sys.argv[3]
mount = AcpApp.on_mount

def models(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from models(sub)

async def on_mount(self):
    await mount(self)

    def on_state(state):
        if state is SessionState.READY:
            built = sorted({m.__name__ for m in models(BaseModel) if m.__pydantic_complete__})
            checker = "acp_tui.protocol.conformance" in sys.modules
            with open(out, "w") as stream:
                json.dump({"built": built, "checker": checker}, stream)
            self.exit(0)
        elif state in (SessionState.CRASHED, SessionState.FAILED):
            print("the session", state, self.session.error, file=sys.stderr)
            self.exit(3)

    self.session.state_changed.subscribe(on_state)

AcpApp.on_mount = on_mount
text = cwd + "/text.txt"
open(text, "w").write("hello\\n")
sys.exit(main(["--cwd", cwd, "--", sys.executable, agent, text, "--stamp", cwd + "/stamp"]))
"""


def test_the_session_opens_before_the_conformance_checker_is_loaded(tmp_path: Path) -> None:
    out = tmp_path / "built.json"
    env, project = headless_launch(tmp_path)
    agent = Path(__file__).resolve().parents[2] / "bench" / "pipe_agent.py"
    run_python(LAUNCH_PLAIN_AGENT, str(out), str(project), str(agent), env=env)
    seen = json.loads(out.read_text())
    assert seen["checker"] is False
    assert "InitializeResponse" in seen["built"]  # the handshake is validated by its models


# The collector while the app starts: off until the main screen is mounted, then on again with
# what was built frozen.
LAUNCH_GC = """
import gc, json, sys
from acp_tui.cli import main
from acp_tui.ui.app import AcpApp

out, cwd = sys.argv[1], sys.argv[2]
mount = AcpApp.on_mount
seen = {}

async def on_mount(self):
    seen["before mount"] = gc.isenabled()
    await mount(self)
    seen["mounted"] = gc.isenabled()
    seen["frozen"] = gc.get_freeze_count() > 10000
    self.exit(0)

AcpApp.on_mount = on_mount
code = main(["--cwd", cwd, "--demo"])
seen["after"] = gc.isenabled()
with open(out, "w") as stream:
    json.dump(seen, stream)
sys.exit(code)
"""


def test_no_automatic_collection_until_the_main_screen_is_mounted(tmp_path: Path) -> None:
    out = tmp_path / "gc.json"
    env, project = headless_launch(tmp_path)
    run_python(LAUNCH_GC, str(out), str(project), env=env)
    seen = json.loads(out.read_text())
    assert seen == {"before mount": False, "mounted": True, "frozen": True, "after": True}


# The skeleton frame (`ui/first_frame.py`) is drawn as soon as the command line is read:
# before the launch module, asyncio or the agent's prestart are imported.
BEFORE_FRAME = """
import json, sys
from acp_tui.ui import first_frame

heavy, cwd = json.loads(sys.argv[1]), sys.argv[2]

def show(self, agent):
    print(json.dumps([agent, [name for name in heavy if name in sys.modules]]))
    raise SystemExit(0)

first_frame.FirstFrame.show = show
from acp_tui.cli import main
main(["--cwd", cwd, "--", sys.executable])
"""


def test_the_first_frame_is_drawn_before_the_launch_imports_asyncio(tmp_path: Path) -> None:
    heavy = ["asyncio", "acp_tui.ui.launch", "acp_tui.client.prestart", "textual", "pydantic"]
    env = {**os.environ, "ACP_TUI_CONFIG": str(tmp_path / "config.toml")}
    shown = run_python(BEFORE_FRAME, json.dumps(heavy), str(tmp_path), env=env)
    assert json.loads(shown) == [Path(sys.executable).name, []]


def test_the_agent_is_spawned_before_what_only_later_steps_need() -> None:
    """The launch module (and the prestart, which spawns the agent) imports no `uuid` (its
    `platform` probe; pydantic imports it later) and no `tracemalloc` (a bench's snapshots)."""
    code = (
        "import sys\n"
        "import acp_tui.ui.launch\n"
        "print([m for m in ('uuid', 'platform', 'tracemalloc') if m in sys.modules])\n"
    )
    assert run_python(code).strip() == "[]"


def test_protocol_models_build_their_validators_at_first_use() -> None:
    code = (
        "import sys\n"
        "import acp_tui.ui.launch, acp_tui.client.session.agent_session, acp_tui.ui.app\n"
        "from acp_tui.protocol.models import InitializeResponse\n"
        "from acp_tui.protocol.models import UnknownContent, UnknownPlanContent\n"
        "from acp_tui.protocol.models import UnknownToolCallContent, UnknownUpdate\n"
        "from acp_tui.protocol.models._base import AcpModel\n"
        "todo = [AcpModel, UnknownContent, UnknownPlanContent, UnknownToolCallContent,"
        " UnknownUpdate]\n"
        "models = []\n"
        "while todo:\n"
        "    cls = todo.pop()\n"
        "    models.append(cls)\n"
        "    todo.extend(cls.__subclasses__())\n"
        "print(len(models), sum(cls.__pydantic_complete__ for cls in models))\n"
        "hello = InitializeResponse.model_validate({'protocolVersion': 1})\n"
        "print(hello.protocol_version, InitializeResponse.__pydantic_complete__)\n"
    )
    counts, validated = run_python(code).splitlines()
    models, built = map(int, counts.split())
    assert models > 50  # the models were all imported...
    assert built == 0  # ...and none has built its schema yet
    assert validated == "1 True"  # validating builds it


def test_the_settings_are_read_without_pydantic(tmp_path: Path) -> None:
    """The settings are read on the way to the first usable prompt: plain checks, no pydantic
    (its import and a validator build for one model)."""
    config = tmp_path / "config.toml"
    config.write_text('theme = "nord"\nmax_read_bytes = 0\n')
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from acp_tui.config import load_settings\n"
        f"loaded = load_settings(Path({str(config)!r}), environ={{}})\n"
        "print(loaded.settings.theme, len(loaded.messages), 'pydantic' in sys.modules)\n"
    )
    assert run_python(code).split() == ["nord", "1", "False"]


def test_checking_a_session_update_builds_no_validator_for_every_update_kind() -> None:
    """The conformance check of the updates an agent sends as the session opens (before the
    prompt is ready) builds the validators of their kinds only, not `SessionNotification`'s
    (every kind's at once)."""
    code = (
        "import json\n"
        "from acp_tui.protocol.models import SessionNotification\n"
        "from acp_tui.protocol.traffic import TrafficEvent\n"
        "from acp_tui.protocol.traffic_store import TrafficStore\n"
        "store = TrafficStore()\n"
        "update = {'sessionUpdate': 'available_commands_update', 'availableCommands': 3}\n"
        "frame = {'jsonrpc': '2.0', 'method': 'session/update',\n"
        "         'params': {'sessionId': 's', 'update': update}}\n"
        "store.record(TrafficEvent('in', 0.0, json.dumps(frame)))\n"
        "print([mark.kind.name for mark in store.frames[0].marks])\n"
        "print(SessionNotification.__pydantic_complete__)\n"
    )
    marks, built = run_python(code).splitlines()
    assert marks == "['DEFAULTED']"  # still checked: a list of commands that is not one
    assert built == "False"


def test_help_and_version_load_no_presets() -> None:
    code = (
        "import sys\n"
        "from acp_tui.cli import main\n"
        "for flag in ('--help', '--version'):\n"
        "    try:\n"
        "        main([flag])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "loaded = [m for m in ('acp_tui.presets', 'tomllib', 'acp_tui.mcp_servers')"
        " if m in sys.modules]\n"
        "print('loaded', loaded, file=sys.stderr)\n"
        "assert not loaded, loaded\n"
    )
    assert "usage: acp-tui" in run_python(code)


PLUGINS = """
import sys
from acp_tui.cli import main
assert main(["--cwd", "/nonexistent/dir", "--", "true"]) == 2  # (a usage error: no app)
import acp_tui.protocol.models
from acp_tui.protocol.models.agent_methods import InitializeResponse
InitializeResponse.model_validate({"protocolVersion": 1})
print("importlib.metadata" in sys.modules)
"""


@pytest.mark.parametrize(("opt_in", "scanned"), [(None, "False"), ("1", "True")])
def test_the_app_does_not_look_for_pydantic_plugins(opt_in: str | None, scanned: str) -> None:
    """`acp-tui` builds its models without pydantic's plugin scan (importlib.metadata over
    every installed distribution); `ACP_TUI_PYDANTIC_PLUGINS=1` keeps it."""
    env = {k: v for k, v in os.environ.items() if k != "ACP_TUI_PYDANTIC_PLUGINS"}
    if opt_in is not None:
        env["ACP_TUI_PYDANTIC_PLUGINS"] = opt_in
    assert run_python(PLUGINS, env=env).split() == [scanned]

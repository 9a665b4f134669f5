"""Agent presets: the config tables, built-ins, the command line that starts one."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from acp_tui.agent_choice import UsageError, list_agents
from acp_tui.cli import parse_args
from acp_tui.launch_options import with_preset
from acp_tui.presets import BUILTIN_PRESETS, Preset, PresetTable, load_presets, parse_preset


def write_config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def program(directory: Path, name: str) -> Path:
    path = directory / name
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_builtins_are_there_with_install_commands(tmp_path: Path) -> None:
    table = load_presets(tmp_path / "missing.toml")
    assert table.messages == []
    assert table.get("gemini") is not None and table.presets["gemini"].command == (
        "gemini",
        "--acp",
    )
    assert table.presets["opencode"].command == ("opencode", "acp")
    assert table.presets["vibe"].command == ("vibe-acp",)
    for preset in BUILTIN_PRESETS:
        assert preset.install, preset.name


def test_a_user_table_is_read_and_overrides_a_builtin_key_by_key(tmp_path: Path) -> None:
    config = write_config(
        tmp_path,
        """
theme = "textual-dark"
[agents.mine]
command = ["/opt/agent", "--acp"]
args = ["--verbose"]
env = { KEY = "v" }
mode = "plan"
model = "fast"
config = { effort = "high", thinking = true }
auth_method = "api-key"
[[agents.mine.mcp_servers]]
name = "fs"
command = "/usr/bin/mcp-fs"
env = { ROOT = "/srv" }

[agents.gemini]
model = "gemini-2.5-pro"
""",
    )
    table = load_presets(config)
    assert table.messages == []
    mine = table.presets["mine"]
    assert mine.command == ("/opt/agent", "--acp", "--verbose")
    assert (mine.mode, mine.model, mine.auth_method) == ("plan", "fast", "api-key")
    assert dict(mine.env) == {"KEY": "v"}
    assert dict(mine.config) == {"effort": "high", "thinking": True}
    assert mine.mcp_servers == (
        {
            "name": "fs",
            "command": "/usr/bin/mcp-fs",
            "args": [],
            "env": [{"name": "ROOT", "value": "/srv"}],
        },
    )
    gemini = table.presets["gemini"]
    assert gemini.command == ("gemini", "--acp") and gemini.model == "gemini-2.5-pro"
    assert gemini.install == "npm install -g @google/gemini-cli"


def test_bad_tables_are_reported_and_skipped(tmp_path: Path) -> None:
    config = write_config(
        tmp_path,
        """
[agents.nocmd]
mode = "x"
[agents.badcmd]
command = 3
[agents.half]
command = "a"
model = ""
colour = "red"
""",
    )
    table = load_presets(config)
    assert "nocmd" not in table.presets and "badcmd" not in table.presets
    assert table.presets["half"].model is None
    joined = "\n".join(table.messages)
    assert "[agents.nocmd]: needs a `command`" in joined
    assert "[agents.badcmd]: `command` must be" in joined
    assert "[agents.half]: unknown key 'colour' ignored" in joined
    assert "[agents.half]: `model` must be a non-empty string" in joined


def test_agents_table_is_not_an_unknown_setting(tmp_path: Path) -> None:
    from acp_tui.config import load_settings

    config = write_config(tmp_path, '[agents.x]\ncommand = "x"\n')
    assert load_settings(config, environ={}).messages == []


def table_with(tmp_path: Path, *presets: Preset) -> PresetTable:
    return PresetTable({p.name: p for p in presets})


def test_a_bare_word_naming_a_preset_wins(tmp_path: Path) -> None:
    agent = program(tmp_path, "fake-gemini")
    table = table_with(tmp_path, Preset("gemini", (str(agent), "--acp"), model="m"))
    options = parse_args(["--cwd", str(tmp_path), "gemini"], table)
    assert options.agent_argv == [str(agent), "--acp"]
    assert options.preset is not None and options.preset.model == "m"
    # the old spelling still works: the words are already in the preset's command
    assert parse_args(["gemini", "--acp"], table).agent_argv == [str(agent), "--acp"]
    # extra arguments go after `--`
    assert parse_args(["gemini", "--", "--debug"], table).agent_argv == [
        str(agent), "--acp", "--debug"
    ]  # fmt: skip
    with pytest.raises(UsageError, match="give its extra arguments after `--`"):
        parse_args(["gemini", "--debug"], table)
    # `--` runs a program as is, no preset
    as_is = parse_args(["--", str(agent), "x"], table)
    assert as_is.agent_argv == [str(agent), "x"] and as_is.preset is None


def test_dash_a_names_a_preset(tmp_path: Path) -> None:
    agent = program(tmp_path, "fake-agent")
    table = table_with(tmp_path, Preset("mine", (str(agent),)))
    options = parse_args(["-a", "mine", "--", "--flag"], table)
    assert options.agent_argv == [str(agent), "--flag"] and options.preset is not None
    with pytest.raises(UsageError, match=r"no agent preset 'nope' \(known: mine\)"):
        parse_args(["--agent", "nope"], table)


def test_a_missing_preset_program_shows_its_install_command(tmp_path: Path) -> None:
    table = table_with(
        tmp_path, Preset("ghost", ("no-such-program-xyz", "--acp"), install="npm i -g ghost")
    )
    with pytest.raises(UsageError, match="install it with: npm i -g ghost"):
        parse_args(["ghost"], table)


def test_no_agent_opens_the_picker(tmp_path: Path) -> None:
    agent = program(tmp_path, "fake-agent")
    installed = table_with(tmp_path, Preset("mine", (str(agent),)))
    options = parse_args([], installed)
    assert options.pick_agent and options.agent_argv == []
    picked = with_preset(options, installed.presets["mine"])
    assert picked.agent_argv == [str(agent)] and not picked.pick_agent
    nothing = table_with(tmp_path, Preset("ghost", ("no-such-program-xyz",)))
    # with nothing installed too: the picker offers the demo, and says how to install the rest
    assert parse_args([], nothing).pick_agent


def test_list_agents_marks_installed_and_missing(tmp_path: Path) -> None:
    agent = program(tmp_path, "fake-agent")
    table = table_with(
        tmp_path,
        Preset("mine", (str(agent),), title="Mine"),
        Preset("ghost", ("no-such-program-xyz", "acp"), install="uv tool install ghost"),
    )
    lines = list_agents(table).splitlines()
    assert lines[0].split()[:2] == ["mine", "installed"]
    assert lines[1].split()[:2] == ["ghost", "missing"]
    assert lines[2].strip() == "install: uv tool install ghost"


def test_list_agents_from_the_command_line(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    program(bin_dir, "vibe-acp")
    config = write_config(tmp_path, '[agents.mine]\ncommand = "vibe-acp"\nargs = ["--x"]\n')
    env = {**os.environ, "PATH": str(bin_dir), "ACP_TUI_CONFIG": str(config)}
    result = subprocess.run(
        [sys.executable, "-m", "acp_tui", "--list-agents"],
        capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    rows = {
        line.split()[0]: line.split()[1] for line in result.stdout.splitlines() if line[:1] != " "
    }
    assert rows["vibe"] == "installed" and rows["mine"] == "installed"
    assert rows["gemini"] == "missing"
    assert "install: npm install -g @google/gemini-cli" in result.stdout


def test_parse_preset_args_without_command_extend_the_builtin() -> None:
    base = Preset("gemini", ("gemini", "--acp"), builtin=True)
    preset, problems = parse_preset("gemini", {"args": ["--experimental-acp"]}, base)
    assert problems == [] and preset is not None
    assert preset.command == ("gemini", "--experimental-acp")


def test_dash_a_repeated_opens_one_session_per_preset(tmp_path: Path) -> None:
    first = program(tmp_path, "fake-one")
    second = program(tmp_path, "fake-two")
    table = table_with(tmp_path, Preset("one", (str(first),)), Preset("two", (str(second),)))
    options = parse_args(["-a", "one", "-a", "two", "--", "--flag"], table)
    # the first keeps the prestart and the arguments after `--`; the others start as they are
    assert options.agent_argv == [str(first), "--flag"]
    assert options.preset is not None and options.preset.name == "one"
    assert [p.name for p in options.more_presets] == ["two"]
    assert [p.command for p in options.more_presets] == [(str(second),)]
    # one `-a` as before: no more sessions
    assert parse_args(["-a", "one"], table).more_presets == ()
    with pytest.raises(UsageError, match=r"no agent preset 'nope'"):
        parse_args(["-a", "one", "-a", "nope"], table)
    missing = table_with(tmp_path, Preset("one", (str(first),)), Preset("gone", ("no-such-xyz",)))
    with pytest.raises(UsageError, match="not found"):
        parse_args(["-a", "one", "-a", "gone"], missing)

"""The command line: fast --help/--version, clear one-line errors, argument splitting."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from acp_tui.agent_choice import UsageError
from acp_tui.cli import parse_args


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acp_tui", *args], capture_output=True, text=True, timeout=60
    )


def test_help_lists_the_usage_without_importing_the_ui() -> None:
    code = (
        "import sys\nfrom acp_tui.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "assert 'textual' not in sys.modules, 'help imported textual'\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "[NAME | -a NAME | -- AGENT_CMD [ARGS...]]" in result.stdout


def test_missing_agent_command_is_one_line_with_a_hint() -> None:
    result = run_cli("--", "no-such-agent-xyz", "--acp")
    assert result.returncode == 2
    first = result.stderr.splitlines()[0]
    assert first == (
        "acp-tui: agent command not found: 'no-such-agent-xyz' (is it installed and on your PATH?)"
    )
    assert "Traceback" not in result.stderr


def test_not_executable_agent(tmp_path: Path) -> None:
    script = tmp_path / "agent.sh"
    script.write_text("#!/bin/sh\n")
    result = run_cli("--", str(script))
    assert result.returncode == 2
    assert "not executable" in result.stderr and "chmod +x" in result.stderr


def test_no_agent_at_all_suggests_the_demo() -> None:
    result = run_cli()
    assert result.returncode == 2
    assert "acp-tui --demo" in result.stderr


def test_agent_argv_after_double_dash_is_kept_verbatim(tmp_path: Path) -> None:
    options = parse_args(["--cwd", str(tmp_path), "--", "sh", "--acp", "--cwd", "x"])
    assert options.agent_argv == ["sh", "--acp", "--cwd", "x"]
    assert options.cwd == tmp_path.resolve() and options.cwd.is_absolute()
    assert not options.demo


def test_cwd_defaults_to_the_current_directory_made_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    options = parse_args(["--", "sh"])
    assert options.cwd == tmp_path.resolve()
    assert options.cwd_defaulted


def test_bad_cwd_and_demo_with_agent_are_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not a directory"):
        parse_args(["--cwd", str(tmp_path / "missing"), "--", "sh"])
    with pytest.raises(UsageError, match="either --demo or an agent"):
        parse_args(["--demo", "--", "sh"])


def test_log_path_is_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    options = parse_args(["--log", "traffic.jsonl", "--demo"])
    assert options.log_path == tmp_path.resolve() / "traffic.jsonl"
    assert options.demo


def test_agent_names_from_commands() -> None:
    from acp_tui.client.session.agent_session import command_name

    assert command_name(["gemini", "--acp"]) == "gemini"
    assert command_name(["/usr/bin/python3", "-u", "examples/echo_agent.py"]) == "echo_agent"
    assert command_name(["npx", "@zed-industries/claude-code-acp"]) == "claude-code-acp"
    assert command_name(["node"]) == "node"
    assert command_name([]) == "agent"
    # interpreters and runners: the name comes from what they run
    assert command_name(["tsx", "/x/examples/agent.ts"]) == "agent"
    assert command_name(["/n/node_modules/.bin/tsx", "agent.ts", "--debug"]) == "agent"
    assert command_name(["node", "--enable-source-maps", "dist/index.js"]) == "index"
    assert command_name(["bun", "run", "src/main.ts"]) == "main"
    assert command_name(["deno", "run", "-A", "agent.ts"]) == "agent"
    assert command_name(["npx", "-y", "@zed-industries/claude-code-acp@latest"]) == (
        "claude-code-acp"
    )
    assert command_name(["uvx", "fast-agent-mcp@0.2.1"]) == "fast-agent-mcp"
    assert command_name(["uvx", "--from", "kimi-cli", "kimi"]) == "kimi"
    assert command_name(["uv", "run", "--with", "x", "agent.py"]) == "agent"
    assert command_name(["python3.12", "-m", "acp_tui.demo.agent"]) == "acp_tui.demo.agent"
    # not interpreters, though their names start like one
    assert command_name(["shellcheck-agent", "--acp"]) == "shellcheck-agent"
    assert command_name(["nodeagent", "x.js"]) == "nodeagent"


def test_replay_needs_no_agent_and_refuses_one(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    log.write_text("")
    options = parse_args(["--replay", str(log), "--replay-speed", "0", "--replay-paused"])
    assert (options.replay_path, options.replay_speed, options.replay_paused) == (log, 0.0, True)
    assert options.agent_argv == []
    with pytest.raises(UsageError, match="no agent command"):
        parse_args(["--replay", str(log), "--", "gemini"])
    with pytest.raises(UsageError, match="is not a file"):
        parse_args(["--replay", str(tmp_path / "missing.jsonl")])


def test_inspect_flag() -> None:
    assert parse_args(["--inspect", "--demo"]).inspect
    assert not parse_args(["--demo"]).inspect


def test_check_without_an_agent_command_is_a_usage_error() -> None:
    result = run_cli("check", "--prompt", "hi")
    assert result.returncode == 2
    assert "acp-tui check" in result.stderr


def test_the_app_runs_with_a_short_switch_interval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual's writer thread gets the GIL after 1 ms, not 5, while the app is busy (see
    `acp_tui.ui.runtime`): set before the app runs, by the command."""
    from acp_tui import cli
    from acp_tui.ui import launch
    from acp_tui.ui.runtime import SWITCH_INTERVAL

    seen: list[float] = []

    def run_app(options: object, early: object) -> int:
        seen.append(sys.getswitchinterval())
        return 0

    log = tmp_path / "s.jsonl"
    log.write_text("")
    monkeypatch.setattr(launch, "run_app", run_app)
    before = sys.getswitchinterval()
    assert before != SWITCH_INTERVAL
    try:
        assert cli.main(["--replay", str(log)]) == 0
    finally:
        sys.setswitchinterval(before)
    assert seen == [SWITCH_INTERVAL]


def test_the_agent_is_named_as_launched_until_it_names_itself() -> None:
    from acp_tui.presets import Preset

    assert parse_args(["--demo"]).agent_label == "acp-tui demo agent", "not acp_tui.demo.agent"
    options = parse_args(["--", sys.executable, "-m", "some_pkg.agent"])
    assert options.agent_label == "some_pkg.agent"  # no preset: the command's short name
    titled = Preset("claude", ("claude-code-acp",), title="Claude Code")
    assert replace(options, preset=titled).agent_label == "Claude Code"
    assert replace(options, preset=Preset("mine", ("x",))).agent_label == "mine"

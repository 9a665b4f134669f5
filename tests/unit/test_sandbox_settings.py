"""Where the sandbox's mode and paths come from: `--sandbox`, the preset, the settings (each one
over the next), and what bad values become: a clear message, never a crash."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from acp_tui.cli import parse_args
from acp_tui.client.sandbox_setup import sandbox_request, worktree_git_dirs
from acp_tui.config import Settings, load_settings
from acp_tui.presets import load_presets
from acp_tui.sandbox.agent_dirs import default_state_dirs
from acp_tui.sandbox.modes import SandboxMode


def test_the_command_line_wins_over_the_preset_which_wins_over_the_setting(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        'sandbox = "strict"\nsandbox_writable = ["/var"]\n'
        '[agents.mine]\ncommand = "true"\nsandbox = "off"\nsandbox_writable = ["/srv"]\n'
    )
    settings = load_settings(config, environ={}).settings
    preset = load_presets(config, environ={}).presets["mine"]
    assert settings.sandbox is SandboxMode.STRICT
    assert preset.sandbox is SandboxMode.OFF
    assert sandbox_request(settings, None, ["true"]).mode is SandboxMode.STRICT
    from_preset = sandbox_request(settings, preset, ["true"], home=tmp_path)
    assert from_preset.mode is SandboxMode.OFF
    assert from_preset.writable == (Path("/var"), Path("/srv"))
    assert from_preset.agent_id == "mine"
    asked = sandbox_request(settings, preset, ["true"], asked="project")
    assert asked.mode is SandboxMode.PROJECT and asked.forced


def test_unset_means_project_where_landlock_is_and_is_not_forced() -> None:
    request = sandbox_request(Settings(), None, ["gemini", "--acp"])
    assert request.mode is None and not request.forced
    assert request.agent_id == "gemini"


def test_a_sandbox_value_that_does_not_exist_is_a_message(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('sandbox = "strcit"\n[agents.mine]\ncommand = "true"\nsandbox = "nope"\n')
    loaded = load_settings(config, environ={})
    assert loaded.settings.sandbox is None
    assert any(
        "sandbox: Input should be 'off', 'project' or 'strict'" in m for m in loaded.messages
    )
    table = load_presets(config, environ={})
    assert any("`sandbox` must be one of off, project, strict, not 'nope'" in m
               for m in table.messages)  # fmt: skip
    from_env = load_settings(config, environ={"ACP_TUI_SANDBOX": "off"})
    assert from_env.settings.sandbox is SandboxMode.OFF


def test_the_command_line_refuses_a_mode_that_does_not_exist() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "acp_tui", "--sandbox", "tight", "--demo"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 2
    assert "argument --sandbox: invalid choice: 'tight'" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_command_line_passes_the_mode_on(tmp_path: Path) -> None:
    options = parse_args(["--sandbox", "strict", "--cwd", str(tmp_path), "--demo"])
    assert options.sandbox == "strict"


def test_the_rule_gives_an_agent_its_own_directories_and_its_runner_cache(tmp_path: Path) -> None:
    found = default_state_dirs("qwen", ["npx", "-y", "@qwen-code/qwen-code"], tmp_path,
                               {"XDG_CACHE_HOME": "/c"})  # fmt: skip
    for path in (tmp_path / ".qwen", tmp_path / ".config/qwen", Path("/c/qwen"),
                 tmp_path / ".qwen-code", tmp_path / ".npm"):  # fmt: skip
        assert path in found
    assert tmp_path / ".npx" not in found


def test_a_git_file_counts_only_when_its_git_directory_points_back(tmp_path: Path) -> None:
    project = tmp_path / "project"
    elsewhere = tmp_path / "victim"
    project.mkdir()
    elsewhere.mkdir()
    (project / ".git").write_text(f"gitdir: {elsewhere}\n")
    assert worktree_git_dirs(project) == []  # not a worktrees/NAME directory
    fake = tmp_path / "repo" / ".git" / "worktrees" / "w"
    fake.mkdir(parents=True)
    (fake / "gitdir").write_text(str(tmp_path / "other" / ".git"))
    (project / ".git").write_text(f"gitdir: {fake}\n")
    assert worktree_git_dirs(project) == []  # it names another worktree
    (fake / "gitdir").write_text(str(project / ".git"))
    (tmp_path / "repo" / ".git" / "objects").mkdir()
    assert worktree_git_dirs(project / "sub") == [fake, tmp_path / "repo/.git/objects"]


def test_sandbox_writable_on_the_command_line_is_repeated_and_reaches_the_policy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "kit").mkdir()
    (tmp_path / "other").mkdir()
    monkeypatch.chdir(tmp_path)
    options = parse_args(
        ["--sandbox-writable", "~/kit", "--sandbox-writable", "other", "--cwd", str(tmp_path),
         "--demo"]
    )  # fmt: skip
    assert options.sandbox_writable == (tmp_path / "kit", tmp_path / "other")
    request = sandbox_request(
        Settings(sandbox_writable=[tmp_path]), None, ["agent"], writable=options.sandbox_writable
    )
    assert request.writable == (tmp_path, tmp_path / "kit", tmp_path / "other")


@pytest.mark.parametrize("command", [[], ["check"]])
def test_a_sandbox_writable_path_that_does_not_exist_is_a_message(
    tmp_path: Path, command: list[str]
) -> None:
    missing = tmp_path / "nowhere"
    agent = ["--demo"] if not command else ["--", sys.executable, "-c", "pass"]
    result = subprocess.run(
        [sys.executable, "-m", "acp_tui", *command, "--sandbox-writable", str(missing), *agent],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 2
    assert f"--sandbox-writable: {missing} does not exist" in result.stderr
    assert "Traceback" not in result.stderr

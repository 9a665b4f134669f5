"""Settings files that would hang or crash start-up: FIFOs, devices, huge files, nesting that
`tomllib` recurses on. Each is a problem in the loader's list, never a traceback or a hang."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from acp_tui.client.prestart import quick_agent_env
from acp_tui.config import load_settings
from acp_tui.host.settings_file import (
    SETTINGS_FILE_MAX_BYTES,
    SettingsFileError,
    read_settings_file,
)
from acp_tui.presets import load_presets
from acp_tui.registry.catalog import Catalog
from acp_tui.ui.themes import load_themes

DEEP = {
    "arrays": "a = " + "[" * 5000 + "]" * 5000 + "\n",
    "inline tables": "a = " + "{b = " * 5000 + "1" + "}" * 5000 + "\n",
    "env list": "agent_env = " + "[" * 5000 + "]" * 5000 + "\n",
}


@pytest.mark.parametrize("name", list(DEEP))
def test_a_config_nested_5000_deep_is_a_problem_not_a_crash(tmp_path: Path, name: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text('theme = "acp-paper"\n' + DEEP[name])
    loaded = load_settings(path, environ={})
    assert loaded.settings.theme == "textual-dark"  # the whole file is unusable
    assert len(loaded.messages) == 1
    assert str(path) in loaded.messages[0] and "nested too deep" in loaded.messages[0]
    assert load_presets(path, environ={}).presets  # the built-ins, no crash


def test_an_env_value_nested_too_deep_is_reported(tmp_path: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    loaded = load_settings(tmp_path / "none.toml", environ={"ACP_TUI_AGENT_ENV": deep})
    assert loaded.settings.agent_env == {}
    assert len(loaded.messages) == 1 and "ACP_TUI_AGENT_ENV" in loaded.messages[0]


def fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


@pytest.mark.timeout(20)
def test_a_fifo_as_config_toml_is_reported_without_blocking(tmp_path: Path) -> None:
    path = fifo(tmp_path / "config.toml")
    loaded = load_settings(path, environ={})
    assert loaded.settings.theme == "textual-dark"
    assert len(loaded.messages) == 1
    assert str(path) in loaded.messages[0] and "not a regular file" in loaded.messages[0]
    assert load_presets(path, environ={}).presets
    assert quick_agent_env({"ACP_TUI_CONFIG": str(path)}) == {}
    catalog = Catalog.open({"ACP_TUI_CONFIG": str(path), "XDG_CACHE_HOME": str(tmp_path)})
    assert catalog.url  # the default registry: the FIFO's registry_url was not read


def test_the_quick_agent_env_guess_survives_deep_nesting(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(DEEP["env list"])
    assert quick_agent_env({"ACP_TUI_CONFIG": str(path)}) == {}
    assert quick_agent_env({"ACP_TUI_AGENT_ENV": "[" * 100_000 + "]" * 100_000}) == {}


@pytest.mark.timeout(20)
def test_a_fifo_as_a_theme_file_is_reported_without_blocking(tmp_path: Path) -> None:
    fifo(tmp_path / "pipe.toml")
    (tmp_path / "ok.toml").write_text('name = "mine"\nprimary = "red"\n')
    (tmp_path / "deep.toml").write_text("variables = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n")
    themes, problems = load_themes([tmp_path])
    assert [theme.name for theme in themes] == ["mine"]
    assert len(problems) == 2
    joined = "\n".join(problems)
    assert "pipe.toml: not a regular file" in joined
    assert "deep.toml: nested too deep" in joined


def test_a_settings_file_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("# padding\n" * (SETTINGS_FILE_MAX_BYTES // 10 + 1))
    with pytest.raises(SettingsFileError, match="larger than 1 MiB"):
        read_settings_file(path)
    loaded = load_settings(path, environ={})
    assert len(loaded.messages) == 1 and "larger than 1 MiB" in loaded.messages[0]


def test_a_device_or_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SettingsFileError, match="not a regular file"):
        read_settings_file(Path("/dev/zero"))
    with pytest.raises(SettingsFileError, match="not a regular file"):
        read_settings_file(tmp_path)


def test_a_symlink_to_a_regular_file_is_read(tmp_path: Path) -> None:
    """Dotfile managers link config files: what is checked is the file opened."""
    real = tmp_path / "real.toml"
    real.write_text('theme = "acp-paper"\n')
    (tmp_path / "config.toml").symlink_to(real)
    assert read_settings_file(tmp_path / "config.toml") == 'theme = "acp-paper"\n'
    with pytest.raises(FileNotFoundError):
        read_settings_file(tmp_path / "missing.toml")

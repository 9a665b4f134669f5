"""Settings: file location, defaults, values from TOML and env, and bad input never crashing."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from acp_tui.config import (
    HoldWrites,
    Settings,
    config_path,
    load_settings,
    setting_docs,
    user_config_dir,
)
from acp_tui.host.permission_rules import PermissionPolicy


def write(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "config.toml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_config_path_resolution():
    assert config_path({"ACP_TUI_CONFIG": "/etc/x.toml", "XDG_CONFIG_HOME": "/c"}) == Path(
        "/etc/x.toml"
    )
    assert config_path({"XDG_CONFIG_HOME": "/c", "HOME": "/h"}) == Path("/c/acp-tui/config.toml")
    assert config_path({"HOME": "/h"}) == Path("/h/.config/acp-tui/config.toml")
    # The XDG spec says relative XDG paths are invalid and must be ignored.
    assert user_config_dir({"XDG_CONFIG_HOME": "rel", "HOME": "/h"}) == Path("/h/.config/acp-tui")


def test_every_field_is_documented():
    docs = setting_docs()
    for name in fields(Settings):
        assert len(docs.get(name.name, "")) > 10, name.name


def test_missing_file_gives_defaults_and_no_messages(tmp_path):
    loaded = load_settings(tmp_path / "nope.toml", environ={})
    assert loaded.messages == []
    s = loaded.settings
    assert s.permission_policy is PermissionPolicy.ASK
    assert s.hold_writes is HoldWrites.OUTSIDE_PERMISSION
    assert s.extra_allowed_roots == [] and s.agent_env == {} and s.mcp_servers == []
    assert s.keymap == {} and s.theme == "textual-dark" and s.max_read_bytes > 0


def test_load_finds_the_file_through_acp_tui_config(tmp_path):
    path = write(tmp_path, 'theme = "nord"\n')
    loaded = load_settings(environ={"ACP_TUI_CONFIG": str(path)})
    assert loaded.path == path and loaded.settings.theme == "nord"


def test_values_from_file(tmp_path):
    path = write(
        tmp_path,
        """
permission_policy = "allow_reads"
hold_writes = "always"
extra_allowed_roots = ["/opt/lib", "~/notes", "shared"]
max_read_bytes = 1024
theme = "gruvbox"
keymap = { "rules.open" = "ctrl+r" }
agent_env = { API_BASE = "http://localhost" }

[[mcp_servers]]
name = "fs"
command = "/usr/bin/mcp-fs"
args = ["--root", "."]
env = []
""",
    )
    loaded = load_settings(path, environ={"HOME": "/h"})
    s = loaded.settings
    assert loaded.messages == []
    assert s.permission_policy is PermissionPolicy.ALLOW_READS
    assert s.hold_writes is HoldWrites.ALWAYS
    home = Path.home()
    assert s.extra_allowed_roots == [Path("/opt/lib"), home / "notes", home / "shared"]
    assert s.max_read_bytes == 1024 and s.theme == "gruvbox"
    assert s.keymap == {"rules.open": "ctrl+r"}
    assert s.agent_env == {"API_BASE": "http://localhost"}
    assert s.mcp_servers == [
        {"name": "fs", "command": "/usr/bin/mcp-fs", "args": ["--root", "."], "env": []}
    ]


def test_env_overrides_file(tmp_path):
    path = write(tmp_path, 'permission_policy = "allow_reads"\ntheme = "nord"\n')
    loaded = load_settings(
        path,
        environ={
            "ACP_TUI_PERMISSION_POLICY": "allow_all_dangerous",
            "ACP_TUI_KEYMAP": '{"quit": "ctrl+x"}',
            "ACP_TUI_DEMO_SPEED": "0",  # someone else's variable: not a setting, not an error
        },
    )
    assert loaded.messages == []
    assert loaded.settings.permission_policy is PermissionPolicy.ALLOW_ALL_DANGEROUS
    assert loaded.settings.keymap == {"quit": "ctrl+x"}
    assert loaded.settings.theme == "nord"


def test_env_values_json_for_lists_and_tables_text_for_the_rest(tmp_path):
    loaded = load_settings(
        tmp_path / "none.toml",
        environ={
            "acp_tui_theme": "nord",  # names in any case
            "ACP_TUI_WATCH_CHANGES": "false",
            "ACP_TUI_NOTIFY_AFTER_SECONDS": "2.5",
            "ACP_TUI_HOLD_WRITES": "always",
            "ACP_TUI_EXTRA_ALLOWED_ROOTS": '["/opt/x", "notes"]',
            "ACP_TUI_MCP_SERVERS": '[{"name": "fs", "command": "/bin/fs"}]',
            "ACP_TUI_AGENT_ENV": '{"A": "1"}',
        },
    )
    assert loaded.messages == []
    s = loaded.settings
    assert (s.theme, s.watch_changes, s.notify_after_seconds) == ("nord", False, 2.5)
    assert s.hold_writes is HoldWrites.ALWAYS
    assert s.extra_allowed_roots == [Path("/opt/x"), Path.home() / "notes"]
    assert s.mcp_servers == [{"name": "fs", "command": "/bin/fs"}]
    assert s.agent_env == {"A": "1"}


def test_env_table_that_is_not_json_names_the_variable(tmp_path):
    loaded = load_settings(tmp_path / "none.toml", environ={"ACP_TUI_AGENT_ENV": "A=1"})
    assert loaded.settings.agent_env == {}
    assert loaded.messages == [
        "ACP_TUI_AGENT_ENV: not valid JSON (Expecting value: line 1 column 1 (char 0)); ignored"
    ]


@pytest.mark.parametrize(
    "content",
    [b"theme = ", b"[[[", b"\xff\xfe not utf-8", b'theme = "a"\ntheme = "b"\n'],
)
def test_invalid_toml_gives_defaults_and_one_message(tmp_path, content):
    path = write(tmp_path, content)
    loaded = load_settings(path, environ={})
    assert loaded.settings == Settings()
    assert len(loaded.messages) == 1 and str(path) in loaded.messages[0]


def test_unreadable_path_gives_defaults_and_message(tmp_path):
    (tmp_path / "config.toml").mkdir()
    loaded = load_settings(tmp_path / "config.toml", environ={})
    assert loaded.settings == Settings()
    assert "cannot read config" in loaded.messages[0]


def test_bad_values_keep_their_defaults_and_good_ones_apply(tmp_path):
    path = write(
        tmp_path,
        """
permission_policy = "yolo"
hold_writes = "never"
max_read_bytes = -1
theme = "  "
keymap = { "quit" = 3 }
agent_env = "PATH=/bin"
mcp_servers = [1, 2]
extra_allowed_roots = "/opt"
colour = "red"
""",
    )
    loaded = load_settings(path, environ={})
    s = loaded.settings
    assert s.hold_writes is HoldWrites.NEVER  # the one good value
    assert s.permission_policy is PermissionPolicy.ASK
    assert s.max_read_bytes == Settings().max_read_bytes
    assert (s.theme, s.keymap, s.agent_env, s.mcp_servers, s.extra_allowed_roots) == (
        "textual-dark",
        {},
        {},
        [],
        [],
    )
    text = "\n".join(loaded.messages)
    for name in (
        "permission_policy",
        "max_read_bytes",
        "theme",
        "keymap",
        "agent_env",
        "mcp_servers",
        "extra_allowed_roots",
        "'colour'",
    ):
        assert name in text, name
    assert len(loaded.messages) == 8


def test_env_and_file_both_bad_fall_back_to_default(tmp_path):
    path = write(tmp_path, 'max_read_bytes = 0\ntheme = "nord"\n')
    loaded = load_settings(path, environ={"ACP_TUI_MAX_READ_BYTES": "-5"})
    assert loaded.settings.max_read_bytes == Settings().max_read_bytes
    assert loaded.settings.theme == "nord"
    assert len(loaded.messages) == 2
    assert loaded.messages[0].startswith("ACP_TUI_MAX_READ_BYTES")
    assert loaded.messages[1].startswith(f"{path}: max_read_bytes")


def test_bad_env_value_is_reported_and_ignored(tmp_path):
    path = write(tmp_path, 'keymap = { "quit" = "ctrl+x" }\nmax_read_bytes = 10\n')
    loaded = load_settings(
        path, environ={"ACP_TUI_KEYMAP": "{not json", "ACP_TUI_MAX_READ_BYTES": "lots"}
    )
    # A broken env value is dropped; the file's value applies.
    assert loaded.settings.keymap == {"quit": "ctrl+x"}
    assert loaded.settings.max_read_bytes == 10
    text = "\n".join(loaded.messages)
    assert "ACP_TUI_KEYMAP" in text and "ACP_TUI_MAX_READ_BYTES" in text


def test_settings_built_directly_are_checked_and_converted_as_the_file_is() -> None:
    values: dict[str, Any] = {
        "watch_changes": "no",
        "max_read_bytes": "10",
        "extra_allowed_roots": ["notes"],
    }
    s = Settings(**values)
    assert (s.watch_changes, s.max_read_bytes) == (False, 10)
    assert s.extra_allowed_roots == [Path.home() / "notes"]
    with pytest.raises(ValueError, match="max_read_bytes"):
        Settings(max_read_bytes=0)
    with pytest.raises(ValueError, match="hold_writes"):
        Settings(hold_writes="sometimes")  # type: ignore[arg-type]

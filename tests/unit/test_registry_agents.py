"""Registry agents as presets: the overlay rules (built-in over the registry's entry, the config
over both), npx/uvx commands and the missing tool, `--list-agents`, `acp-tui ID` and
`acp-tui check -a ID` (a binary downloaded first; exit status 2 when that fails)."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_tui.agent_choice import UsageError, install_agent
from acp_tui.check_cli import main as check_main
from acp_tui.cli import main, parse_args
from acp_tui.presets import PresetTable
from acp_tui.registry.agents import ensure_installed, startable, status
from acp_tui.registry.cache import cache_root
from acp_tui.registry.catalog import Catalog
from acp_tui.registry.installed import InstallError
from tests.registry_server import (
    RegistryServer,
    binary_agent,
    index_with,
    serve,
    snapshot,
    tar_bytes,
)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[RegistryServer]:
    with serve() as running:
        monkeypatch.setenv("ACP_TUI_REGISTRY_URL", running.url("registry.json"))
        yield running


@pytest.fixture
def path_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty PATH directory (programs are put there by the test)."""
    directory = tmp_path / "bin"
    directory.mkdir()
    monkeypatch.setenv("PATH", str(directory))
    return directory


def program(directory: Path, name: str) -> None:
    path = directory / name
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def refreshed_table(tmp_path: Path, config: str = "") -> PresetTable:
    path = tmp_path / "config.toml"
    path.write_text(config)
    catalog = Catalog.open({**os.environ, "ACP_TUI_CONFIG": str(path)})
    table = catalog.table(refresh=True)
    assert catalog.notices == []
    return table


def test_a_builtin_overlays_the_registry_entry(
    server: RegistryServer, path_dir: Path, tmp_path: Path
) -> None:
    server.put_index(snapshot())
    # neither the built-in's program nor npx: the built-in as it was, with its install hint
    alone = refreshed_table(tmp_path).presets["gemini"]
    assert alone.command == ("gemini", "--acp") and alone.registry is None
    with pytest.raises(UsageError, match="install it with: npm install -g @google/gemini-cli"):
        parse_args(["gemini"], refreshed_table(tmp_path))
    program(path_dir, "npx")
    gemini = refreshed_table(tmp_path).presets["gemini"]
    # the built-in's program is not installed: the registry's way of starting it
    assert gemini.command == ("npx", "-y", "@google/gemini-cli@0.27.3", "--experimental-acp")
    assert gemini.registry is not None and gemini.registry.kind == "npx"
    assert (gemini.title, gemini.version) == ("Gemini CLI", "0.27.3")
    assert gemini.description == "Google's official CLI for Gemini"
    program(path_dir, "gemini")
    own = refreshed_table(tmp_path).presets["gemini"]
    assert own.command == ("gemini", "--acp") and own.registry is None
    assert own.version == "0.27.3" and own.install == "npm install -g @google/gemini-cli"
    kimi = refreshed_table(tmp_path).presets["kimi"]  # a binary in the registry
    assert kimi.registry is not None and kimi.registry.kind == "binary"
    expected = cache_root() / "agents" / "kimi" / "1.9.0" / "kimi"
    assert kimi.command == (str(expected), "acp")
    # built-ins the registry does not list, and registry-only agents, are all there
    table = refreshed_table(tmp_path)
    assert {"goose", "fast-agent", "auggie", "qoder", "codex"} <= set(table.presets)


def test_the_config_wins_key_by_key(server: RegistryServer, path_dir: Path, tmp_path: Path) -> None:
    server.put_index(snapshot())
    program(path_dir, "npx")
    config = """
[agents.gemini]
model = "gemini-2.5-pro"
env = { GEMINI_API_KEY = "k" }
[agents.auggie]
env = { EXTRA = "1" }
args = ["--acp", "--quiet"]
[agents.codex-acp]
command = "/opt/codex-acp"
"""
    table = refreshed_table(tmp_path, config)
    assert table.messages == []
    gemini = table.presets["gemini"]
    assert gemini.model == "gemini-2.5-pro" and gemini.registry is not None
    assert gemini.command[:3] == ("npx", "-y", "@google/gemini-cli@0.27.3")
    assert dict(gemini.env) == {"GEMINI_API_KEY": "k"}
    auggie = table.presets["auggie"]
    assert auggie.command == ("npx", "-y", "@augmentcode/auggie@0.15.0", "--acp", "--quiet")
    assert dict(auggie.env) == {"AUGMENT_DISABLE_AUTO_UPDATE": "1", "EXTRA": "1"}
    codex = table.presets["codex"]  # [agents.codex-acp]: the registry id the built-in names
    assert table.get("codex-acp") is codex
    assert codex.command == ("/opt/codex-acp",) and codex.registry is None
    assert codex.version == "0.9.2"  # still the registry's entry, started the config's way


def _package_agent(agent_id: str, distribution: dict[str, object]) -> dict[str, object]:
    return {"id": agent_id, "name": agent_id.title(), "version": "1.2.3",
            "description": "d", "distribution": distribution}  # fmt: skip


def test_npx_and_uvx_commands_and_the_missing_tool(
    server: RegistryServer, path_dir: Path, tmp_path: Path
) -> None:
    both = {"npx": {"package": "@a/b@1.2.3", "args": ["--acp"]},
            "uvx": {"package": "b-agent==1.2.3", "args": ["acp"], "env": {"B": "1"}}}  # fmt: skip
    server.put_index(
        index_with(
            _package_agent("only-uvx", {"uvx": {"package": "u-agent@1.2.3", "args": ["--acp"]}}),
            _package_agent("both", both),
        )
    )
    table = refreshed_table(tmp_path)
    assert table.presets["only-uvx"].command == ("uvx", "u-agent@1.2.3", "--acp")
    assert table.presets["both"].command == ("npx", "-y", "@a/b@1.2.3", "--acp")  # none there
    with pytest.raises(UsageError) as missing:
        parse_args(["both"], table)
    assert str(missing.value) == (
        "both is started with npx, which is not on PATH: "
        "install Node.js (it comes with npx): https://nodejs.org/"
    )
    with pytest.raises(UsageError, match=r"started with uvx, .* https://docs.astral.sh/uv/"):
        parse_args(["-a", "only-uvx"], table)
    program(path_dir, "uvx")  # the tool that is there is used
    table = refreshed_table(tmp_path)
    both_uvx = table.presets["both"]
    assert both_uvx.command == ("uvx", "b-agent==1.2.3", "acp") and dict(both_uvx.env) == {"B": "1"}
    options = parse_args(["both", "--", "--debug"], table)
    assert options.agent_argv == ["uvx", "b-agent==1.2.3", "acp", "--debug"]


def test_no_build_for_this_platform_is_said(
    server: RegistryServer, path_dir: Path, tmp_path: Path
) -> None:
    agent = _package_agent("mac-only", {"binary": {"darwin-aarch64": {
        "archive": "https://example.invalid/a.zip", "cmd": "./a"}}})  # fmt: skip
    server.put_index(index_with(agent))
    table = refreshed_table(tmp_path)
    with pytest.raises(
        UsageError, match=r"mac-only has no build for .* \(builds: darwin-aarch64\)"
    ):
        parse_args(["mac-only"], table)


def test_list_agents_shows_the_registry(
    server: RegistryServer, path_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = snapshot()
    data["agents"][0] = dict(data["agents"][0], name="Aug\x1b[31mgie", description="x\x1b]0;t\x07")
    server.put_index(data)
    program(path_dir, "npx")
    assert main(["--list-agents"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "\x1b" not in out and "\x07" not in out
    lines = out.splitlines()
    auggie = lines.index(next(line for line in lines if line.startswith("auggie ")))
    assert lines[auggie].split()[:2] == ["auggie", "npx"]
    assert "npx -y @augmentcode/auggie@0.15.0 --acp  (Aug␛[31mgie)" in lines[auggie]
    assert lines[auggie + 1].strip() == "0.15.0 — x␛]0;t␇"
    codex = next(line for line in lines if line.startswith("codex "))
    assert codex.split()[1] == "download"
    assert lines[lines.index(codex) + 2].strip() == "downloaded from the registry on first start"
    assert next(line for line in lines if line.startswith("goose ")).split()[1] == "missing"
    # offline: the cached copy, and a notice on stderr
    server.fail_with = 503
    assert main(["--list-agents"]) == 0
    out_offline, err = capsys.readouterr()
    assert out_offline == out
    assert err.startswith("acp-tui: could not refresh the agent registry (") and "HTTP 503" in err
    assert len(err.splitlines()) == 1


def test_a_preset_and_its_registry_entry_are_one_agent(
    server: RegistryServer, path_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`codex` is the registry's `codex-acp` (and `qwen` `qwen-code`, `vibe` `mistral-vibe`):
    listed once, under the preset's name, and either name starts it."""
    server.put_index(snapshot())
    program(path_dir, "npx")
    assert main(["--list-agents"]) == 0
    names = [line.split()[0] for line in capsys.readouterr().out.splitlines() if line[:1] != " "]
    assert len(names) == len(set(names))
    for preset, registry_id in [("codex", "codex-acp"), ("qwen", "qwen-code"),
                                ("vibe", "mistral-vibe")]:  # fmt: skip
        assert preset in names and registry_id not in names
        table = refreshed_table(tmp_path)
        merged = table.presets[preset]
        assert table.get(registry_id) is merged and merged.registry_id == registry_id
        assert merged.version != ""  # the registry's entry, under the preset's name
        assert parse_args([registry_id], table).preset == merged
        assert parse_args(["-a", registry_id], table).preset == merged


def test_a_typo_gets_the_closest_agent_name(
    server: RegistryServer, path_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.put_index(snapshot())
    assert main(["gemnii"]) == 2
    err = capsys.readouterr().err
    assert "agent command not found: 'gemnii'" in err
    assert "did you mean `acp-tui gemini`?" in err
    assert main(["-a", "qwen-cod"]) == 2
    assert "no agent preset 'qwen-cod'; did you mean 'qwen'?" in capsys.readouterr().err
    assert main(["zzzzqqq"]) == 2
    assert "did you mean" not in capsys.readouterr().err
    assert main(["--", "gemini", "--acp"]) == 2  # the program, not there: the preset's hint
    assert "install it with: npm install -g @google/gemini-cli" in capsys.readouterr().err


def _tiny_agent(server: RegistryServer, version: str = "1.0.0", *, archive: bool = True) -> None:
    script = f'#!/bin/sh\nexec "{sys.executable}" -m acp_tui.demo.agent "$@"\n'.encode()
    if archive:
        server.files[f"tiny-{version}.tar.gz"] = tar_bytes("w:gz", [("tiny/agent", script)])
    agent = binary_agent(
        "tiny", server.url(f"tiny-{version}.tar.gz"), "./tiny/agent", version,
        env={"ACP_TUI_DEMO_SPEED": "0"},
    )  # fmt: skip
    server.put_index(index_with(agent))


def test_acp_tui_id_downloads_a_binary_agent_once(
    server: RegistryServer, capsys: pytest.CaptureFixture[str]
) -> None:
    _tiny_agent(server)
    options = parse_args(["tiny"])  # not known yet: the registry is fetched
    assert options.preset is not None and options.preset.registry is not None
    directory = cache_root() / "agents" / "tiny" / "1.0.0"
    assert options.agent_argv == [str(directory / "tiny" / "agent")]
    assert dict(options.preset.env) == {"ACP_TUI_DEMO_SPEED": "0"}
    assert install_agent(options.preset) is None
    assert (directory / "tiny" / "agent").is_file()
    err = capsys.readouterr().err
    size = len(server.files["tiny-1.0.0.tar.gz"])
    assert err.splitlines() == [
        f"acp-tui: downloading tiny 1.0.0 ({size} bytes)",
        f"acp-tui: downloaded tiny 1.0.0: {size}/{size} bytes",
    ]
    # a new version in the registry: started from a new directory, the old one kept
    _tiny_agent(server, "1.1.0")
    newer = parse_args(["-a", "tiny"])
    assert newer.agent_argv == [str(cache_root() / "agents" / "tiny" / "1.1.0" / "tiny" / "agent")]
    assert install_agent(newer.preset) is None
    assert sorted(p.name for p in (cache_root() / "agents" / "tiny").iterdir()) == [
        "1.0.0", "1.1.0"
    ]  # fmt: skip


def test_check_a_registry_agent(server: RegistryServer, capsys: pytest.CaptureFixture[str]) -> None:
    _tiny_agent(server)
    assert check_main(["-a", "tiny"]) == 0
    out, err = capsys.readouterr()
    assert "downloaded tiny 1.0.0" in err
    assert "protocol" in out.lower()


def test_check_exits_2_when_the_download_fails(
    server: RegistryServer, capsys: pytest.CaptureFixture[str]
) -> None:
    _tiny_agent(server, archive=False)  # the index names an archive the server does not have
    assert check_main(["-a", "tiny"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"acp-tui check: cannot install tiny 1.0.0: could not download "
        f"{server.url('tiny-1.0.0.tar.gz')}: HTTP 404 Not Found"
    ]
    assert list((cache_root() / "agents" / "tiny").iterdir()) == []  # nothing half-installed
    # the same for a refused archive
    server.files["tiny-1.0.0.tar.gz"] = tar_bytes("w:gz", [("../evil", b"x")])
    assert check_main(["-a", "tiny"]) == 2
    assert "refused the archive" in capsys.readouterr().err
    assert list((cache_root() / "agents" / "tiny").iterdir()) == []
    assert main(["tiny"]) == 2  # the app is not started either
    assert "cannot install tiny 1.0.0: refused the archive" in capsys.readouterr().err


def test_offline_a_registry_agent_starts_from_the_cached_index(server: RegistryServer) -> None:
    _tiny_agent(server)
    assert install_agent(parse_args(["tiny"]).preset) is None
    server.fail_with = 503
    options = parse_args(["tiny"])
    assert options.preset is not None and options.preset.version == "1.0.0"
    assert options.agent_argv == [
        str(cache_root() / "agents" / "tiny" / "1.0.0" / "tiny" / "agent")
    ]
    # the notice goes to the app (a toast at start-up), it does not stop anything
    notices = [m for m in options.messages if m.startswith("could not refresh the agent registry")]
    assert len(notices) == 1 and "HTTP 503" in notices[0] and "using the copy from" in notices[0]


@pytest.mark.parametrize("cmd", ["/bin/sh", "../../../../../../../../bin/sh", "a/../../sh"])
def test_a_command_leading_out_of_its_directory_never_runs_nor_counts_as_installed(
    server: RegistryServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    cmd: str,
) -> None:
    """Issue 40, item 7: the registry's args ran through `/bin/sh` with no download and no
    sha256 check, and the agent was listed as "installed"."""
    marker = tmp_path / "marker"
    server.files["evil.tar.gz"] = tar_bytes("w:gz", [("agent", b"#!/bin/sh\n")])
    agent = binary_agent("evil", server.url("evil.tar.gz"), cmd, sha256="0" * 64,
                         args=["-c", f"touch {marker}"])  # fmt: skip
    server.put_index(index_with(agent))
    table = refreshed_table(tmp_path)
    preset = table.presets["evil"]
    assert status(preset) == "refused" and not startable(preset)
    assert str(marker) not in " ".join(preset.command), "the registry's args are not kept"
    with pytest.raises(UsageError, match=r"leads out of its directory; the registry's command"):
        parse_args(["evil"], table)
    with pytest.raises(InstallError, match="leads out of its directory"):
        ensure_installed(preset)
    assert main(["evil"]) == 2
    assert "leads out of its directory" in capsys.readouterr().err
    assert main(["--list-agents"]) == 0
    [line] = [line for line in capsys.readouterr().out.splitlines() if line.startswith("evil ")]
    assert line.split()[1] == "refused"
    assert not marker.exists(), "nothing ran"
    assert server.requests_for("evil.tar.gz") == [], "nothing was downloaded either"

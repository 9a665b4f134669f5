"""The registry's index: fetched, cached with its validators (304 keeps the copy), used from the
cache when the registry cannot be reached, a failed refresh a notice; entries made safe."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_tui.registry.cache import IndexCache, cache_root, registry_url
from acp_tui.registry.catalog import Catalog
from acp_tui.registry.fetch import refresh
from acp_tui.registry.index import MAX_PROBLEMS, parse_index
from tests.registry_server import LAST_MODIFIED, index_with, serve, snapshot


def test_fetch_caches_and_revalidates_with_the_etag(tmp_path: Path) -> None:
    with serve() as server:
        url = server.put_index(snapshot())
        cache = IndexCache(url, tmp_path)
        first = refresh(cache)
        assert first.fetched and first.notice is None and first.index is not None
        assert [a.id for a in first.index.agents][:3] == ["auggie", "claude-code-acp", "codex-acp"]
        assert len(first.index.agents) == 11
        second = refresh(cache)
        assert not second.fetched and second.notice is None
        assert second.index == first.index  # from the cache, after the 304
        sent = server.requests_for("registry.json")
        assert "if-none-match" not in sent[0].headers
        assert sent[1].headers["if-none-match"].startswith('"')
        assert sent[1].headers["if-modified-since"] == LAST_MODIFIED
        # the registry changed: the new index replaces the cached one
        server.put_index(index_with(snapshot()["agents"][0]))
        third = refresh(cache)
        assert third.fetched and third.index is not None and len(third.index.agents) == 1
        assert cache.cached() == third.index


def test_offline_the_cached_copy_is_used_with_a_notice(tmp_path: Path) -> None:
    with serve() as server:
        url = server.put_index(snapshot())
        assert refresh(IndexCache(url, tmp_path)).fetched
    # the server is gone: nothing listens on that port any more
    offline = refresh(IndexCache(url, tmp_path), timeout=5)
    assert offline.index is not None and len(offline.index.agents) == 11
    assert offline.notice is not None
    assert offline.notice.startswith(f"could not refresh the agent registry ({url}): ")
    assert "using the copy from " in offline.notice


def test_a_failed_refresh_without_a_cache_is_a_notice(tmp_path: Path) -> None:
    with serve() as server:
        server.fail_with = 500
        result = refresh(IndexCache(server.url("registry.json"), tmp_path))
    assert result.index is None
    assert result.notice is not None and "HTTP 500" in result.notice
    assert "no copy is cached" in result.notice


def test_a_body_that_is_not_an_index_is_not_cached(tmp_path: Path) -> None:
    with serve() as server:
        url = server.put_index(snapshot())
        cache = IndexCache(url, tmp_path)
        refresh(cache)
        server.files["registry.json"] = b"<html>captive portal</html>"
        result = refresh(cache)
        assert result.notice is not None and "not a registry index" in result.notice
        assert result.index is not None and len(result.index.agents) == 11
        assert cache.cached() == result.index


def test_registry_text_is_made_safe_and_bad_entries_skipped() -> None:
    data = snapshot()
    hostile = dict(data["agents"][0], id="evil", name="Evil\x1b]0;pwned\x07",
                   description="line\x1b[2J\nnext \u202eosrever")  # fmt: skip
    bad_id = dict(data["agents"][0], id="../../etc")
    bad_version = dict(data["agents"][0], id="v", version="../1")
    option = dict(data["agents"][0], id="opt", distribution={"npx": {"package": "--registry=x"}})
    index = parse_index(index_with(hostile, bad_id, bad_version, option))
    assert [a.id for a in index.agents] == ["evil"]
    evil = index.agents[0]
    assert evil.name == "Evil␛]0;pwned␇"
    assert evil.description == "line␛[2J␊next \ufffdosrever"
    assert len(index.problems) == 3
    assert "registry agent ../../etc: `id` must be" in index.problems[0]
    assert "is not a package name" in index.problems[2]


def test_the_url_setting_and_the_cache_dir(tmp_path: Path) -> None:
    assert (
        registry_url({}) == "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json"
    )
    assert registry_url({}, "http://x/r.json") == "http://x/r.json"
    assert (
        registry_url({"ACP_TUI_REGISTRY_URL": "http://y/r.json"}, "http://x") == "http://y/r.json"
    )
    assert registry_url({"ACP_TUI_REGISTRY_URL": ""}) == ""
    env = {"XDG_CACHE_HOME": str(tmp_path), "HOME": "/nowhere"}
    assert cache_root(env) == tmp_path / "acp-tui" / "registry"
    config = tmp_path / "config.toml"
    config.write_text('registry_url = "http://127.0.0.1:9/from-file.json"\n')
    catalog = Catalog.open({"ACP_TUI_CONFIG": str(config), "XDG_CACHE_HOME": str(tmp_path)})
    assert catalog.url == "http://127.0.0.1:9/from-file.json" and catalog.enabled
    off = Catalog.open({"ACP_TUI_REGISTRY_URL": "", "XDG_CACHE_HOME": str(tmp_path)})
    assert not off.enabled and off.table().get("auggie") is None


def test_the_setting_is_known_to_the_settings_file(tmp_path: Path) -> None:
    from acp_tui.config import load_settings

    config = tmp_path / "config.toml"
    config.write_text('registry_url = "http://127.0.0.1:9/r.json"\n')
    loaded = load_settings(config, environ={})
    assert loaded.messages == [] and loaded.settings.registry_url == "http://127.0.0.1:9/r.json"


@pytest.mark.parametrize("scheme", ["ftp", "javascript"])
def test_a_url_that_is_not_http_is_a_notice(tmp_path: Path, scheme: str) -> None:
    catalog = Catalog(f"{scheme}://x/r.json", tmp_path)
    assert not catalog.enabled and "is not an http(s) URL" in catalog.notices[0]


def test_the_cache_is_per_url(tmp_path: Path) -> None:
    with serve() as server:
        one = server.put_index(snapshot(), "one.json")
        two = server.put_index(index_with(), "two.json")
        refresh(IndexCache(one, tmp_path))
        refresh(IndexCache(two, tmp_path))
        cached = IndexCache(one, tmp_path).cached()
    assert cached is not None and len(cached.agents) == 11
    meta = json.loads((IndexCache(one, tmp_path).dir / "meta.json").read_text())
    assert meta["url"] == one and meta["etag"]


def test_a_deeply_nested_index_is_one_clear_line(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Issue 40: json's RecursionError escaped the refresh thread (a 16-line traceback), then the
    registry "did not answer"."""
    depth = 100_000
    nested = b'{"version": "1.0.0", "agents": [' + b"[" * depth + b"]" * depth + b"]}"
    with serve() as server:
        server.files["registry.json"] = nested
        catalog = Catalog(server.url("registry.json"), tmp_path)
        assert catalog.refresh() is None
    assert catalog.notices == [
        f"could not refresh the agent registry ({server.url('registry.json')}): not a registry "
        "index (nested too deeply); no copy is cached, so only the presets are listed"
    ]
    assert capfd.readouterr().err == ""
    cache = IndexCache(server.url("registry.json"), tmp_path)
    cache.dir.mkdir(parents=True)
    cache.body.write_bytes(nested)  # (a cached copy as deep: not used, no error)
    assert cache.cached() is None


def _many(count: int) -> list[dict[str, object]]:
    return [
        {"id": f"agent-{i}", "name": f"Agent {i}", "version": "1.0.0", "description": "d",
         "distribution": {"npx": {"package": f"pkg-{i}@1.0.0"}}}
        for i in range(count)
    ]  # fmt: skip


def test_many_bad_entries_are_counted_not_each_said() -> None:
    """Issue 40: 60,000 bad entries were 60,000 lines (start-up took 11 s instead of 4.2 s)."""
    bad = [{"id": f"BAD_{i}", "version": "x"} for i in range(60_000)]
    index = parse_index(index_with(*_many(2), *bad))
    assert [a.id for a in index.agents] == ["agent-0", "agent-1"]
    assert len(index.problems) == MAX_PROBLEMS + 1
    assert index.problems[0].startswith("registry agent BAD_0: `id` must be")
    assert (
        index.problems[-1] == f"registry: {60_000 - MAX_PROBLEMS} more entries skipped or left out"
    )


def test_the_cached_index_and_its_presets_are_made_once_per_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 40: each ctrl+t parsed the cached index and made every preset again (20,000
    agents: 12.7 s a time)."""
    import acp_tui.registry.agents as agents_module

    made: list[int] = []
    real = agents_module.registry_bases

    def counted(*args: Any, **kwargs: Any) -> Any:
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(agents_module, "registry_bases", counted)
    url = "https://registry.invalid/registry.json"
    cache = IndexCache(url, tmp_path)
    cache.dir.mkdir(parents=True)
    cache.body.write_text(json.dumps(index_with(*_many(300))))
    catalog = Catalog(url, tmp_path, config_path=tmp_path / "none.toml")
    first = catalog.table()
    assert catalog.cache is not None and catalog.cache.cached() is catalog.index()
    assert catalog.table().presets == first.presets and len(made) == 1
    cache.body.write_text(json.dumps(index_with(*_many(3))))  # the copy changed: read again
    assert len([p for p in catalog.table().presets.values() if p.registry]) == 3
    assert len(made) == 2

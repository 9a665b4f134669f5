"""The agents acp-tui knows: the built-in presets, the registry's agents and the config's
`[agents.*]` tables, as one `PresetTable`; plus the lines `--list-agents` prints.

The registry's index comes from the cache at once (`table()`), or refreshed first
(`table(refresh=True)`, once per `Catalog`: later calls reuse it). A refresh that failed is a
notice in `notices`; it never stops anything. What only a registry agent, a refresh or a
download needs (`index`, `agents`, `fetch`, `install`) is imported when that happens:
`acp-tui -- AGENT_CMD` opens a catalog too.
"""

from __future__ import annotations

import tomllib
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from acp_tui.host.settings_file import read_settings_file
from acp_tui.presets import Preset, PresetTable, config_file, load_presets
from acp_tui.registry.cache import TIMEOUT, IndexCache, cache_root, registry_url
from acp_tui.safe_text import safe_line

if TYPE_CHECKING:
    from acp_tui.registry.index import RegistryIndex

SCHEMES = ("http", "https", "file")


class Catalog:
    def __init__(
        self,
        url: str,
        root: Path,
        *,
        config_path: Path | None = None,
        environ: Mapping[str, str] | None = None,
        platform: str | None = None,
    ) -> None:
        self.url = url
        self.root = root
        self.config_path = config_path
        self.environ = environ
        self._platform = platform
        self.notices: list[str] = []
        self.cache: IndexCache | None = None
        if url and urllib.parse.urlsplit(url).scheme.lower() in SCHEMES:
            self.cache = IndexCache(url, root)
        elif url:
            self.notices.append(
                f"registry_url {safe_line(url)!r} is not an http(s) URL; the registry is not used"
            )
        self._refreshed: RegistryIndex | None = None
        self._did_refresh = False
        self._bases: tuple[RegistryIndex, dict[str, Preset]] | None = None
        """The presets of the last index read (made again only for another index)."""

    @classmethod
    def open(cls, environ: Mapping[str, str] | None = None) -> Catalog:
        """The catalog of the user's settings (`registry_url`, XDG cache dir)."""
        path = config_file(environ)
        return cls(
            registry_url(environ, _file_setting(path, "registry_url")),
            cache_root(environ),
            config_path=path,
            environ=environ,
        )

    @property
    def platform(self) -> str:
        if self._platform is None:
            from acp_tui.registry.index import current_platform

            self._platform = current_platform()
        return self._platform

    @property
    def enabled(self) -> bool:
        return self.cache is not None

    def refresh(self, timeout: float = TIMEOUT) -> RegistryIndex | None:
        """The index revalidated (in a thread, waited for at most `timeout` plus a second), or
        the cached one when that failed (with a notice). Once per catalog."""
        if self.cache is None:
            return None
        if not self._did_refresh:
            self._did_refresh = True
            from acp_tui.registry.fetch import BackgroundRefresh

            result = BackgroundRefresh(self.cache, timeout).wait(timeout + 1.0)
            if result is None:
                self._refreshed = self.cache.cached()
                self.notices.append(f"the agent registry ({safe_line(self.url)}) did not answer")
            else:
                self._refreshed = result.index
                if result.notice:
                    self.notices.append(result.notice)
        return self._refreshed

    def index(self) -> RegistryIndex | None:
        """The refreshed index if there was a refresh, else the cached one (no network)."""
        if self._did_refresh or self.cache is None:
            return self._refreshed
        return self.cache.cached()

    def table(self, *, refresh: bool = False) -> PresetTable:
        index = self.refresh() if refresh else self.index()
        bases: dict[str, Preset] = {}
        if index is not None and self._bases is not None and self._bases[0] is index:
            bases = self._bases[1]
        elif index is not None:
            from acp_tui.registry.agents import registry_bases

            bases = registry_bases(index, self.root, self.platform)
            self._bases = (index, bases)
        table = load_presets(self.config_path, environ=self.environ, bases=bases)
        if index is not None:
            table.messages.extend(index.problems)
        return table


def _file_setting(path: Path, key: str) -> object:
    try:
        return tomllib.loads(read_settings_file(path)).get(key)
    except (OSError, ValueError, RecursionError):  # the settings loader reports what is wrong
        return None


def describe(preset: Preset) -> str:
    """`--list-agents` lines for one agent: name, state, command (title); the registry's version
    and description; how to install what is missing."""
    from acp_tui.registry.agents import not_startable, status

    mark = status(preset)
    line = f"{preset.name:<18} {mark:<9} {' '.join(preset.command)}"
    if preset.title:
        line += f"  ({preset.title})"
    if preset.registry_id is not None:
        line += f"  also: {preset.registry_id}"
    indent = " " * 29
    if preset.version or preset.description:
        about = " — ".join(part for part in (preset.version, preset.description) if part)
        line += f"\n{indent}{about}"
    if mark in ("missing", "refused"):
        why = not_startable(preset)
        if why is not None:
            line += f"\n{indent}{why}"
        elif preset.install:
            line += f"\n{indent}install: {preset.install}"
    elif mark == "download":
        line += f"\n{indent}downloaded from the registry on first start"
    return "\n".join(safe_line(part) for part in line.split("\n"))


def list_agents(table: PresetTable) -> str:
    return "\n".join([*(describe(p) for p in table.presets.values()), *table.messages])

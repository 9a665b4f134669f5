"""The registry's index as kept on disk: where (`registry_url`, `cache_root`) and the copy of
one URL (`IndexCache`), read without the network.

The index is kept under `<cache>/index/<hash of the URL>/`: the body as fetched and `meta.json`
(`etag`, `last_modified`, when it was fetched). Refreshing it over HTTP is `fetch`'s, imported
only when a refresh runs: reading the cached copy (`acp-tui -- AGENT_CMD` does, for the presets)
loads no network machinery. Stdlib only.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_tui.host.local_files import open_regular, read_regular_text
from acp_tui.registry import DEFAULT_URL

if TYPE_CHECKING:
    from acp_tui.registry.index import RegistryIndex

URL_ENV = "ACP_TUI_REGISTRY_URL"
TIMEOUT = 10.0


def cache_root(environ: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CACHE_HOME/acp-tui/registry` (else `~/.cache/acp-tui/registry`)."""
    env = os.environ if environ is None else environ
    xdg = env.get("XDG_CACHE_HOME", "")
    home = Path(env.get("HOME") or Path.home())
    base = Path(xdg) if xdg and os.path.isabs(xdg) else home / ".cache"
    return base / "acp-tui" / "registry"


def registry_url(environ: Mapping[str, str] | None = None, file_value: Any = None) -> str:
    """The index URL: `$ACP_TUI_REGISTRY_URL` (empty: no registry), else the config file's
    `registry_url`, else the official one."""
    env = os.environ if environ is None else environ
    if URL_ENV in env:
        return env[URL_ENV].strip()
    if isinstance(file_value, str):
        return file_value.strip()
    return DEFAULT_URL


class IndexCache:
    """The index of one URL as cached (`fetch.refresh` revalidates it)."""

    def __init__(self, url: str, root: Path) -> None:
        self.url = url
        self.dir = root / "index" / hashlib.sha256(url.encode()).hexdigest()[:16]
        self.body = self.dir / "registry.json"
        self.meta_path = self.dir / "meta.json"
        self._parsed: tuple[tuple[int, int, int], RegistryIndex | None] | None = None

    def cached(self) -> RegistryIndex | None:
        """The cached index (no network), or None when there is none (or it is unreadable).
        Parsed once per version of the file: read again only when the file changed."""
        try:
            with open_regular(self.body.absolute()) as file:
                info = os.fstat(file.fileno())
                identity = (info.st_ino, info.st_size, info.st_mtime_ns)
                if self._parsed is not None and self._parsed[0] == identity:
                    return self._parsed[1]
                data = json.loads(file.read())
        except (OSError, ValueError, RecursionError):
            return None
        from acp_tui.registry.index import parse_index  # (not at import: most starts have none)

        try:
            index: RegistryIndex | None = parse_index(data)
        except (ValueError, RecursionError):
            index = None
        self._parsed = (identity, index)
        return index

    def meta(self) -> dict[str, Any]:
        try:
            meta = json.loads(
                read_regular_text(self.meta_path.absolute(), max_bytes=1 << 20, follow=True) or ""
            )
        except (OSError, ValueError):
            return {}
        return meta if isinstance(meta, dict) else {}

"""The registry's index over HTTP, cached with its validators.

The index is kept under `<cache>/index/<hash of the URL>/`: the body as fetched and `meta.json`
(`etag`, `last_modified`, when it was fetched). A refresh sends `If-None-Match` /
`If-Modified-Since`; a 304 keeps the cached copy. A body that is not an index is never cached.
When the registry cannot be reached, the cached copy is used and the failure is a notice (the
caller shows it: a toast in the app, a line on stderr). Stdlib only (urllib, imported when a
refresh runs; in a thread when the caller wants it in the background).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_tui import __version__
from acp_tui.host.atomic_write import atomic_write_bytes
from acp_tui.registry import DEFAULT_URL
from acp_tui.registry.index import NotAnIndex, RegistryIndex, parse_index
from acp_tui.safe_text import safe_line

URL_ENV = "ACP_TUI_REGISTRY_URL"
MAX_INDEX_BYTES = 8 * 1024 * 1024
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


def user_agent() -> str:
    return f"acp-tui/{__version__}"


@dataclass(frozen=True)
class Refreshed:
    """What a refresh gave: the index to use (fresh, or the cached copy) and a notice if the
    refresh failed."""

    index: RegistryIndex | None
    notice: str | None = None
    fetched: bool = False
    """A new body came (200), as opposed to a 304 or the cache after a failure."""


class IndexCache:
    """The index of one URL: the cached copy and refreshing it."""

    def __init__(self, url: str, root: Path) -> None:
        self.url = url
        self.dir = root / "index" / hashlib.sha256(url.encode()).hexdigest()[:16]
        self._body = self.dir / "registry.json"
        self._meta = self.dir / "meta.json"

    def cached(self) -> RegistryIndex | None:
        """The cached index (no network), or None when there is none (or it is unreadable)."""
        try:
            return parse_index(json.loads(self._body.read_bytes()))
        except (OSError, ValueError):
            return None

    def meta(self) -> dict[str, Any]:
        try:
            meta = json.loads(self._meta.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return meta if isinstance(meta, dict) else {}

    def refresh(self, timeout: float = TIMEOUT) -> Refreshed:
        """Revalidate (or fetch) the index; never raises for network or server trouble."""
        import urllib.error  # (not at import: the cached index needs no HTTP)
        import urllib.request

        cached = self.cached()
        meta = self.meta() if cached is not None else {}
        request = urllib.request.Request(self.url, headers={"User-Agent": user_agent()})
        if isinstance(meta.get("etag"), str):
            request.add_header("If-None-Match", meta["etag"])
        if isinstance(meta.get("last_modified"), str):
            request.add_header("If-Modified-Since", meta["last_modified"])
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                body = response.read(MAX_INDEX_BYTES + 1)
                headers = response.headers
        except urllib.error.HTTPError as error:
            if error.code == 304 and cached is not None:
                return Refreshed(cached)
            return self._failed(cached, f"HTTP {error.code} {safe_line(str(error.reason))}")
        except (urllib.error.URLError, OSError, ValueError) as error:
            reason = getattr(error, "reason", None) or error
            return self._failed(cached, safe_line(str(reason)))
        if len(body) > MAX_INDEX_BYTES:
            return self._failed(cached, f"the index is larger than {MAX_INDEX_BYTES} bytes")
        try:
            index = parse_index(json.loads(body))
        except (ValueError, NotAnIndex) as error:
            return self._failed(cached, f"not a registry index ({safe_line(str(error))[:120]})")
        self._store(body, headers.get("ETag"), headers.get("Last-Modified"))
        return Refreshed(index, fetched=True)

    def _failed(self, cached: RegistryIndex | None, reason: str) -> Refreshed:
        when = self.meta().get("fetched_at")
        if cached is None:
            fallback = "no copy is cached, so only the presets are listed"
        elif isinstance(when, int | float):
            fallback = (
                f"using the copy from {time.strftime('%Y-%m-%d %H:%M', time.localtime(when))}"
            )
        else:
            fallback = "using the cached copy"
        notice = (
            f"could not refresh the agent registry ({safe_line(self.url)}): {reason}; {fallback}"
        )
        return Refreshed(cached, notice)

    def _store(self, body: bytes, etag: str | None, last_modified: str | None) -> None:
        meta = {"url": self.url, "etag": etag, "last_modified": last_modified,
                "fetched_at": time.time()}  # fmt: skip
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(self._body, body)
            atomic_write_bytes(self._meta, json.dumps(meta).encode())
        except OSError:
            pass  # a cache that cannot be written is only slower next time


class BackgroundRefresh:
    """`IndexCache.refresh` in a daemon thread; `wait` for its result (bounded)."""

    def __init__(self, cache: IndexCache, timeout: float = TIMEOUT) -> None:
        self._result: Refreshed | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(cache, timeout), name="acp-tui-registry", daemon=True
        )
        self._thread.start()

    def _run(self, cache: IndexCache, timeout: float) -> None:
        try:
            self._result = cache.refresh(timeout)
        finally:
            self._done.set()

    def wait(self, timeout: float | None = None) -> Refreshed | None:
        """The result, or None when it is not there within `timeout` seconds."""
        self._done.wait(timeout)
        return self._result

"""The registry's index over HTTP: a refresh of the copy `cache.IndexCache` keeps.

A refresh sends `If-None-Match` / `If-Modified-Since`; a 304 keeps the cached copy. A body that
is not an index is never cached. When the registry cannot be reached, the cached copy is used
and the failure is a notice (the caller shows it: a toast in the app, a line on stderr).
Imported only when a refresh (or a download, `install`) runs; stdlib only (urllib, in a thread
when the caller wants it in the background).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass

from acp_tui import __version__
from acp_tui.host.atomic_write import atomic_write_bytes
from acp_tui.registry.cache import TIMEOUT, IndexCache
from acp_tui.registry.index import NotAnIndex, RegistryIndex, parse_index
from acp_tui.safe_text import safe_line

MAX_INDEX_BYTES = 8 * 1024 * 1024


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


def refresh(cache: IndexCache, timeout: float = TIMEOUT) -> Refreshed:
    """Revalidate (or fetch) the index of `cache`; never raises for network or server trouble."""
    import urllib.error  # (not at import: the cached index needs no HTTP)
    import urllib.request

    cached = cache.cached()
    meta = cache.meta() if cached is not None else {}
    request = urllib.request.Request(cache.url, headers={"User-Agent": user_agent()})
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
        return _failed(cache, cached, f"HTTP {error.code} {safe_line(str(error.reason))}")
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", None) or error
        return _failed(cache, cached, safe_line(str(reason)))
    if len(body) > MAX_INDEX_BYTES:
        return _failed(cache, cached, f"the index is larger than {MAX_INDEX_BYTES} bytes")
    try:
        index = parse_index(json.loads(body))
    except (ValueError, NotAnIndex) as error:
        return _failed(cache, cached, f"not a registry index ({safe_line(str(error))[:120]})")
    except RecursionError:  # (json's own nesting limit: one line, not a traceback)
        return _failed(cache, cached, "not a registry index (nested too deeply)")
    _store(cache, body, headers.get("ETag"), headers.get("Last-Modified"))
    return Refreshed(index, fetched=True)


def _failed(cache: IndexCache, cached: RegistryIndex | None, reason: str) -> Refreshed:
    when = cache.meta().get("fetched_at")
    if cached is None:
        fallback = "no copy is cached, so only the presets are listed"
    elif isinstance(when, int | float):
        fallback = f"using the copy from {time.strftime('%Y-%m-%d %H:%M', time.localtime(when))}"
    else:
        fallback = "using the cached copy"
    notice = f"could not refresh the agent registry ({safe_line(cache.url)}): {reason}; {fallback}"
    return Refreshed(cached, notice)


def _store(cache: IndexCache, body: bytes, etag: str | None, last_modified: str | None) -> None:
    meta = {"url": cache.url, "etag": etag, "last_modified": last_modified,
            "fetched_at": time.time()}  # fmt: skip
    try:
        atomic_write_bytes(cache.body, body)  # (its directories made through the walk)
        atomic_write_bytes(cache.meta_path, json.dumps(meta).encode())
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
            self._result = refresh(cache, timeout)
        except Exception as error:  # (one line for the user; a thread's traceback says nothing)
            reason = f"{type(error).__name__}: {safe_line(str(error))[:120]}"
            self._result = _failed(cache, None, f"it could not be read ({reason})")
        finally:
            self._done.set()

    def wait(self, timeout: float | None = None) -> Refreshed | None:
        """The result, or None when it is not there within `timeout` seconds."""
        self._done.wait(timeout)
        return self._result

"""The ACP registry's agents for the ctrl+t picker, and the download of one not installed yet.

`RegistryAgents.load` gives the registry's agents (as presets) to a callback on the app's loop:
those of the cached index first, then those of the index refreshed once per app. `install`
downloads a registry binary (`acp_tui.registry.agents.ensure_installed`: nothing half-installed
on failure) with its progress. Both run in daemon threads (the network never holds the app, nor
its exit); their callbacks run on the loop, and only while the caller still wants them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp_tui.presets import Preset, PresetTable
    from acp_tui.registry.catalog import Catalog
    from acp_tui.registry.install import DownloadControl

log = logging.getLogger(__name__)

Agents = Callable[[tuple["Preset", ...], list[str]], None]
"""The registry's agents (as presets) and the notices of reading it (a failed refresh)."""

PROGRESS_EVERY = 0.1  # seconds between two progress lines


def registry_presets(table: PresetTable) -> tuple[Preset, ...]:
    """The agents of `table` that come from the registry (their command is the registry's)."""
    return tuple(p for p in table.presets.values() if p.registry is not None)


class RegistryAgents:
    """The registry of the user's settings, read for the ctrl+t picker."""

    def __init__(self, catalog: Catalog | Callable[[], Catalog]) -> None:
        self._catalog = catalog
        """The catalog, or what opens it (at the first use: not on the way to the first screen)."""
        self._lock = threading.Lock()  # one reading of the catalog at a time
        self._said = 0  # the catalog's notices already given (each is said once per app)
        self.downloads: set[DownloadControl] = set()
        """The downloads running (`install`), abandoned when the app quits."""

    @property
    def catalog(self) -> Catalog:
        """The registry's catalog (opened at the first use)."""
        if callable(self._catalog):
            self._catalog = self._catalog()
        return self._catalog

    def abandon_downloads(self) -> None:
        """Stop every download still running and remove what each left (the app quits)."""
        for control in list(self.downloads):
            control.abandon()
        self.downloads.clear()

    def load(self, loop: asyncio.AbstractEventLoop, agents: Agents) -> None:
        """Call `agents` on `loop` with the cached index's agents, then the refreshed index's."""
        if not self.catalog.enabled:
            return
        threading.Thread(
            target=self._load, args=(loop, agents), name="acp-tui-registry-agents", daemon=True
        ).start()

    def _load(self, loop: asyncio.AbstractEventLoop, agents: Agents) -> None:
        try:
            with self._lock:
                cached = registry_presets(self.catalog.table())
                _call_soon(loop, lambda: agents(cached, []))
                refreshed = registry_presets(self.catalog.table(refresh=True))
                notices = self.catalog.notices[self._said :]
                self._said = len(self.catalog.notices)
        except Exception as error:  # a bug, not the network (the catalog says those): said
            log.exception("reading the agent registry")
            failed = [f"could not read the agent registry: {error}"]
            _call_soon(loop, lambda: agents((), failed))
            return
        _call_soon(loop, lambda: agents(refreshed, notices))


def install(
    loop: asyncio.AbstractEventLoop,
    preset: Preset,
    progress: Callable[[str], None],
    done: Callable[[str | None], None],
    registry: RegistryAgents | None = None,
) -> None:
    """Download the registry binary `preset` (a daemon thread): `progress` gets a line at most
    ten times a second, then `done` gets None, or the one-line error (nothing was installed).
    The download is one of `registry`'s while it runs (abandoned if the app quits)."""
    from acp_tui.registry.agents import ensure_installed  # (at a download, not at the launch)
    from acp_tui.registry.install import DownloadControl
    from acp_tui.registry.installed import InstallError
    from acp_tui.registry.progress import amount

    control = DownloadControl()
    if registry is not None:
        registry.downloads.add(control)

    launch = preset.registry
    what = f"{preset.name} {launch.version}" if launch is not None else preset.name
    shown = [0.0]

    def report(received: int, total: int | None) -> None:
        now = time.monotonic()
        if now - shown[0] >= PROGRESS_EVERY or received == total:
            shown[0] = now
            line = f"Downloading {what}: {amount(received, total)}"
            _call_soon(loop, lambda: progress(line))

    def run() -> None:
        try:
            ensure_installed(preset, report, control)
        except (InstallError, OSError) as error:
            reason = error.strerror if isinstance(error, OSError) and error.strerror else error
            failed = f"Could not install {what}: {reason}"
            _call_soon(loop, lambda: done(failed))
            return
        except Exception as error:  # a bug: logged and said, the picker stays usable
            log.exception("installing %s", what)
            failed = f"Could not install {what}: {error}"
            _call_soon(loop, lambda: done(failed))
            return
        finally:
            if registry is not None:
                _call_soon(loop, lambda: registry.downloads.discard(control))
        _call_soon(loop, lambda: done(None))

    progress(f"Downloading {what}…")
    threading.Thread(target=run, name="acp-tui-install", daemon=True).start()


def _call_soon(loop: asyncio.AbstractEventLoop, callback: Callable[[], None]) -> None:
    """Run `callback` on the app's loop (nothing when the loop has closed meanwhile)."""
    with contextlib.suppress(RuntimeError):  # the loop is closed
        loop.call_soon_threadsafe(callback)

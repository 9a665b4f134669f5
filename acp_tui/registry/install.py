"""A binary agent from the registry, downloaded once into `<cache>/agents/<id>/<version>/`.

The archive is downloaded into a temporary directory beside the target (sha256 checked when the
registry gives one), unpacked there (`extract`: nothing outside, no devices), its command
checked, and only then renamed into place: a failure at any step leaves nothing half-installed.
A new version goes to a new directory; an installed one is never touched again.

A download is bounded in time (`Limits`): besides the socket's timeout for a silent server, one
that sends too little in a window (`STALL_SECONDS`: a byte every two seconds is not a download)
or takes longer than `MAX_SECONDS` in all is given up. A `DownloadControl` lets the caller stop
one (`abandon`: the app quits) and removes its temporary directory; the temporary directories
carry the process id, so one left by a process that is gone (kill -9) is removed by the next.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from acp_tui.host import new_files
from acp_tui.registry.extract import UnsafeArchive, archive_kind, extract
from acp_tui.registry.fetch import user_agent
from acp_tui.registry.index import BinaryTarget
from acp_tui.registry.installed import InstallError, command_path, install_dir
from acp_tui.safe_text import safe_line

MAX_DOWNLOAD_BYTES = 2 * 1024 * 1024 * 1024
CHUNK = 64 * 1024
STALE_SECONDS = 24 * 3600
STALL_SECONDS = 30.0
STALL_BYTES = 16 * 1024
"""A download that receives less than this in any `STALL_SECONDS` is given up."""
MAX_SECONDS = 3600.0
"""No download takes longer than this, however fast it still goes."""

Progress = Callable[[int, int | None], None]
"""(bytes so far, total bytes or None when the server did not say)."""


@dataclass(frozen=True)
class Limits:
    """How long a download may take: at least `stall_bytes` in every `stall_seconds`, at most
    `max_seconds` in all (the module's constants unless a test says otherwise)."""

    stall_seconds: float = STALL_SECONDS
    stall_bytes: int = STALL_BYTES
    max_seconds: float = MAX_SECONDS


class DownloadControl:
    """One install the caller may abandon (from another thread): `abandon` stops its download at
    the next bytes and removes its temporary directory at once."""

    def __init__(self) -> None:
        self.cancelled = threading.Event()
        self._lock = threading.Lock()
        self._work: Path | None = None

    def started(self, work: Path) -> None:
        with self._lock:
            self._work = work
            if self.cancelled.is_set():
                raise InstallError("the download was abandoned")

    def finished(self) -> None:
        with self._lock:
            self._work = None

    def abandon(self) -> None:
        """Stop the download and remove what it left (the app is quitting)."""
        with self._lock:
            self.cancelled.set()
            work, self._work = self._work, None
        if work is not None:
            new_files.remove_tree(work)

    def check(self) -> None:
        if self.cancelled.is_set():
            raise InstallError("the download was abandoned")


def install_binary(
    root: Path,
    agent_id: str,
    version: str,
    target: BinaryTarget,
    progress: Progress | None = None,
    timeout: float = 60.0,
    *,
    control: DownloadControl | None = None,
    limits: Limits | None = None,
) -> Path:
    """The agent's install directory, downloading and unpacking it first when it is not there."""
    # the cache directory as the user set it up (a symlinked ~/.cache is theirs); below it, in
    # what acp-tui makes, nothing is followed (`new_files`)
    final = install_dir(Path(os.path.realpath(root)), agent_id, version)
    command_path(final, target.cmd)  # a command leading out is refused before any download
    if final.is_dir():
        return final
    control = control if control is not None else DownloadControl()
    new_files.make_directory(final.parent)
    _remove_stale(final.parent)
    prefix = f".{version}.partial-{os.getpid()}-"
    work = new_files.private_directory(prefix, final.parent)
    try:
        control.started(work)
        download = work / "download"
        _download(target, download, progress, timeout, control, limits or Limits())
        tree = work / "tree"
        new_files.make_directory(tree)
        kind = archive_kind(urllib.parse.urlsplit(target.archive).path)
        try:
            extract(download, kind, tree, target.cmd)
        except UnsafeArchive as error:
            raise InstallError(f"refused the archive: {safe_line(str(error))}") from None
        except Exception as error:  # a corrupt archive: zlib/bz2/EOF/CRC/OS errors alike
            reason = f"{type(error).__name__}: {error}"
            raise InstallError(
                f"refused the archive: cannot unpack it ({safe_line(reason)})"
            ) from None
        _check_command(tree, target.cmd)
        control.check()
        try:
            new_files.move_into_place(tree, final)
        except OSError:
            if not final.is_dir():  # (else another acp-tui installed it meanwhile: use that)
                raise
        return final
    finally:
        control.finished()
        new_files.remove_tree(work)


def _check_command(tree: Path, cmd: str) -> None:
    path = command_path(tree, cmd)
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(os.path.realpath(tree)):
        raise InstallError(f"the command {safe_line(cmd)!r} leads out of the archive")
    if not real.is_file():
        raise InstallError(f"the archive has no file {safe_line(cmd)!r} to run")
    if not real.stat().st_mode & stat.S_IXUSR:
        new_files.make_executable(real)


def _download(
    target: BinaryTarget,
    path: Path,
    progress: Progress | None,
    timeout: float,
    control: DownloadControl,
    limits: Limits,
) -> None:
    import urllib.error  # (only when something is downloaded)
    import urllib.request

    request = urllib.request.Request(target.archive, headers={"User-Agent": user_agent()})
    digest = hashlib.sha256()
    done = 0
    pace = _Pace(limits)
    try:
        with (
            urllib.request.urlopen(request, timeout=timeout) as response,
            new_files.create_file(path) as out,
        ):
            length = response.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
            if total is not None and total > MAX_DOWNLOAD_BYTES:
                raise InstallError(f"the archive is larger than {MAX_DOWNLOAD_BYTES} bytes")
            # (read1: what has come, so that a trickle is seen as one, not waited out)
            while chunk := response.read1(CHUNK):
                control.check()
                pace.received(len(chunk))
                done += len(chunk)
                if done > MAX_DOWNLOAD_BYTES:
                    raise InstallError(f"the archive is larger than {MAX_DOWNLOAD_BYTES} bytes")
                digest.update(chunk)
                out.write(chunk)
                if progress is not None:
                    progress(done, total)
    except urllib.error.HTTPError as error:
        reason = f"HTTP {error.code} {safe_line(str(error.reason))}"
        raise InstallError(f"could not download {safe_line(target.archive)}: {reason}") from None
    except (urllib.error.URLError, OSError, ValueError) as error:
        control.check()  # (its directory removed under it: abandoned, not a failure)
        reason = safe_line(str(getattr(error, "reason", None) or error))
        raise InstallError(f"could not download {safe_line(target.archive)}: {reason}") from None
    if total is not None and done != total:
        raise InstallError(f"the download ended after {done} of {total} bytes")
    if target.sha256 is not None and digest.hexdigest() != target.sha256:
        raise InstallError("the archive's sha256 is not the one the registry gives")


class _Pace:
    """Gives a download up when it stalls (too few bytes in a window) or takes too long."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.start = self.window_start = time.monotonic()
        self.window_bytes = 0

    def received(self, count: int) -> None:
        now = time.monotonic()
        limits = self.limits
        if now - self.start > limits.max_seconds:
            raise InstallError(f"the download took longer than {limits.max_seconds:.0f} s")
        self.window_bytes += count
        if now - self.window_start >= limits.stall_seconds:
            if self.window_bytes < limits.stall_bytes:
                raise InstallError(
                    f"the download stalled ({self.window_bytes} bytes in "
                    f"{now - self.window_start:.0f} s)"
                )
            self.window_start, self.window_bytes = now, 0


def _remove_stale(parent: Path) -> None:
    """Temporary directories an interrupted install left: of a process that is gone, or a day
    old (not one running now)."""
    with contextlib.suppress(OSError):
        for entry in parent.iterdir():
            if ".partial-" not in entry.name:
                continue
            owner = entry.name.split(".partial-", 1)[1].split("-", 1)[0]
            gone = owner.isdigit() and not _running(int(owner))
            if gone or time.time() - entry.stat().st_mtime > STALE_SECONDS:
                new_files.remove_tree(entry)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # (someone else's: running)
    return True

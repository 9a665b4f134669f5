"""A binary agent from the registry, downloaded once into `<cache>/agents/<id>/<version>/`.

The archive is downloaded into a temporary directory beside the target (sha256 checked when the
registry gives one), unpacked there (`extract`: nothing outside, no devices), its command
checked, and only then renamed into place: a failure at any step leaves nothing half-installed.
A new version goes to a new directory; an installed one is never touched again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
import tempfile
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path

from acp_tui.registry.extract import UnsafeArchive, archive_kind, extract
from acp_tui.registry.fetch import user_agent
from acp_tui.registry.index import BinaryTarget
from acp_tui.registry.installed import InstallError, command_path, install_dir
from acp_tui.safe_text import safe_line

MAX_DOWNLOAD_BYTES = 2 * 1024 * 1024 * 1024
CHUNK = 64 * 1024
STALE_SECONDS = 24 * 3600

Progress = Callable[[int, int | None], None]
"""(bytes so far, total bytes or None when the server did not say)."""


def install_binary(
    root: Path,
    agent_id: str,
    version: str,
    target: BinaryTarget,
    progress: Progress | None = None,
    timeout: float = 60.0,
) -> Path:
    """The agent's install directory, downloading and unpacking it first when it is not there."""
    final = install_dir(root, agent_id, version)
    command_path(final, target.cmd)  # a command leading out is refused before any download
    if final.is_dir():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale(final.parent)
    work = Path(tempfile.mkdtemp(prefix=f".{version}.partial-", dir=final.parent))
    try:
        download = work / "download"
        _download(target, download, progress, timeout)
        tree = work / "tree"
        tree.mkdir()
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
        try:
            os.rename(tree, final)
        except OSError:
            if not final.is_dir():  # (else another acp-tui installed it meanwhile: use that)
                raise
        return final
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _check_command(tree: Path, cmd: str) -> None:
    path = command_path(tree, cmd)
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(os.path.realpath(tree)):
        raise InstallError(f"the command {safe_line(cmd)!r} leads out of the archive")
    if not real.is_file():
        raise InstallError(f"the archive has no file {safe_line(cmd)!r} to run")
    mode = real.stat().st_mode
    if not mode & stat.S_IXUSR:
        real.chmod(stat.S_IMODE(mode) | 0o755)


def _download(target: BinaryTarget, path: Path, progress: Progress | None, timeout: float) -> None:
    import urllib.error  # (only when something is downloaded)
    import urllib.request

    request = urllib.request.Request(target.archive, headers={"User-Agent": user_agent()})
    digest = hashlib.sha256()
    done = 0
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response, open(path, "xb") as out:
            length = response.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
            if total is not None and total > MAX_DOWNLOAD_BYTES:
                raise InstallError(f"the archive is larger than {MAX_DOWNLOAD_BYTES} bytes")
            while chunk := response.read(CHUNK):
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
        reason = safe_line(str(getattr(error, "reason", None) or error))
        raise InstallError(f"could not download {safe_line(target.archive)}: {reason}") from None
    if total is not None and done != total:
        raise InstallError(f"the download ended after {done} of {total} bytes")
    if target.sha256 is not None and digest.hexdigest() != target.sha256:
        raise InstallError("the archive's sha256 is not the one the registry gives")


def _remove_stale(parent: Path) -> None:
    """Temporary directories an interrupted install left (a day old: not one running now)."""
    with contextlib.suppress(OSError):
        for entry in parent.iterdir():
            if ".partial-" in entry.name and time.time() - entry.stat().st_mtime > STALE_SECONDS:
                shutil.rmtree(entry, ignore_errors=True)

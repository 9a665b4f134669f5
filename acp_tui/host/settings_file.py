"""Reading a settings file (config.toml, a theme): a regular file of bounded size, or an error.

A FIFO named as a settings file blocked start-up in `open` or `read` (with the app's signal
handlers not yet able to run), a device such as /dev/zero read forever. The file is opened
non-blocking and checked with `fstat` on the descriptor that is then read (what is checked
is what is read); symlinks are followed, as dotfile managers link config files, but what they
lead to must be a regular file too. Stdlib only: the command line reads presets before
anything heavy is imported.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from acp_tui.host.open_beneath import kind_of, read_at_most

SETTINGS_FILE_MAX_BYTES = 1024 * 1024
"""The largest settings file read (1 MiB: far more than any config or theme needs)."""


class SettingsFileError(ValueError):
    """The file exists but cannot be a settings file (not a regular file, too large, not UTF-8)."""


def read_settings_file(path: Path, max_bytes: int = SETTINGS_FILE_MAX_BYTES) -> str:
    """The text of the settings file at ``path``. Raises FileNotFoundError when there is none,
    `SettingsFileError` saying what is wrong with it, OSError when it cannot be read."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise SettingsFileError(f"not a regular file ({kind_of(mode)})")
        data = read_at_most(fd, max_bytes)
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise SettingsFileError(f"larger than {_size(max_bytes)}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SettingsFileError(f"not UTF-8 text ({error.reason} at byte {error.start})") from None


def settings_files_in(directory: Path, suffix: str = ".toml") -> list[Path]:
    """The files named `*<suffix>` in `directory`, sorted (none when it is not a directory or
    cannot be listed); each is still read with `read_settings_file`, which checks what it is.

    Args:
        directory: a directory of settings files (the themes directories).
        suffix: the ending of the names listed.
    """
    try:
        names = os.listdir(directory)
    except (OSError, ValueError):
        return []
    return sorted(directory / name for name in names if name.endswith(suffix))


def _size(count: int) -> str:
    return f"{count // (1024 * 1024)} MiB" if count % (1024 * 1024) == 0 else f"{count:,} bytes"

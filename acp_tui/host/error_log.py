"""Where acp-tui's own errors are logged: `$XDG_STATE_HOME/acp-tui/errors.log` (`app_dirs`).

"Internal error (logged)" meant nothing while no handler was installed: Python's last-resort
handler wrote to stderr, which the full-screen app hides. `install()` (the command, before the
app starts) adds a file handler for warnings and errors to the root logger, the file opened at
the first record (an app that logs nothing makes no file); `path()` is where it goes, for the
messages that say an error was logged. Process-wide because Python's logging is; stdlib only.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from acp_tui.host import app_dirs

FILE_NAME = "errors.log"
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

_installed: Path | None = None
_handler: logging.Handler | None = None


class _PrivateFileHandler(logging.FileHandler):
    """A file handler that makes its directory (0700) and file (0600) when it first writes."""

    def _open(self):  # type: ignore[no-untyped-def]  # (logging's own signature)
        directory = os.path.dirname(self.baseFilename)
        os.makedirs(directory, mode=0o700, exist_ok=True)
        descriptor = os.open(
            self.baseFilename, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600
        )
        return os.fdopen(descriptor, "a", encoding=self.encoding or "utf-8", errors=self.errors)


def install(directory: Path | None = None) -> Path:
    """Log warnings and errors of every logger to the error log (once; later calls return the
    same path). `directory`: default the state directory."""
    global _installed, _handler
    if _installed is not None:
        return _installed
    path = (directory if directory is not None else app_dirs.state_dir()) / FILE_NAME
    handler = _PrivateFileHandler(path, delay=True, encoding="utf-8")
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter(FORMAT))
    root = logging.getLogger()
    root.addHandler(handler)
    if root.level == logging.NOTSET or root.level > logging.WARNING:
        root.setLevel(logging.WARNING)
    _installed, _handler = path, handler
    return path


def uninstall() -> None:
    """Remove the handler `install` added (tests)."""
    global _installed, _handler
    if _handler is not None:
        logging.getLogger().removeHandler(_handler)
        _handler.close()
    _installed = _handler = None


def path() -> Path | None:
    """Where errors are logged (None: `install` was not called, e.g. in a test)."""
    return _installed


def where() -> str:
    """How a message says where an error went: "logged to PATH", or "logged"."""
    return f"logged to {_installed}" if _installed is not None else "logged"

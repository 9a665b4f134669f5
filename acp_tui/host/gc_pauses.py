"""The garbage collector's pauses, logged for a benchmark that measures them from outside.

Only when the environment names a file (`ENV`, set by `bench/pty_long_session.py`): each
collection appends one line ``GENERATION WALL_SECONDS CPU_SECONDS`` to it (the CPU time is the
pause without the machine's load). Nothing is installed otherwise.
"""

from __future__ import annotations

import gc
import os
import time
from pathlib import Path
from typing import Any, TextIO

ENV = "ACP_TUI_GC_LOG"


class PauseLog:
    """Times every collection (`gc.callbacks`) and writes its generation and duration."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self._started = 0.0
        self._cpu = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            self._cpu = time.process_time()
            return
        took = time.perf_counter() - self._started
        cpu = time.process_time() - self._cpu
        try:
            self.out.write(f"{info.get('generation', -1)} {took:.6f} {cpu:.6f}\n")
        except (OSError, ValueError):
            gc.callbacks.remove(self)  # the file is gone: stop logging, never fail a collection


def log_path() -> Path | None:
    """The file `ENV` names (absolute), None when unset: acp-tui's own file, never a change."""
    path = os.environ.get(ENV)
    return Path(path).absolute() if path else None


def install_from_env() -> PauseLog | None:
    """Log pauses to the file `ENV` names (appended, line-buffered); None when unset or the file
    cannot be opened."""
    path = log_path()
    if path is None:
        return None
    try:
        out = open(path, "a", buffering=1)  # noqa: SIM115 (open for the process's lifetime)
    except OSError:
        return None
    log = PauseLog(out)
    gc.callbacks.append(log)
    return log

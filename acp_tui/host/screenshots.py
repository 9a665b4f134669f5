"""Where acp-tui keeps the screenshots the user takes (the command palette's "Screenshot"):
`$XDG_STATE_HOME/acp-tui/screenshots/` (an absolute XDG path only), else
`~/.local/state/acp-tui/screenshots/`. Textual's own default, `~/Downloads`, often does not
exist (a server, a container) and the save then failed with no word of where or why.

The file is written by the file host (`OwnWrites.write_app_file`): locked, atomic, one of
acp-tui's own files.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path


def state_dir(environ: Mapping[str, str] | None = None) -> Path:
    """acp-tui's state directory: `$XDG_STATE_HOME/acp-tui`, else `~/.local/state/acp-tui`."""
    env = os.environ if environ is None else environ
    xdg = env.get("XDG_STATE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "acp-tui"
    return Path(env.get("HOME") or Path.home()) / ".local" / "state" / "acp-tui"


def screenshot_path(now: datetime, environ: Mapping[str, str] | None = None) -> Path:
    """The file of a screenshot taken at `now`: named by the date and time, to the microsecond
    (two taken in one second do not overwrite each other)."""
    name = now.strftime("acp-tui_%Y-%m-%d_%H-%M-%S.%f.svg")
    return state_dir(environ) / "screenshots" / name

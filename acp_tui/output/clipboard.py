"""Copying text out of the terminal: the system clipboard through pyperclip where that works,
else OSC 52, which the terminal itself handles (so it works over SSH and inside tmux).

Over SSH the system clipboard pyperclip would reach is the remote machine's, so OSC 52 is used
directly there.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable, Mapping

from acp_tui.output.terminal_sequences import wrap_for_tmux

PYPERCLIP = "system clipboard"
OSC52 = "OSC 52 (terminal clipboard)"


def osc52(text: str, *, tmux: bool = False) -> str:
    """The OSC 52 sequence that puts `text` on the terminal's clipboard (wrapped for tmux's
    passthrough when asked).
    """
    payload = base64.b64encode(text.encode("utf-8")).decode("ascii")
    sequence = f"\x1b]52;c;{payload}\x07"
    return wrap_for_tmux(sequence) if tmux else sequence


def copy_text(
    text: str,
    write: Callable[[str], None],
    *,
    environ: Mapping[str, str] | None = None,
    pyperclip_copy: Callable[[str], None] | None = None,
) -> str:
    """Copy `text`; returns which way it went (`PYPERCLIP` or `OSC52`)."""
    env = os.environ if environ is None else environ
    remote = bool(env.get("SSH_TTY") or env.get("SSH_CONNECTION"))
    if not remote:
        try:
            if pyperclip_copy is None:
                import pyperclip

                pyperclip_copy = pyperclip.copy
            pyperclip_copy(text)
            return PYPERCLIP
        except Exception:  # pyperclip raises its own exception when no mechanism works
            pass
    write(osc52(text, tmux=bool(env.get("TMUX"))))
    return OSC52

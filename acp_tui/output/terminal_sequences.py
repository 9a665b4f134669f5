"""Escape sequences acp-tui writes to the terminal itself: desktop notifications (OSC 9 and
OSC 777) and the tmux passthrough wrapper. Text put into a sequence is stripped of control
characters first, so nothing (an agent's title, say) can end the sequence early."""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def clean(text: str, limit: int = 200) -> str:
    """`text` on one line without control characters, cut to `limit` (safe inside an OSC
    sequence).
    """
    flat = _CONTROL.sub(" ", text).strip()
    return flat[: limit - 1] + "…" if len(flat) > limit else flat


def wrap_for_tmux(sequence: str) -> str:
    """tmux passes a sequence through to the outer terminal inside DCS with ESCs doubled."""
    return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\"


def osc9(message: str) -> str:
    """A desktop notification through OSC 9 (iTerm2, WezTerm, kitty, ...)."""
    return f"\x1b]9;{clean(message)}\x07"


def osc777(title: str, body: str) -> str:
    """A desktop notification through OSC 777 (urxvt, foot, VTE terminals)."""
    return f"\x1b]777;notify;{clean(title, 80).replace(';', ',')};{clean(body)}\x07"


def desktop_notification(title: str, body: str, *, tmux: bool = False) -> str:
    """OSC 777 (urxvt, foot, WezTerm, VTE) then OSC 9 (iTerm2, kitty, Windows Terminal,
    WezTerm, Ghostty); terminals ignore the one they do not know."""
    sequence = osc777(title, body) + osc9(f"{title}: {body}")
    return wrap_for_tmux(sequence) if tmux else sequence

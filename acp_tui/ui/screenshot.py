"""The screenshot (the command palette's "Screenshot"): the screen as SVG, saved by the session's
file host under acp-tui's state directory (`host/screenshots.py`), and a toast naming the file,
or saying why it was not written. Textual's own saves into `~/Downloads`, which often does not
exist, and then says only "Failed to save screenshot"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App

from acp_tui.client.session.facade import SessionFacade
from acp_tui.host.own_writes import OwnWriteError
from acp_tui.ui.plain import notify

TITLE = "Screenshot"


async def save_screenshot(app: App[Any], session: SessionFacade) -> Path | None:
    """Save what `app` shows now; the path written (toasted), or None (the reason toasted)."""
    svg = app.export_screenshot()
    try:
        path = await session.save_screenshot(svg)
    except OwnWriteError as error:
        notify(app, f"Not saved: {error}", title=TITLE, severity="error")
        return None
    notify(app, f"Saved to {path}", title=TITLE)
    return path

"""Open an agent's image or audio block with the system's viewer: the decoded bytes go to a
private temporary file (named by the mime type's extension), then `xdg-open` (or `open` on
macOS) runs detached from acp-tui's terminal."""

from __future__ import annotations

import base64
import binascii
import mimetypes
import shutil
import subprocess
import sys
from pathlib import Path

from acp_tui.host import new_files


def media_file(data: str, mime_type: str) -> Path:
    """Write base64 `data` to a new private file (`host.new_files.temp_file`); raises
    ValueError when it is not base64."""
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as error:
        raise ValueError(f"the block's data is not base64: {error}") from None
    suffix = mimetypes.guess_extension(mime_type, strict=False) or ".bin"
    return new_files.temp_file(raw, suffix=suffix)


def opener() -> list[str] | None:
    """The command that opens a file or URL with the desktop's default program, or None if
    there is none.
    """
    command = "open" if sys.platform == "darwin" else "xdg-open"
    found = shutil.which(command)
    return [found] if found else None


def open_with_system(path: Path) -> str | None:
    """Start the viewer; returns an error message, or None when it was started."""
    argv = opener()
    if argv is None:
        return "no system viewer found (xdg-open / open)"
    try:
        subprocess.Popen(
            [*argv, str(path)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError as error:
        return str(error)
    return None

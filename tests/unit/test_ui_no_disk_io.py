"""The UI reads and writes no file itself: every read, write, listing or look at a path goes
through the host (`host/local_files.py`, `host/settings_file.py`, the file host's reverts and
own writes), which walks paths with directory fds, refuses FIFOs and devices, bounds sizes and
takes the per-path locks. A scan of `acp_tui/ui`'s sources for the calls that touch the disk."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.unit.call_scan import scan

UI = Path(__file__).resolve().parents[2] / "acp_tui" / "ui"

PATH_METHODS = {
    "read_text", "write_text", "read_bytes", "write_bytes", "stat", "lstat", "exists",
    "is_file", "is_dir", "is_symlink", "iterdir", "glob", "rglob", "mkdir", "rmdir", "unlink",
    "touch", "chmod", "resolve", "samefile",
}  # fmt: skip
"""`pathlib.Path` methods that look at or change the disk (`resolve` reads symlinks)."""
OS_FUNCTIONS = {
    "open", "read", "write", "stat", "lstat", "fstat", "listdir", "scandir", "walk", "remove",
    "unlink", "mkdir", "makedirs", "rename", "replace", "rmdir", "truncate", "mkfifo",
    "symlink", "link", "chmod", "readlink",
}  # fmt: skip
OS_PATH_FUNCTIONS = {
    "exists", "lexists", "isfile", "isdir", "islink", "getsize", "getmtime", "realpath",
}  # fmt: skip
MODULES = {"tempfile", "shutil"}

ALLOWED = {
    ("early_input.py", "os.read"): "the terminal's input (a tty descriptor), not a file",
    ("early_input.py", "os.write"): "the reader thread's wake-up pipe, not a file",
    ("first_frame.py", "os.write"): "the terminal's output (a tty descriptor), not a file",
    ("themes.py", ".resolve"): "where acp-tui itself is installed (its shipped themes)",
}


def disk_call(owner: str | None, attr: str, call: ast.Call) -> str | None:
    """What the scan calls a call that touches the disk (None: not one)."""
    if owner is None:
        return "open" if attr == "open" else None
    if owner == "os":
        return f"os.{attr}" if attr in OS_FUNCTIONS else None
    if owner == "os.path":
        return f"os.path.{attr}" if attr in OS_PATH_FUNCTIONS else None
    if owner in MODULES:
        return f"{owner}.{attr}"
    return f".{attr}" if attr in PATH_METHODS else None


def disk_calls(source: str) -> list[tuple[int, str]]:
    """(line, call) of every call in `source` that touches the disk."""
    return scan(source, disk_call)


def test_the_scan_finds_each_kind_of_disk_call() -> None:
    source = (
        "open('x')\n"
        "path.read_text()\n"
        "Path('a').exists()\n"
        "os.stat(p)\n"
        "os.path.isdir(p)\n"
        "tempfile.mkdtemp()\n"
        "text.replace('a', 'b')\n"  # not a disk call
    )
    assert [name for _, name in disk_calls(source)] == [
        "open",
        ".read_text",
        ".exists",
        "os.stat",
        "os.path.isdir",
        "tempfile.mkdtemp",
    ]


def test_the_ui_touches_no_file_itself() -> None:
    offenders = []
    for path in sorted(UI.rglob("*.py")):
        for line, name in disk_calls(path.read_text(encoding="utf-8")):
            if (path.name, name) in ALLOWED:
                continue
            offenders.append(f"{path.relative_to(UI.parent.parent)}:{line}: {name}")
    assert not offenders, "disk I/O in the UI (go through the host):\n" + "\n".join(offenders)

"""No module outside `acp_tui/host` opens, creates, moves or removes a file itself: every file
acp-tui reads or writes goes through the host services (the walk by directory fds, locks,
atomic writes, `new_files`, `append_log`, `local_files`, `settings_file`), so a path is checked
where it is used. A scan of the sources for the calls that do it; what must stay is allowed
below, each with its reason. (The UI is held to more: `test_ui_no_disk_io.py` forbids it even
looking at a path.)"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.unit.call_scan import scan

PACKAGE = Path(__file__).resolve().parents[2] / "acp_tui"

OS_FUNCTIONS = {
    "open", "fdopen", "mkdir", "makedirs", "rename", "renames", "replace", "remove", "unlink",
    "rmdir", "removedirs", "truncate", "mkfifo", "mknod", "symlink", "link", "chmod", "chown",
}  # fmt: skip
TEMPFILE_FUNCTIONS = {
    "mkdtemp", "mkstemp", "NamedTemporaryFile", "TemporaryFile", "TemporaryDirectory",
    "SpooledTemporaryFile",
}  # fmt: skip
SHUTIL_FUNCTIONS = {
    "copy", "copy2", "copyfile", "copytree", "copymode", "copystat", "move", "rmtree", "chown",
    "unpack_archive", "make_archive",
}  # fmt: skip
PATH_METHODS = {
    "open", "read_text", "write_text", "read_bytes", "write_bytes", "mkdir", "rmdir", "unlink",
    "touch", "chmod", "rename", "symlink_to", "hardlink_to",
}  # fmt: skip
"""`pathlib.Path` methods that open or change a file (`replace` is left out: every string has
one; `os.replace` is caught)."""

HOST = "host/"
DEMO = "demo/"
"""The demo agent (`demo/agent.py`, `v2.py`, `scenario.py`) is a process of its own that acts on
files as any agent does, and the contracts forbid it the host (it speaks the protocol only).
What the app's process takes of it is data: `SAMPLE_FILES`, made by the host
(`new_files.private_tree`); `create_sample_project` writes them where a test says."""

ALLOWED = {
    ("protocol/process_tree.py", "open"): "/proc of the agent's processes, not a file of the "
    "user's; protocol is below host",
    ("sandbox/landlock.py", "os.open"): "an O_PATH descriptor that names a Landlock rule's "
    "directory: nothing read or written; sandbox is below host",
    ("registry/extract.py", "archive.open"): "a zip member, read from the archive the host opened",
    ("registry/extract.py", "zipfile.ZipFile"): "reads the archive the host opened "
    "(`new_files.open_own`), given as a file object",
    ("agent_choice.py", "Catalog.open"): "the registry's catalog, not a file",
    ("ui/launch.py", "Catalog.open"): "the registry's catalog, not a file",
    ("ui/screens/elicitation_screen.py", "webbrowser.open"): "a URL in the user's browser",
    ("client/change_tracking.py", "self.monitor.touch"): "the change monitor's clock",
    ("thread/parent_links.py", "self.unlink"): "a subagent's link to its card",
    ("thread/subagents.py", "self.links.unlink"): "a subagent's link to its card",
    ("client/session/agent_session.py", "session_config.rename"): "the session's title",
    ("client/session/config.py", "session.thread.rename"): "the session's title",
    ("client/session/history.py", "session.rename"): "the session's title",
    ("ui/screens/main.py", "self.session.rename"): "the session's title",
}


def file_call(owner: str | None, attr: str, call: ast.Call) -> str | None:
    """What the scan calls a call that opens, creates, moves or removes a file (None: not one)."""
    if owner is None:
        return "open" if attr == "open" else None
    if owner == "os":
        return f"os.{attr}" if attr in OS_FUNCTIONS else None
    if owner == "io":
        return "io.open" if attr == "open" else None
    if owner == "tempfile":
        return f"tempfile.{attr}" if attr in TEMPFILE_FUNCTIONS else None
    if owner == "shutil":
        return f"shutil.{attr}" if attr in SHUTIL_FUNCTIONS else None
    if owner == "tarfile" and attr == "open":
        opened = any(keyword.arg == "fileobj" for keyword in call.keywords)
        return None if opened else "tarfile.open"
    if owner == "zipfile" and attr == "ZipFile":
        return "zipfile.ZipFile"
    return f"{owner}.{attr}" if attr in PATH_METHODS else None


def file_calls(source: str) -> list[tuple[int, str]]:
    """(line, call) of every call in `source` that opens, creates, moves or removes a file."""
    return scan(source, file_call)


def test_the_scan_finds_each_kind_of_file_call() -> None:
    source = (
        "open('x')\n"
        "path.write_text('a')\n"
        "Path('a').open('rb')\n"
        "os.replace(a, b)\n"
        "os.stat(p)\n"  # looking is not opening
        "tempfile.mkdtemp()\n"
        "tempfile.gettempdir()\n"  # a name only
        "shutil.rmtree(d)\n"
        "shutil.which('git')\n"  # not a file of ours
        "tarfile.open(p)\n"
        "tarfile.open(fileobj=f)\n"  # the host opened it
        "text.replace('a', 'b')\n"
    )
    assert [name for _, name in file_calls(source)] == [
        "open",
        "path.write_text",
        "Path('a').open",
        "os.replace",
        "tempfile.mkdtemp",
        "shutil.rmtree",
        "tarfile.open",
    ]


def test_no_module_outside_the_host_opens_a_file_itself() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        if module.startswith((HOST, DEMO)):
            continue
        for line, name in file_calls(path.read_text(encoding="utf-8")):
            if (module, name) not in ALLOWED:
                found.append(f"{module}:{line}: {name}")
    assert found == [], "open files through acp_tui.host (or allow it here, saying why)"


def test_every_allowed_call_is_still_there() -> None:
    """An entry whose call is gone is removed, so the list says what is true."""
    seen = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        seen |= {(module, name) for _, name in file_calls(path.read_text(encoding="utf-8"))}
    assert sorted(set(ALLOWED) - seen) == []

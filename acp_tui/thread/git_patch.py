"""A v2 diff's `git_patch` text read into `FileDiff`s: one per `diff --git` section, its hunks
with their line numbers, so a v2 diff is drawn, opened and stepped through like a v1 one.

The patch carries only the changed regions: a `FileDiff` made from it holds, as its old and new
text, what its hunks show of each side (the context, removed and added lines), not the whole
files. Pure and bounded: at most `MAX_FILES` sections and `MAX_LINES` lines are read; a section
without a hunk or a malformed hunk header is skipped, never an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from acp_tui.thread.diff import DiffLine, FileDiff, Hunk, LineKind

MAX_FILES = 200
MAX_LINES = 20_000

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_KINDS: dict[str, LineKind] = {" ": "context", "-": "remove", "+": "add"}


@dataclass
class _Section:
    old_path: str | None = None
    new_path: str | None = None
    header_path: str = ""
    hunks: list[Hunk] = field(default_factory=list)


def _unquoted(path: str) -> str:
    """A `---`/`+++` path without Git's quotes (C escapes kept as sent: they are shown, not
    used) and without a trailing tab-separated timestamp."""
    path = path.split("\t", 1)[0]
    if len(path) >= 2 and path.startswith('"') and path.endswith('"'):
        return path[1:-1]
    return path


def patch_diffs(item: object) -> list[FileDiff]:
    """The file diffs of a v2 diff content item (`PatchDiff`): its `git_patch` read; none for
    another format or no patch text."""
    raw = getattr(item, "raw", None)
    patch = raw.get("patch") if isinstance(raw, dict) else None
    if not isinstance(patch, dict) or patch.get("format") != "git_patch":
        return []
    text = patch.get("text")
    return parse_git_patch(text) if isinstance(text, str) else []


def parse_git_patch(text: str) -> list[FileDiff]:
    """The file diffs of a git patch (see the module docstring)."""
    sections: list[_Section] = []
    current: _Section | None = None
    lines = text.splitlines()[:MAX_LINES]
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("diff --git "):
            if len(sections) >= MAX_FILES:
                break
            current = _Section(header_path=line.removeprefix("diff --git ").split(" ", 1)[0])
            sections.append(current)
        elif current is not None and line.startswith("--- ") and not current.hunks:
            current.old_path = _unquoted(line[4:])
        elif current is not None and line.startswith("+++ ") and not current.hunks:
            current.new_path = _unquoted(line[4:])
        elif current is not None and (match := _HUNK.match(line)) is not None:
            i = _read_hunk(current, match, lines, i + 1)
            continue
        i += 1
    return [diff for diff in map(_file_diff, sections) if diff is not None]


def _read_hunk(section: _Section, match: re.Match[str], lines: list[str], i: int) -> int:
    old_start, new_start = int(match[1]), int(match[3])
    old_count = int(match[2]) if match[2] is not None else 1
    new_count = int(match[4]) if match[4] is not None else 1
    old_no, new_no = (
        old_start if old_count else old_start + 1,
        new_start if new_count else new_start + 1,
    )
    body: list[DiffLine] = []
    old_seen = new_seen = 0  # the lines of each side read so far (the header says how many)
    while i < len(lines):
        line = lines[i]
        kind = _KINDS.get(line[:1]) if line else "context"
        if line.startswith("\\"):  # "\ No newline at end of file": the line before has none
            if body:
                body[-1] = DiffLine(
                    body[-1].kind, body[-1].old_no, body[-1].new_no, body[-1].text, ""
                )
            i += 1
            continue
        if kind is None or (old_seen >= old_count and new_seen >= new_count):
            break
        old = old_no if kind != "add" else None
        new = new_no if kind != "remove" else None
        body.append(DiffLine(kind, old, new, line[1:]))
        old_no += kind != "add"
        new_no += kind != "remove"
        old_seen += kind != "add"
        new_seen += kind != "remove"
        i += 1
    header = match[0]
    index = len(section.hunks)
    section.hunks.append(
        Hunk(index, old_start, old_count, new_start, new_count, tuple(body), header)
    )
    return i


def _side(hunks: list[Hunk], drop: LineKind) -> str:
    return "".join(
        line.text + line.eol for hunk in hunks for line in hunk.lines if line.kind != drop
    )


def _file_diff(section: _Section) -> FileDiff | None:
    if not section.hunks:
        return None
    is_new = section.old_path == "/dev/null"
    is_deletion = section.new_path == "/dev/null"
    path = (section.old_path if is_deletion else section.new_path) or section.header_path
    lines = [line for hunk in section.hunks for line in hunk.lines]
    return FileDiff(
        path=path,
        old_text=None if is_new else _side(section.hunks, "add"),
        new_text="" if is_deletion else _side(section.hunks, "remove"),
        hunks=tuple(section.hunks),
        is_new_file=is_new,
        is_deletion=is_deletion,
        added=sum(1 for line in lines if line.kind == "add"),
        removed=sum(1 for line in lines if line.kind == "remove"),
    )

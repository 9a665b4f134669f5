"""The order the Changes view (F2) lists a session's files in, and its filter.

A real edit must not hide behind many new files: files that existed before the session and
still exist come first (edits), then files that existed and are gone (deletions), then files
the session created (new); within a group, in the order first written. Kinds come from the
`ChangeLog` alone (its first and last record of each path), so ordering 20,000 files reads no
disk.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum
from pathlib import Path

from acp_tui.host.change_log import ChangeLog


class FileKind(IntEnum):
    """What the session did to a file, in the order the kinds are listed."""

    EDITED = 0
    DELETED = 1
    NEW = 2


def kind_of(log: ChangeLog, path: Path) -> FileKind:
    """Edited (existed before, still there), deleted (existed, gone) or new (did not exist)."""
    records = log.records_for(path)
    first, last = records[0], records[-1]
    if first.before_version is None and not first.before_omitted:
        return FileKind.NEW
    return FileKind.DELETED if last.deleted else FileKind.EDITED


def ordered_files(log: ChangeLog) -> list[tuple[Path, FileKind]]:
    """Every file the session wrote with its kind: edits, then deletions, then new files (a
    stable sort: first written first within a kind)."""
    kinds = [(path, kind_of(log, path)) for path in log.files()]
    return sorted(kinds, key=lambda pair: pair[1])


def matching(
    files: list[tuple[Path, FileKind]], needle: str, shown: Callable[[Path], str]
) -> list[tuple[Path, FileKind]]:
    """The files whose path as shown (`shown`) holds `needle`, ignoring case (words separated
    by spaces must all be there, in any order); all of them for an empty filter."""
    words = needle.lower().split()
    if not words:
        return files
    return [pair for pair in files if all(word in shown(pair[0]).lower() for word in words)]

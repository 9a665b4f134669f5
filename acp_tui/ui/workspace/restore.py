"""`acp-tui --continue` with a saved workspace of more than one session: which saved session the
first tab (the agent and directory acp-tui was started with) reopens, the others to reopen each
in its own tab, and one notice naming every session that cannot come back, and why.

The saved file is not trusted as written (anything that can write the user's data directory can
write it): a session reopens at once only when it is one of this directory's own presets, with
that preset's command, or the agent acp-tui was started with, in this very directory. Every
other one (a command of its own, another directory, a worktree) is `to_confirm`: the app lists
their commands and directories and starts them only when the user says so (`confirm_question`;
Esc starts none of them, the others still open)."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from acp_tui.client import saved_workspace as store
from acp_tui.host.asker import Choice, Question
from acp_tui.host.local_files import real_path
from acp_tui.presets import Preset
from acp_tui.safe_text import safe_line
from acp_tui.ui.workspace.spec import SessionSpec


@dataclass(frozen=True)
class Restore:
    """`first`: the session id the first tab opens (None: its most recent, as before);
    `others`: each other tab's spec and session id; `notice`: what could not come back."""

    first: str | None
    others: tuple[tuple[SessionSpec, str], ...]
    notice: str | None
    to_confirm: tuple[tuple[SessionSpec, str], ...] = ()
    """Saved sessions not of this directory's own presets: started once the user confirms."""


def plan_restore(
    directory: Path, argv: Sequence[str], presets: Mapping[str, Preset]
) -> Restore | None:
    """The workspace saved for `directory` to reopen (blocking: reads the store, stats); None
    when it holds at most one session (`--continue` continues the last one, as before)."""
    records, problems = store.load(directory)
    if len(records) <= 1:
        return None

    def can_reopen(record: store.SessionRecord) -> str | None:
        if record.preset is not None and record.preset not in presets and not record.argv:
            return f"its preset {record.preset} is no longer configured"
        return None

    plan = store.restore_plan(records, can_reopen=can_reopen)
    here = real_path(directory)
    first: str | None = None
    others: list[tuple[SessionSpec, str]] = []
    to_confirm: list[tuple[SessionSpec, str]] = []
    for record in plan.restorable:
        assert record.session_id is not None  # (restore_plan keeps only those)
        launched = record.worktree is None and tuple(record.argv) == tuple(argv)
        if first is None and launched and real_path(record.cwd) == here:
            first = record.session_id
            continue
        spec = spec_of(record, presets)
        own = (launched or _own_preset(record, presets)) and real_path(record.cwd) == here
        (others if own else to_confirm).append((spec, record.session_id))
    lines = [f"{record.label}: {why}" for record, why in plan.lost] + problems
    notice = "Not reopened:\n" + "\n".join(safe_line(line) for line in lines) if lines else None
    return Restore(first, tuple(others), notice, tuple(to_confirm))


def _own_preset(record: store.SessionRecord, presets: Mapping[str, Preset]) -> bool:
    """The record names one of the presets and starts it with that preset's own command."""
    preset = presets.get(record.preset) if record.preset is not None else None
    if preset is None or record.worktree is not None:
        return False
    return not record.argv or tuple(record.argv) == tuple(preset.command)


CONFIRM_KIND = "restore-confirm"
START = "start"
SKIP = "skip"


def confirm_question(specs: Sequence[SessionSpec]) -> Question:
    """What `--continue` asks before starting saved sessions that are not this directory's own
    presets: each one's command and directory (made safe: the file is not trusted)."""
    lines = [f"$ {shlex.join(spec.argv)}\n  in {spec.cwd}" for spec in specs]
    detail = (
        "The saved workspace names sessions that were not started from this directory's own "
        "presets. Start them as saved?\n\n" + "\n".join(lines)
        + "\n\nEsc starts none of these; the other sessions open as usual."
    )  # fmt: skip
    return Question(
        CONFIRM_KIND,
        f"Start {len(specs)} saved session(s) with their own commands?",
        detail,
        (Choice(START, "Start them", "s"), Choice(SKIP, "Do not start them", "n")),
    )


def spec_of(record: store.SessionRecord, presets: Mapping[str, Preset]) -> SessionSpec:
    """The spec a saved session's tab is started from (its preset's command when no argv)."""
    preset = presets.get(record.preset) if record.preset is not None else None
    argv = record.argv or (preset.command if preset is not None else ())
    worktree = record.worktree.worktree() if record.worktree is not None else None
    env = dict(preset.env) if preset is not None else {}
    return SessionSpec(tuple(argv), record.cwd, preset, worktree=worktree, env=env)

"""Rewind (`e` on an earlier prompt of yours, `//rewind`): the files back to just before that
prompt, the prompt in the composer to edit, and sending it continues in a new branch.

1. Start: the focused user message, else a picker of the prompts (newest first, typing filters).
2. Plan (`client/rewind.py`), confirmed on `RewindScreen` (Esc: nothing changes).
3. The old branch's file state is saved (`client/rewind_branches.py`), then the files are
   restored through the file host's `Reverts`; a summary says what was restored, kept, failed.
4. The prompt's text goes into the composer; the next prompt sent continues in a new branch
   exactly as continuing from a message does (`client/message_fork.py`), from the entry just
   before the prompt (a new session when the prompt was the first). The old branch stays in the
   session picker (f5), where `w` opens it again in a new tab and rewinds its files forward
   (`ui/workspace/branches.py`, which also sends the edited prompt on its new branch).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.widget import Widget

from acp_tui.client import message_fork, rewind, rewind_branches
from acp_tui.host.own_writes import OwnWriteError
from acp_tui.thread.entries import MessageEntry
from acp_tui.ui.plain import notify
from acp_tui.ui.screens.choice_picker import Choice, ChoicePicker
from acp_tui.ui.screens.rewind_screen import RewindScreen
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.workspace.messages import RewindPoint

if TYPE_CHECKING:
    from acp_tui.ui.screens.main import MainScreen

SAVING_BRANCH = "The rewind (saving the old branch's files)"
"""Who writes the old branch's file, in the boundary's question ("… wants to write …")."""
NO_TURN = "acp-tui saw no turn of that prompt (an earlier run's): its file changes are not known"


def _running(screen: MainScreen) -> bool:
    if screen.session.turn_running:
        notify(screen, f"Cannot rewind now: {message_fork.RUNNING}.", severity="warning")
        return True
    return False


def rewind_here(screen: MainScreen) -> None:
    """From the focused prompt of the user's, else ask which."""
    from acp_tui.ui.widgets.conversation_parts import focused_entry

    if _running(screen):
        return

    entry = focused_entry(screen.focused)
    if isinstance(entry, MessageEntry) and entry.role == "user":
        start(screen, entry.id)
        return
    ask_prompt(screen)


def ask_prompt(screen: MainScreen) -> None:
    """Pick the prompt to rewind to (newest first, typing filters), then rewind."""
    if _running(screen):
        return
    found = rewind.prompts(screen.session.thread.entries)
    if not found:
        notify(screen, "No prompt to rewind to yet.")
        return
    choices = [Choice(str(e.id), message_fork.preview(e, "You")) for e in found]

    def answered(value: str | None) -> None:
        if value is not None:
            start(screen, int(value))

    picker = ChoicePicker("Rewind to before which prompt?", choices, None, filtered=True)
    screen.app.push_screen(picker, answered)


def start(screen: MainScreen, prompt_id: int) -> None:
    if _running(screen):
        return
    screen.run_worker(_rewind(screen, prompt_id), group="rewind", exclusive=True)


async def _rewind(screen: MainScreen, prompt_id: int) -> None:
    session = screen.session
    entries = list(session.thread.entries)
    index = next((i for i, e in enumerate(entries) if e.id == prompt_id), None)
    prompt = entries[index] if index is not None else None
    if not isinstance(prompt, MessageEntry) or session.session_id is None:
        notify(screen, "That prompt is no longer in this session.", severity="warning")
        return
    assert index is not None
    old_id = session.session_id
    turn = session.turn_changes.prompt_turn(prompt_id)
    records = session.turn_changes.records_from(turn) if turn is not None else []
    rewound = rewind.rewound_entries(entries, prompt_id)
    plan = await rewind.plan_for_prompt(
        session.change_log, records, rewound, session.cwd, max_bytes=session.reverts.max_bytes
    )
    if turn is None:
        notify(screen, NO_TURN, severity="warning")
    title = f"Rewind to before {message_fork.preview(prompt, 'You')}"
    overwrite = await screen.app.push_screen_wait(RewindScreen(plan, session.cwd, title))
    if overwrite is None:
        notify(screen, "Rewind cancelled: nothing changed.")
        return
    if session.turn_running or session.session_id != old_id:
        notify(screen, "Not rewound: the session moved on meanwhile.", severity="warning")
        return
    if plan.files and not await _save_branch(
        screen, rewind_branches.from_plan(old_id, prompt.text, plan)
    ):
        return
    result = await rewind.apply_plan(plan, session.reverts, overwrite=overwrite)
    report(screen, result, session.cwd, "Rewound")
    before = entries[index - 1].id if index > 0 else None
    screen.rewind_pending = RewindPoint(old_id, before)
    prompt_input = screen.query_one(PromptInput)
    prompt_input.load_text(prompt.text)
    prompt_input.move_cursor(prompt_input.document.end)  # (to go on typing at its end)
    prompt_input.focus()
    notify(screen, "Edit the prompt: sending it continues in a new branch (the old one stays "
           "in the session list, f5).")  # fmt: skip


async def _save_branch(screen: MainScreen, branch: rewind_branches.BranchEnd) -> bool:
    """Save the old branch's end before anything is restored; False (told) when it was not.
    Rewound again before the edited prompt was sent: the end the first rewind found stays."""
    session = screen.session
    path = rewind_branches.branch_file(session.cwd, branch.session_id)
    try:
        pending = screen.rewind_pending
        if pending is not None and pending.session_id == branch.session_id:
            older = await rewind_branches.load(session.cwd, branch.session_id)
            if older is not None:
                branch = rewind_branches.merged(older, branch)
        await session.write_export(path, rewind_branches.encode(branch), who=SAVING_BRANCH)
    except (OwnWriteError, rewind_branches.BranchError) as error:
        notify(screen, f"Not rewound: the old branch's files could not be saved ({error}).",
               severity="error")  # fmt: skip
        return False
    return True


def report(where: App[Any] | Widget, result: rewind.RewindResult, root: Path, title: str) -> None:
    if result.failed:
        notify(where, result.summary(root), title=title, severity="warning")
    else:
        notify(where, result.summary(root), title=title)

"""Apply: bring one worktree's changes into the main checkout, file by file, through the review.

`apply_worktree(app, wt)` walks the worktree's apply plan (`workspace.apply.apply_plan`):

- a created or changed file opens the per-hunk review (`WriteReviewScreen`: the main checkout's
  text against the worktree's); what the user accepts is written, nothing when they reject;
- a deleted file asks explicitly (skip / delete / stop), skip being what enter does; keys that
  come too soon after a question appears answer nothing (`KeyGuard`, as every question);
- a file the main checkout changed since the worktree's base (a conflict) asks first (skip /
  review / stop): the review then shows what applying would replace;
- a binary file, or one too large to diff, is copied whole when the user says so (skip / copy /
  stop);
- a file that cannot be applied (a symbolic link, a special file) is skipped with a reason.

"Stop" skips everything left. Writing goes through the workspace's `CheckoutWriter` (the host's
walk, lock and atomic write; nothing outside the main checkout). A summary screen ends the walk:
applied / skipped / failed, each with its reason; the summary is also returned.

Run it in a worker (`app.run_worker(apply_worktree(app, wt))`): it waits for screens to be
dismissed, which a message handler awaiting it would block.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import ClassVar, TypeVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from acp_tui.host.asker import Choice, Question
from acp_tui.host.reverts import PathLocks
from acp_tui.safe_text import safe_line
from acp_tui.thread.hunks import ReviewedWrite
from acp_tui.ui.key_guard import KeyGuard
from acp_tui.ui.screens.question import QuestionScreen
from acp_tui.ui.screens.review_screen import WriteReviewScreen
from acp_tui.worktrees.apply import (
    Action,
    ApplyItem,
    ApplySummary,
    CheckoutWriter,
    apply_item,
    apply_plan,
)
from acp_tui.worktrees.worktrees import Worktree, WorktreeError

T = TypeVar("T")
R = TypeVar("R")  # the app's return type: any app

SKIP, REVIEW, DELETE, COPY, STOP = "skip", "review", "delete", "copy", "stop"
STOPPED = "not applied: the apply was stopped"


class ApplyReviewScreen(WriteReviewScreen):
    """The per-hunk review, titled for an apply."""

    def __init__(self, item: ApplyItem, branch: str, *, watch: bool = True) -> None:
        super().__init__(item.target, item.old, item.new or "", diff=item.diff, watch=watch)
        self.branch = branch

    def _title(self) -> str:
        what = "create" if self.before is None else "change"
        return safe_line(f"Apply {self.branch}: {what} {self.path}")


class ApplyQuestionScreen(QuestionScreen):
    """A deletion's or a conflict's question, guarded like every question (`QuestionScreen`):
    a key that comes too soon after it appeared, or in a run of typing (an enter meant for the
    review before it), answers nothing."""


class ApplySummaryScreen(ModalScreen[None]):
    """What the apply did; enter or escape closes it."""

    DEFAULT_CSS = """
    ApplySummaryScreen { align: center middle; }
    ApplySummaryScreen > Vertical {
        width: 96; max-width: 96%; height: auto; max-height: 90%;
        border: thick $accent; background: $surface; padding: 1 2;
    }
    ApplySummaryScreen #apply-summary-title { text-style: bold; margin-bottom: 1; }
    ApplySummaryScreen VerticalScroll { height: auto; max-height: 30; }
    ApplySummaryScreen #apply-summary-keys { color: $text-muted; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "close", "Close"),
        Binding("escape", "close", "Close"),
    ]

    def __init__(self, summary: ApplySummary, branch: str) -> None:
        super().__init__()
        self.summary = summary
        self.branch = branch
        self._armed_at: float | None = None

    def compose(self) -> ComposeResult:
        lines = self.summary.lines()
        with Vertical():
            yield Static(
                Text(safe_line(f"Apply {self.branch}: {lines[0]}")), id="apply-summary-title"
            )
            with VerticalScroll():
                yield Static(
                    Text("\n".join(safe_line(line) for line in lines[1:])), id="apply-summary"
                )
            yield Static("enter / esc close", id="apply-summary-keys", markup=False)

    def on_mount(self) -> None:
        """Arm the key guard: a key meant for the last review does not close the summary unseen."""
        self._armed_at = KeyGuard.of(self.app).arm()

    def on_key(self, event: events.Key) -> None:
        """Swallow keys while the guard holds."""
        if KeyGuard.of(self.app).holds(self._armed_at):
            event.stop()  # a key meant for the last review does not close the summary unseen
            event.prevent_default()

    def action_close(self) -> None:
        """Close the summary."""
        self.dismiss(None)


async def _shown(app: App[R], screen: Screen[T]) -> T | None:
    """Push `screen` and wait until it is dismissed; what it was dismissed with."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T | None] = loop.create_future()

    def finish(result: T | None) -> None:
        if not done.done():
            done.set_result(result)

    app.push_screen(screen, callback=finish)
    return await done


def _question(item: ApplyItem, branch: str) -> Question:
    path = item.path
    go = {
        Action.DELETE: Choice(DELETE, "Delete", "d"),
        Action.COPY: Choice(COPY, "Copy", "c"),
    }.get(item.action, Choice(REVIEW, "Review", "r"))
    choices = (Choice(SKIP, "Skip", "s"), go, Choice(STOP, "Stop", "q"))
    if item.conflict:
        title = f"{path}: changed in the main checkout since {branch} began"
        return Question("apply_conflict", title, f"{item.reason}.", choices)
    if item.action is Action.COPY:
        replaces = "it replaces" if item.whole is not None else "there is no"
        detail = (
            f"{branch} has a version of {item.size} bytes that is not shown as a diff (binary, "
            f"or too large); {replaces} the main checkout's file."
        )
        return Question("apply_copy", f"Copy {path} from {branch}?", detail, choices)
    size = f"{len(item.old.splitlines())} line(s)" if item.old is not None else "not text"
    detail = f"{branch} deleted it ({size})."
    return Question("apply_delete", f"Delete {path} in the main checkout?", detail, choices)


async def apply_worktree(
    app: App[R],
    wt: Worktree,
    checkout: Path | None = None,
    *,
    locks: PathLocks | None = None,
    plan: list[ApplyItem] | None = None,
    watch: bool = True,
) -> ApplySummary:
    """Walk `wt`'s apply plan into `checkout` (default: its repository) with the user, then show
    the summary. `locks`: the main checkout session's per-path locks, when there is one."""
    writer = CheckoutWriter(checkout if checkout is not None else wt.repo, locks=locks)
    summary = ApplySummary()
    try:
        items = plan if plan is not None else await apply_plan(wt, writer.checkout)
    except WorktreeError as error:  # the worktree is gone, git failed: said, not raised
        items = []
        summary.failed.append((wt.name, f"nothing applied: {error}"))
    stopped = False
    for item in items:
        if stopped:
            if item.action is Action.SKIP:
                summary.skipped.append((item.path, item.reason))
            else:
                summary.skipped.append((item.path, STOPPED))
            continue
        stopped = await _one(app, writer, item, wt.branch, summary, watch)
    await _shown(app, ApplySummaryScreen(summary, wt.branch))
    return summary


async def _one(
    app: App[R],
    writer: CheckoutWriter,
    item: ApplyItem,
    branch: str,
    summary: ApplySummary,
    watch: bool,
) -> bool:
    """Apply one item with the user; True when they chose to stop."""
    if item.action is Action.SKIP:
        await apply_item(writer, item, summary)
        return False
    if item.conflict or item.action in (Action.DELETE, Action.COPY):
        answer = await _shown(app, ApplyQuestionScreen(_question(item, branch)))
        if answer == STOP:
            summary.skipped.append((item.path, STOPPED))
            return True
        if answer not in (REVIEW, DELETE, COPY):
            why = "conflict: skipped by you" if item.conflict else "skipped by you"
            summary.skipped.append((item.path, why))
            return False
        if item.action in (Action.DELETE, Action.COPY):
            await apply_item(writer, item, summary)
            return False
    reviewed = await _shown(app, ApplyReviewScreen(item, branch, watch=watch))
    if not isinstance(reviewed, ReviewedWrite):
        summary.skipped.append((item.path, "rejected in review"))
        return False
    if reviewed.base_known:  # the file changed during review: the review's base is what to expect
        item = dataclasses.replace(item, old=reviewed.base)
    if (
        await apply_item(writer, item, summary, reviewed.content)
        and reviewed.accepted < reviewed.total
    ):
        path, what = summary.applied.pop()
        summary.applied.append((path, f"{what}: {reviewed.accepted} of {reviewed.total} hunks"))
    return False

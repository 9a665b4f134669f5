"""A modal to review one write the agent proposes, hunk by hunk, before it reaches the disk.

Keys (besides `DiffView`'s own: ``n``/``]`` next hunk, ``p``/``[`` previous, ``s`` split/unified):

- ``y`` accept the current hunk, ``x`` reject it, ``u`` undo the decision (each moves on to the
  next hunk after deciding);
- ``A`` accept every hunk, ``R`` reject every hunk;
- ``enter`` write: **undecided hunks count as accepted**; if every hunk is rejected the change is
  rejected as a whole (the screen dismisses with None). Exception: after the file changed on disk,
  hunks that now make a different change need an explicit y/x before enter writes (so an edit the
  user made meanwhile is never overwritten by default);
- ``escape`` reject the whole change.

Guarded like every question (`QuestionKeys`): keys are held for a moment after the review
appears, and while the user goes on typing: they were meant for the composer under it, where
they go instead. A review that arrives while the user types (or a few seconds after) waits
until they choose it: f4, or a click.

It dismisses with a `ReviewedWrite` (the merged content, via `apply_hunks`) or None. While open it
watches the file (the host's `watch_file`, in an exclusive worker); when the file changes on
disk, the diff is recomputed against the new disk content (read through the host's
`read_regular_text`: no symlink followed, regular files only, size bounded), decisions are kept for
hunks that make the same change, and a banner plus a notification warn the user. A path that
is no longer a regular file (a symlink or a FIFO swapped in) is not read: a warning says so.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import ClassVar, Literal

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from acp_tui.host.local_files import LocalFileError, read_regular_text, watch_file
from acp_tui.safe_text import safe_line
from acp_tui.thread.diff import FileDiff, compute_diff
from acp_tui.thread.hunks import (
    HunkDecision,
    ReviewedWrite,
    carry_decisions,
    changed_hunks,
    decide,
)
from acp_tui.ui.key_guard import CHOOSE_KEY, QuestionKeys
from acp_tui.ui.plain import notify
from acp_tui.ui.widgets.diff_view import DiffView
from acp_tui.ui.widgets.guard_hint import GuardHint

KEY_HELP = (
    "y accept · x reject · u undo · A accept all · R reject all · n/p next/prev · "
    "s split · enter write · esc reject"
)


class WriteReviewScreen(ModalScreen[ReviewedWrite | None]):
    """Review the agent's proposed content for `path` against `before` (None: a new file)."""

    DEFAULT_CSS = """
    WriteReviewScreen { align: center middle; }
    WriteReviewScreen > Vertical {
        width: 96%; height: 94%;
        border: thick $accent; background: $surface;
    }
    WriteReviewScreen #review-title { text-style: bold; padding: 0 1; }
    WriteReviewScreen #review-banner {
        display: none; background: $warning 30%; color: $text; text-style: bold; padding: 0 1;
    }
    WriteReviewScreen.-changed-on-disk #review-banner { display: block; }
    WriteReviewScreen DiffView { height: 1fr; }
    WriteReviewScreen #review-status { background: $panel; padding: 0 1; text-style: bold; }
    WriteReviewScreen #review-keys { background: $panel; color: $text-muted; padding: 0 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "accept_hunk", "Accept hunk"),
        Binding("x", "reject_hunk", "Reject hunk"),
        Binding("u", "undo_hunk", "Undo decision"),
        Binding("A", "accept_all", "Accept all"),
        Binding("R", "reject_all", "Reject all"),
        Binding("enter", "write", "Write"),
        Binding("escape", "reject", "Reject"),
        Binding(CHOOSE_KEY, "choose_question", "Review here", show=False),
    ]

    def __init__(
        self,
        path: Path,
        before: str | None,
        proposed: str,
        *,
        diff: FileDiff | None = None,
        watch: bool = True,
        layout: Literal["auto", "unified", "split"] = "auto",
    ) -> None:
        super().__init__()
        self.path = path
        self.before = before
        self.proposed = proposed
        # the gate's diff of before → proposed when it has one (it is not computed twice)
        self.diff: FileDiff = (
            diff if diff is not None else compute_diff(str(path), before, proposed)
        )
        self.decisions: dict[int, HunkDecision] = {}
        self.must_decide: set[int] = set()
        """Hunks that changed because the file changed on disk: enter waits for a decision."""
        self.disk_changes = 0
        """How many times the diff was refreshed because the file changed on disk."""
        self.watch_ready = asyncio.Event()
        """Set once the disk watcher runs (tests wait on it before touching the file)."""
        self._watch = watch
        self._layout: Literal["auto", "unified", "split"] = layout
        self.keys = QuestionKeys()

    # ---- composition ------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self._title(), id="review-title", markup=False)
            yield Static("", id="review-banner", markup=False)
            yield DiffView(self.diff, layout=self._layout)
            yield Static(self.status_text(), id="review-status", markup=False)
            yield GuardHint(self.keys)
            yield Static(KEY_HELP, id="review-keys", markup=False)

    def _title(self) -> str:
        what = "create" if self.before is None else "change"
        return f"The agent wants to {what} {safe_line(str(self.path))}"

    def on_mount(self) -> None:
        """Arm the key guard, focus the diff and, when asked, watch the file for changes during the
        review.
        """
        self.keys.arm(self.app)
        self.diff_view.focus()
        if self._watch:
            self.watch_disk()

    def on_key(self, event: events.Key) -> None:
        """A key too soon after the review appeared, or in a run of typing, decides nothing: it
        goes to the composer the user was typing in."""
        self.keys.hold(event, focus=False)

    def on_click(self) -> None:
        """A click on the review chooses it: its keys decide from now on."""
        self.keys.choose()

    def action_choose_question(self) -> None:
        """f4: the user goes to the review on purpose."""
        self.keys.choose()

    @property
    def diff_view(self) -> DiffView:
        """The screen's diff view."""
        return self.query_one(DiffView)

    # ---- decisions ----------------------------------------------------------------------------

    def status_text(self) -> str:
        """What enter will write, e.g. "enter writes 2 of 3 hunks (1 rejected, 1 undecided…)"."""
        total = len(self.diff.hunks)
        if total == 0:
            return "The file on disk already holds this content: enter finishes, nothing changes"
        rejected = sum(1 for state in self.decisions.values() if state == "rejected")
        undecided = total - len(self.decisions)
        pending = self._pending_required()
        if pending:
            return (
                f"{len(pending)} hunk(s) changed on disk and need y or x before enter writes "
                f"(next: hunk {pending[0] + 1})"
            )
        if rejected == total:
            return f"Every hunk rejected: enter rejects the change ({total} of {total})"
        parts = [f"{rejected} rejected"]
        if undecided:
            parts.append(f"{undecided} undecided, counted as accepted")
        return f"enter writes {total - rejected} of {total} hunks ({', '.join(parts)})"

    def _refresh_status(self) -> None:
        self.query_one("#review-status", Static).update(self.status_text())

    def _set(self, index: int, state: HunkDecision | None) -> None:
        if not 0 <= index < len(self.diff.hunks):
            return
        if state is None:
            self.decisions.pop(index, None)
        else:
            self.decisions[index] = state
        self.diff_view.set_hunk_state(index, state)
        self._refresh_status()

    def _decide_current(self, state: HunkDecision | None) -> None:
        view = self.diff_view
        self._set(view.current_hunk, state)
        view.action_next_hunk()

    def action_accept_hunk(self) -> None:
        """Accept the hunk under the cursor."""
        self._decide_current("accepted")

    def action_reject_hunk(self) -> None:
        """Reject the hunk under the cursor."""
        self._decide_current("rejected")

    def action_undo_hunk(self) -> None:
        """Clear the decision of the hunk under the cursor."""
        self._decide_current(None)

    def action_accept_all(self) -> None:
        """Accept every hunk."""
        for hunk in self.diff.hunks:
            self._set(hunk.index, "accepted")

    def action_reject_all(self) -> None:
        """Reject every hunk."""
        for hunk in self.diff.hunks:
            self._set(hunk.index, "rejected")

    def _pending_required(self) -> list[int]:
        return sorted(i for i in self.must_decide if i not in self.decisions)

    def action_write(self) -> None:
        """Write the accepted hunks, unless a hunk the disk changed during review still needs a
        decision.
        """
        pending = self._pending_required()
        if pending:
            self.diff_view.go_to_hunk(pending[0])
            notify(
                self,
                f"Hunk {pending[0] + 1} changed on disk during review: accept (y) or reject (x).",
                severity="warning",
            )
            return
        self.dismiss(decide(self.diff, self.decisions))

    def action_reject(self) -> None:
        """Reject the whole write."""
        self.dismiss(None)

    # ---- the file changing on disk ------------------------------------------------------------

    @work(exclusive=True, group="review-watch-disk")
    async def watch_disk(self) -> None:
        """Re-check the file against the reviewed text each time it changes on disk (through the
        host's watcher).
        """
        async for changed in watch_file(self.path):
            if not changed:
                self.watch_ready.set()
            await self.check_disk()  # (first: a change before the watcher started)

    async def check_disk(self) -> bool:
        """Re-read the file; if it no longer holds `before`, refresh the diff. True if it did."""
        try:
            current = await asyncio.to_thread(read_regular_text, self.path)
        except LocalFileError as error:
            notify(self, f"⚠ {safe_line(str(error))}", severity="warning", timeout=6)
            return False
        if current == self.before or not self.query(DiffView):
            return False  # unchanged, or the review ended while the file was read
        await self.rebase(current)
        return True

    async def rebase(self, current: str | None) -> None:
        """Diff against `current` (the new disk content), keeping matching hunks' decisions."""
        old_view = self.diff_view
        new_diff = compute_diff(str(self.path), current, self.proposed)
        self.decisions = carry_decisions(self.diff, self.decisions, new_diff)
        self.must_decide = changed_hunks(self.diff, new_diff)
        self.before = current
        self.diff = new_diff
        view = DiffView(new_diff, layout=old_view.layout_mode)
        for index, state in self.decisions.items():
            view.set_hunk_state(index, state)
        await self.query_one(Vertical).mount(view, after=old_view)
        await old_view.remove()
        banner = next(iter(self.query("#review-banner").results(Static)), None)
        if banner is None:
            return  # the review was answered (its screen closed) while the diff was redrawn
        view.focus()
        if new_diff.hunks:
            first_changed = min(self.must_decide, default=old_view.current_hunk)
            view.go_to_hunk(min(first_changed, len(new_diff.hunks) - 1))
        name = safe_line(self.path.name)
        message = (
            f"⚠ {name} changed on disk during review: the diff now compares the "
            f"agent's version with the new disk content ({len(self.decisions)} kept, "
            f"{len(self.must_decide)} to decide again)"
        )
        if current is None:
            message = f"⚠ {name} was deleted during review: it would be created again"
        banner.update(message)
        self.add_class("-changed-on-disk")
        self.query_one("#review-title", Static).update(self._title())
        self._refresh_status()
        notify(self, message, severity="warning", timeout=6)
        self.disk_changes += 1

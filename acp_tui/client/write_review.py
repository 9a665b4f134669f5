"""The review step before the agent's file writes: when to hold a write, and what came of it.

`WriteReviewGate` implements `acp_tui.host.filesystem.WriteGate`. For each `fs/write_text_file`
it decides, from the `hold_writes` setting, whether the user reviews the write first:

- ``"always"``: every write that changes the file is held;
- ``"outside_permission"`` (default): a write is held unless the most recent permission request
  was answered by the user (an ``allow_once``/``allow_always`` option they picked) and covered
  that exact file, through the tool call's ``locations`` or the paths of its ``diff`` content;
  such a grant lets one write of each file it names through, then it is spent;
- ``"never"``: writes go straight through.

Only the user's own answers count as a grant: a permission answered automatically (a remembered
rule, the `permission_policy`, the `auto_answer` hook) never lets a write skip review, and it
ends the grant the user gave before. A grant is spent by the write it was for, so a later write
the agent makes on its own "always" (an agent that remembers and no longer asks) is held.

The diff of a write is computed once, here: a held write awaits `review_ui(path, diff)` (the UI
shows that diff; it returns a `ReviewedWrite` with the content to write, or None to reject, which
the file host turns into the agent's error "the user rejected the change to <path>"). The gate
answers the file host a `ReviewOutcome` that carries the review's facts (`WriteReview`: held,
hunks kept, lines added/removed) to the disk and into the change log; the file host then reports
the write (`FileSystemHost.written`, a `WriteReport`: "wrote src/app.py: 2 of 3 hunks"). The
gate only decides: it hears nothing back from the log. No Textual here.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

from acp_tui.config import HoldWrites
from acp_tui.host.change_log import WriteReview
from acp_tui.host.filesystem import ProposedWrite, ReviewOutcome
from acp_tui.host.permission_subject import named_paths
from acp_tui.host.permissions import PendingPermission, PermissionBroker
from acp_tui.host.write_report import WriteReport, display_path
from acp_tui.thread.diff import FileDiff, compute_diff
from acp_tui.thread.hunks import ReviewedWrite

HOLD_WRITES_CHOICES: tuple[str, ...] = tuple(choice.value for choice in HoldWrites)
DEFAULT_HOLD_WRITES = HoldWrites.OUTSIDE_PERMISSION
GRANTING_KINDS = frozenset({"allow_once", "allow_always"})

__all__ = [
    "DEFAULT_HOLD_WRITES",
    "HOLD_WRITES_CHOICES",
    "WriteReport",
    "WriteReviewGate",
    "display_path",
]


ReviewUi = Callable[[Path, FileDiff], Awaitable[ReviewedWrite | None]]
ToolCallPaths = Callable[[str], Iterable[str]]


def _canonical(path: str | Path, cwd: Path | None) -> Path:
    candidate = Path(path)
    if not candidate.is_absolute():
        if cwd is None:
            return candidate
        candidate = cwd / candidate
    return Path(os.path.realpath(candidate))


class WriteReviewGate:
    """Holds the agent's writes for review according to `hold_writes` (see the module doc)."""

    def __init__(
        self,
        review_ui: ReviewUi,
        *,
        hold_writes: HoldWrites | str = DEFAULT_HOLD_WRITES,
        cwd: Path | None = None,
        known_tool_call_paths: ToolCallPaths | None = None,
    ) -> None:
        if hold_writes not in HOLD_WRITES_CHOICES:
            raise ValueError(
                f"hold_writes must be one of {HOLD_WRITES_CHOICES}, not {hold_writes!r}"
            )
        self.review_ui = review_ui
        self.hold_writes = HoldWrites(hold_writes)
        """The `hold_writes` setting; may be changed while the session runs."""
        self.cwd = cwd
        self._known_tool_call_paths = known_tool_call_paths
        self._granted: frozenset[Path] = frozenset()

    # ---- permissions --------------------------------------------------------------------------

    def track(self, broker: PermissionBroker) -> Callable[[], None]:
        """Follow the requests the broker shows the user and remember the paths of each one the
        user grants. Requests answered without the user (rules, policy, the `auto_answer` hook;
        also one shown and then answered by a rule the user's "always" just added) grant
        nothing: held writes stay held.

        Returns a function that stops tracking.
        """
        stop_presented = broker.subscribe(self._watch_permission)
        stop_automatic = broker.subscribe_auto_answers(lambda _event: self._end_grant())

        def stop() -> None:
            stop_presented()
            stop_automatic()

        return stop

    def _end_grant(self) -> None:
        """A permission answered without the user: the last one is no longer theirs."""
        self._granted = frozenset()

    def _watch_permission(self, pending: PendingPermission) -> None:
        def answered(future: asyncio.Future[dict[str, Any]]) -> None:
            if future.cancelled() or future.exception() is not None:
                return
            if pending.automatic:
                self._end_grant()
                return
            self.permission_answered(pending)

        pending.future.add_done_callback(answered)

    def permission_answered(self, pending: PendingPermission) -> None:
        """Record the user's own answer to a permission request (called by `track`)."""
        option = pending.chosen
        if option is None or option.kind not in GRANTING_KINDS:
            return
        paths = named_paths(pending.tool_call)
        tool_call_id = pending.tool_call_id
        if self._known_tool_call_paths is not None and tool_call_id is not None:
            paths.extend(self._known_tool_call_paths(tool_call_id))
        self._granted = frozenset(_canonical(p, self.cwd) for p in paths)

    # ---- the gate -----------------------------------------------------------------------------

    def should_hold(self, path: Path) -> bool:
        """Whether a write to `path` is held for review: always, never, or unless the user's
        permission answer named the file.
        """
        if self.hold_writes == "always":
            return True
        if self.hold_writes == "never":
            return False
        return _canonical(path, self.cwd) not in self._granted

    async def review(self, proposal: ProposedWrite) -> ReviewOutcome | None:
        """What the file host should write, with how it was decided (None: the user rejected)."""
        path = proposal.path
        diff = compute_diff(str(path), proposal.before, proposal.proposed)
        total = len(diff.hunks)
        if total == 0 or not self.should_hold(path):
            if total and self.hold_writes == "outside_permission":
                self._granted -= {_canonical(path, self.cwd)}  # spent by this write
            review = WriteReview(False, total, total, diff.added, diff.removed)
            return ReviewOutcome(proposal.proposed, review)
        decision = await self.review_ui(path, diff)
        if decision is None:
            return None
        review = WriteReview(
            True, decision.accepted, decision.total, decision.added, decision.removed
        )
        return ReviewOutcome(decision.content, review, decision.base, decision.base_known)

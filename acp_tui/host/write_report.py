"""`WriteReport`: what the file host tells once an agent's reviewed write is on disk and in the
change log ("wrote src/app.py: 2 of 3 hunks"). The last step of the one way to the disk: request
→ decision (the write gate) → write (the file host) → record (the change log) → report."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from acp_tui.host.change_log import WriteRecord
from acp_tui.safe_text import safe_line


@dataclass(frozen=True)
class WriteReport:
    """A write the file host performed after passing through the gate."""

    path: Path
    held: bool  # the user reviewed it
    accepted: int  # hunks of the agent's proposal that were written
    total: int  # hunks the agent proposed
    added: int  # lines added / removed on disk by the write
    removed: int
    record: WriteRecord

    @classmethod
    def of(cls, record: WriteRecord) -> WriteReport | None:
        """The report of `record`, if a gate reviewed it (None: a revert, an observed change, a
        write without a gate)."""
        review = record.review
        if review is None or record.reverts is not None:
            return None
        return cls(
            record.path,
            review.held,
            review.accepted,
            review.total,
            review.added,
            review.removed,
            record,
        )

    def summary(self, root: Path | None = None) -> str:
        """E.g. "wrote src/app.py: 2 of 3 hunks" (paths shown relative to `root` when inside)."""
        shown = display_path(self.path, root)
        stats = f"(+{self.added} \u2212{self.removed})"
        if not self.held or self.accepted == self.total:
            return f"wrote {shown} {stats}"
        return f"wrote {shown}: {self.accepted} of {self.total} hunks {stats}"


def display_path(path: Path, root: Path | None) -> str:
    """`path` for a person: relative to `root` when inside it, made safe to display."""
    if root is not None:
        try:
            return safe_line(str(path.relative_to(root)))
        except ValueError:
            pass
    return safe_line(str(path))

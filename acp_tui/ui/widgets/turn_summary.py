"""The line under a finished turn that lists the files it changed: ``+A -R path`` each.

Focus it (tab, or a click) and ``←``/``→`` pick a file, ``enter`` (or a click on a file) opens
its diff (before the turn → after it), ``R`` reverts everything the turn changed after asking
(the question names the files the revert deletes or empties).
Files changed since the turn are left alone by the revert (and said so).
A turn that changed many files names the first `MAX_SHOWN` (their diffs are the only ones
computed) and counts the rest: ``Δ changed 20,000 files: … · and 19,992 more (F2 lists them)``.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events, work
from textual.binding import Binding, BindingType
from textual.visual import VisualType, visualize
from textual.widgets import Static

from acp_tui.client.turn_changes import TurnChanges, TurnFile, TurnSummary
from acp_tui.client.write_review import display_path
from acp_tui.host.asker import Choice, Question
from acp_tui.ui.plain import notify

REVERT = "revert"
KEEP = "keep"
MAX_SHOWN = 8
"""Files named (with their +/- counts) on the line; the rest are counted."""


def _names(items: list[TurnFile], most: int = 6) -> str:
    names = ", ".join(item.path.name for item in items[:most])
    return names + (f" and {len(items) - most} more" if len(items) > most else "")


def revert_plan(files: list[TurnFile]) -> str:
    """What reverting a turn does, file by file: which it deletes or empties are named first."""
    deletes = [item for item in files if item.revert_deletes]
    empties = [item for item in files if item.revert_empties]
    restores = [item for item in files if not item.revert_deletes and not item.revert_empties]
    lines = []
    if deletes:
        lines.append(f"DELETES {_names(deletes)} (created by the turn)")
    if empties:
        lines.append(f"EMPTIES {_names(empties)} (empty before the turn)")
    if restores:
        lines.append(f"restores {_names(restores)}")
    lines.append("Files changed since the turn are left alone.")
    return "\n".join(lines)


class TurnSummaryView(Static, can_focus=True):
    """The line under a turn naming the files it changed with +/- counts: arrows pick a file, Enter
    shows its diff, R reverts the turn."""

    DEFAULT_CSS = """
    TurnSummaryView { height: auto; color: $text-muted; margin: 0 0 1 0; padding: 0 1; }
    TurnSummaryView:focus { background: $boost; color: $text; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "diff"),  # (the footer, when focused)
        Binding("right", "move(1)", "next file", show=False),
        Binding("left", "move(-1)", "previous file", show=False),
        Binding("R", "revert_turn", "revert turn", id="turn.revert"),
    ]

    _drawn: VisualType | None = None
    """The line last drawn (None: none yet)."""

    def __init__(self, summary: TurnSummary, turns: TurnChanges, root: Path | None = None) -> None:
        super().__init__(markup=False)
        self.summary = summary
        self.turns = turns
        self.root = root
        self.selected = 0
        self.reverted = False
        self._spans: list[tuple[int, int]] = []

    def on_mount(self) -> None:
        """Show the summary."""
        self.show(self.summary)

    def show(self, summary: TurnSummary) -> None:
        """Show `summary` (a turn's changes as they now stand): laid out again only if the line
        takes another height (else only its rows are repainted)."""
        self.summary = summary
        self.selected = min(self.selected, max(self._shown_count() - 1, 0))
        line = self.line()
        self.update(line, layout=not self._same_height(line))

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        super().update(content, layout=layout)
        self._drawn = content

    def _same_height(self, line: Text) -> bool:
        """Whether `line` takes the rows the line drawn now takes, at the width it has."""
        drawn = self._drawn
        width = self.content_size.width
        if drawn is None or not self.is_mounted or width <= 0:
            return False
        rules = self.styles.get_rules()
        height = visualize(self, line, markup=False).get_height(rules, width)
        return height == visualize(self, drawn, markup=False).get_height(rules, width)

    def line(self) -> Text:
        """The summary line, the selected file highlighted."""
        files = self.summary.files
        count = f" {len(files):,} files" if len(files) > MAX_SHOWN else ""
        text = Text(f"Δ changed{count}: ", style="bold")
        self._spans = []
        for index, item in enumerate(files[:MAX_SHOWN]):
            if index:
                text.append(" · ")
            start = len(text)
            text.append(f"+{item.diff.added}", "green")
            text.append(f" \N{MINUS SIGN}{item.diff.removed} ", "red")
            text.append(display_path(item.path, self.root))
            self._spans.append((start, len(text)))
            if index == self.selected and self.has_focus:
                text.stylize("reverse", start, len(text))
        if len(files) > MAX_SHOWN:
            text.append(f" · and {len(files) - MAX_SHOWN:,} more (F2 lists them)", "italic")
        apart = self.summary.apart
        if apart:
            where = sorted({display_path(f.path, self.root).split("/")[0] for f in apart})
            shown = f"apart (ignored or the agent's own): {len(apart)} in {', '.join(where)}"
            text.append(f"  · {shown} (not reverted with the turn; F2)", "dim italic")
        if self.reverted:
            text.append("  (reverted)", "italic")
        else:
            text.append("   enter diff · R revert turn", "dim")
        return text

    def on_click(self, event: events.Click) -> None:
        """A click on a file opens its diff (the line is read left to right, row by row)."""
        at = event.get_content_offset(self)
        if at is None:
            return
        offset = at.y * max(self.content_region.width, 1) + at.x
        for index, (start, end) in enumerate(self._spans):
            if start <= offset < end:
                self.action_open(index)
                return

    def on_focus(self) -> None:
        """Redraw with the selected file marked."""
        self.update(self.line())

    def on_blur(self) -> None:
        """Redraw without the selection mark."""
        self.update(self.line())

    def _shown_count(self) -> int:
        return min(len(self.summary.files), MAX_SHOWN)

    def action_move(self, step: int) -> None:
        """Select the next or previous file, wrapping round."""
        if self.summary.files:
            self.selected = (self.selected + step) % self._shown_count()
            self.update(self.line())

    def action_open(self, index: int | None = None) -> None:
        """Open the selected file's diff (or file `index`)."""
        from acp_tui.ui.screens.diff_screen import DiffScreen

        if index is not None:
            self.selected = index
        if 0 <= self.selected < self._shown_count():
            diff = self.summary.files[self.selected].diff
            self.app.push_screen(DiffScreen([diff], root=self.root))

    @work(exclusive=True, group="turn-revert")
    async def action_revert_turn(self) -> None:
        """Ask, then revert every file the turn changed through the host."""
        files = self.summary.files
        if not files:
            return
        question = Question(
            "revert_turn",
            f"Revert everything turn {self.summary.turn} changed?",
            revert_plan(files),
            (Choice(REVERT, "Revert", "y"), Choice(KEEP, "Keep", "n")),
        )
        from acp_tui.ui.screens.question import QuestionScreen  # (asked: not on the first screen)

        answer = await self.app.push_screen_wait(QuestionScreen(question))
        if answer != REVERT:
            return
        result = await self.turns.revert(self.summary.turn)
        self.reverted = bool(result.reverted) and not result.skipped
        self.update(self.line())
        message = f"reverted {len(result.reverted)} file(s) of turn {self.summary.turn}"
        if result.skipped:
            skipped = "; ".join(f"{path.name}: {why}" for path, why in result.skipped)
            notify(self, f"{message}; left alone: {skipped}", severity="warning")
        else:
            notify(self, message, timeout=4)

"""Compare two sessions' changes side by side and pick the one to apply.

`CompareScreen(left, right)` takes two `NamedChanges` (a name, the diffs, the directory their
paths are under). Files are matched by their path relative to each side's root and listed on the
left (``path   L +a -r   R +a -r``, a side that did not touch the file shows ``-``); for the
selected file the two sides' diffs against the same base are shown in a `DiffView` each, side by
side when the screen is wide enough (`SIDE_BY_SIDE_WIDTH`), one above the other when narrow.
``1`` dismisses with "left", ``2`` with "right" (the app runs the apply flow), Esc with None.

Names and paths are drawn as `Text` (never markup) after `safe_line`; the diffs' texts are made
safe by the diff view itself.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import ClassVar, Literal

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.client.session.overview import NamedChanges
from acp_tui.client.write_review import display_path
from acp_tui.safe_text import safe_line
from acp_tui.thread.diff import FileDiff
from acp_tui.ui.plain import notify
from acp_tui.ui.widgets.diff_view import DiffView

Side = Literal["left", "right"]
SIDE_BY_SIDE_WIDTH = 160
"""From this many columns the two diffs are side by side, below it one above the other."""
EMPTY_TEXT = "Neither session changed a file."
KEY_HELP = (
    "1 apply left · 2 apply right · ↑/↓ file · tab focus list/diffs · n/p hunk · s split · "
    "esc close"
)


@dataclasses.dataclass(frozen=True)
class ComparedFile:
    """One file either side changed: its path for display and each side's diff (None: untouched)."""

    shown: str
    left: FileDiff | None
    right: FileDiff | None


def compared_files(left: NamedChanges, right: NamedChanges) -> list[ComparedFile]:
    """The files either side changed, matched by path relative to each side's root, in the
    order the left side changed them, then the right side's others."""
    sides: dict[str, dict[Side, FileDiff]] = {}
    pairs: tuple[tuple[Side, NamedChanges], ...] = (("left", left), ("right", right))
    for side, named in pairs:
        for diff in named.changes:
            shown = display_path(Path(diff.path), named.root)
            sides.setdefault(shown, {})[side] = diff  # its header names the side's own path
    return [ComparedFile(shown, d.get("left"), d.get("right")) for shown, d in sides.items()]


def _counts(diff: FileDiff | None) -> Text:
    if diff is None:
        return Text("     -", style="dim")
    text = Text(f"+{diff.added}".rjust(5), style="green")
    text.append(f" -{diff.removed}", style="red")
    return text


def file_label(item: ComparedFile) -> Text:
    """One line for a compared file: +/- counts of the left and right session, then its (terminal-
    safe) path.
    """
    text = Text(no_wrap=True, overflow="ellipsis", end="")
    text.append("L", style="bold")
    text.append_text(_counts(item.left))
    text.append("  R", style="bold")
    text.append_text(_counts(item.right))
    text.append(f"  {item.shown}")
    return text


class CompareScreen(ModalScreen[Side | None]):
    """Two sessions' changes, file by file, side by side; 1/2 picks the side to apply."""

    DEFAULT_CSS = """
    CompareScreen { align: center middle; }
    CompareScreen > Vertical {
        width: 98%; height: 95%; border: thick $accent; background: $surface;
    }
    CompareScreen #compare-title { height: 1; padding: 0 1; }
    CompareScreen #compare-body { height: 1fr; }
    CompareScreen #compare-files { width: 44; max-width: 35%; height: 1fr; }
    CompareScreen #compare-sides { width: 1fr; height: 1fr; layout: horizontal; }
    CompareScreen #compare-sides.stacked { layout: vertical; }
    CompareScreen .compare-side { width: 1fr; height: 1fr; }
    CompareScreen .compare-name { height: 1; padding: 0 1; background: $panel; }
    CompareScreen .compare-side DiffView { height: 1fr; }
    CompareScreen .compare-untouched { color: $text-muted; padding: 1 2; height: auto; }
    CompareScreen #compare-sides.stacked .compare-side.untouched { height: auto; }
    CompareScreen #compare-empty { color: $text-muted; padding: 1 2; }
    CompareScreen #compare-keys { background: $panel; color: $text-muted; padding: 0 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "apply('left')", "Apply left"),
        Binding("2", "apply('right')", "Apply right"),
        Binding("escape,q", "close", "Close"),
    ]

    def __init__(self, left: NamedChanges, right: NamedChanges) -> None:
        super().__init__()
        # names are made safe where they are made (`named_changes`); again here for any other maker
        self.left = dataclasses.replace(left, name=safe_line(left.name))
        self.right = dataclasses.replace(right, name=safe_line(right.name))
        self.files = compared_files(self.left, self.right)
        self.selected: ComparedFile | None = None
        self.shows = 0
        """How many times a file's diffs were shown; tests wait on it."""

    def compose(self) -> ComposeResult:
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append("Compare  ", style="bold")
        title.append("1 ", style="bold")
        title.append(self.left.name, style="bold cyan")
        title.append("  with  ")
        title.append("2 ", style="bold")
        title.append(self.right.name, style="bold magenta")
        with Vertical():
            yield Static(title, id="compare-title")
            with Horizontal(id="compare-body"):
                options = [Option(file_label(item)) for item in self.files]
                yield OptionList(*options, id="compare-files")
                yield Horizontal(id="compare-sides")
            yield Static(EMPTY_TEXT, id="compare-empty", markup=False)
            yield Static(KEY_HELP, id="compare-keys", markup=False)

    def on_mount(self) -> None:
        """Show the files (or the empty note), lay the two diffs out for the width and select the
        first file.
        """
        self.query_one("#compare-empty").display = not self.files
        self.query_one("#compare-body").display = bool(self.files)
        self._arrange()
        files = self.query_one(OptionList)
        files.focus()
        if self.files:
            files.highlighted = 0

    def on_resize(self) -> None:
        """Switch between side-by-side (160 columns and wider) and stacked diffs."""
        self._arrange()

    def _arrange(self) -> None:
        stacked = self.app.size.width < SIDE_BY_SIDE_WIDTH
        self.query_one("#compare-sides").set_class(stacked, "stacked")

    @on(OptionList.OptionHighlighted, "#compare-files")
    async def _file_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        await self.show(self.files[event.option_index])

    async def show(self, item: ComparedFile) -> None:
        """Show `item`'s two diffs, each under its side's name."""
        self.selected = item
        sides = self.query_one("#compare-sides")
        await sides.remove_children()
        panes = [
            self._pane(self.left, "cyan", item.left),
            self._pane(self.right, "magenta", item.right),
        ]
        await sides.mount_all(panes)
        self.shows += 1

    def _pane(self, side: NamedChanges, color: str, diff: FileDiff | None) -> Vertical:
        name = side.name
        label = Text(no_wrap=True, overflow="ellipsis")
        label.append(name, style=f"bold {color}")
        if diff is None:
            body: Static | DiffView = Static(
                Text(f"{name} did not change this file."), classes="compare-untouched"
            )
        else:
            label.append(f"  +{diff.added} -{diff.removed}", style="dim")
            body = DiffView(diff, layout="unified", root=side.root)
        classes = "compare-side" if diff is not None else "compare-side untouched"
        return Vertical(Static(label, classes="compare-name"), body, classes=classes)

    def action_apply(self, side: Side) -> None:
        """Dismiss with the side to apply; a session that changed no files says so and stays."""
        named = self.left if side == "left" else self.right
        if not named.changes:
            notify(self, f"{named.name} changed no files: nothing to apply.", severity="warning")
            return
        self.dismiss(side)

    def action_close(self) -> None:
        """Close without applying anything."""
        self.dismiss(None)

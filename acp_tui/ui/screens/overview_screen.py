"""The workspace overview: every session in one table, refreshed live; Enter opens one.

`OverviewScreen(rows, current)` reads `rows()` (the app's sessions as `SessionRow`s, in tab
order) when it opens and every half second while shown, and redraws only the cells that
changed. Columns: the agent (and the session's title), where it works (directory, or worktree
branch and path), its state (and why: what it waits for, how it crashed), elapsed time (of the
running turn, else since the session started), context usage and cost, files changed with lines
added/removed, the last line of the agent's last message. A terminal too narrow for every
column (80 columns) drops them in `DROPPED_FIRST`'s order rather than scroll sideways, and the
title names what it left out. The cursor starts on `current`; Enter dismisses with the chosen
row's index, Esc with None.

Every cell is a `rich.text.Text` (a `DataTable` parses `str` cells as markup), built from the
row's texts, which are already made safe for the terminal: nothing the agent wrote is markup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.coordinate import Coordinate
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from acp_tui.client.session.overview import RowState, SessionRow
from acp_tui.ui.widgets.status_bar import format_elapsed, format_tokens

REFRESH_SECONDS = 0.5
KEY_HELP = "↑/↓ choose · enter open · esc close"
EMPTY_TEXT = "No sessions."
COLUMNS: tuple[tuple[str, int | float], ...] = (
    ("#", 2),
    ("agent", 0.25),
    ("where", 0.3),
    ("state", 18),
    ("elapsed", 7),
    ("tokens · cost", 18),
    ("files", 12),
    ("last line", 0.45),
)
"""Each column's label and width: columns (int), or a share (float) of what those leave."""
MIN_SHARED = 8
DROPPED_FIRST = (7, 5, 6, 4, 2)
"""The columns left out, in this order, while the others do not fit: last line, tokens ·
cost, files, elapsed, where (the number, agent and state stay)."""


def column_widths(total: int, padding: int) -> list[int]:
    """The columns' widths for a table `total` cells wide (each column padded `padding` a side),
    0 for a column left out: the fewest left out (`DROPPED_FIRST`) for the rest to fit, the
    shared columns at least `MIN_SHARED` wide."""
    shown = list(range(len(COLUMNS)))
    for dropped in (None, *DROPPED_FIRST):
        if dropped is not None:
            shown.remove(dropped)
        fixed = sum(width for i in shown if isinstance(width := COLUMNS[i][1], int))
        shared = [i for i in shown if isinstance(COLUMNS[i][1], float)]
        if fixed + 2 * padding * len(shown) + MIN_SHARED * len(shared) <= total:
            break
    room = max(0, total - fixed - 2 * padding * len(shown))
    shares = sum(COLUMNS[i][1] for i in shared)
    widths = []
    for index, (_, width) in enumerate(COLUMNS):
        if index not in shown:
            widths.append(0)
        elif isinstance(width, int):
            widths.append(width)
        else:
            widths.append(max(MIN_SHARED, int(room * width / shares)))
    return widths


STATE_STYLES: dict[RowState, str] = {
    RowState.CRASHED: "bold red",
    RowState.FAILED: "bold red",
    RowState.NEEDS_YOU: "bold magenta",
    RowState.WORKING: "bold yellow",
    RowState.STARTING: "yellow",
    RowState.UNREAD: "bold cyan",
    RowState.IDLE: "dim",
    RowState.CLOSED: "dim",
}


def row_cells(index: int, row: SessionRow, where_width: int) -> tuple[Text, ...]:
    """The table cells of one row (every one a `Text`: never parsed as markup)."""
    return (
        Text(str(index + 1) if index < 9 else "", style="dim"),
        _agent(row),
        _where(row, where_width),
        _state(row),
        Text(format_elapsed(row.elapsed), style="yellow" if row.turn_running else "dim"),
        _usage(row),
        _files(row),
        _one_line(row.last_line),
    )


def _one_line(text: str, style: str = "") -> Text:
    return Text(text, style=style, no_wrap=True, overflow="ellipsis", end="")


def _agent(row: SessionRow) -> Text:
    text = _one_line(row.agent, "bold")
    if row.title:
        text.append(f" {row.title}", style="dim")
    return text


def _where(row: SessionRow, width: int) -> Text:
    text = _one_line("")
    room = width
    if row.branch is not None:
        text.append(f"⎇ {row.branch} ", style="bold green")
        room -= len(row.branch) + 3
    place = row.place
    if room > 1 and len(place) > room:  # the end of a path says most: cut its start
        place = "…" + place[len(place) - room + 1 :]
    text.append(place)
    return text


def _state(row: SessionRow) -> Text:
    text = _one_line(str(row.state), STATE_STYLES[row.state])
    if row.reason:
        text.append(f": {row.reason}", style="dim")
    return text


def _usage(row: SessionRow) -> Text:
    text = _one_line("", "dim")
    if row.tokens_used is not None:
        text.append(format_tokens(row.tokens_used))
        if row.tokens_size:
            text.append(f"/{format_tokens(row.tokens_size)}")
    if row.cost is not None:
        amount, currency = row.cost
        symbol = "$" if currency == "USD" else f"{currency} "
        text.append(f"{' ' if text else ''}{symbol}{amount:.2f}")
    return text


def _files(row: SessionRow) -> Text:
    if not row.files:
        return _one_line("-", "dim")
    text = _one_line(f"{row.files} ")
    text.append(f"+{row.added}", style="green")
    text.append(f" -{row.removed}", style="red")
    return text


def _same(one: Text, other: Text) -> bool:
    # `Text.__eq__` compares the characters and spans, not the base style
    return one == other and one.style == other.style


class OverviewScreen(ModalScreen[int | None]):
    """Every session, one row each, refreshed live; Enter opens one, Esc closes."""

    DEFAULT_CSS = """
    OverviewScreen { align: center middle; }
    OverviewScreen > Vertical {
        width: 96%; height: auto; max-height: 90%; border: thick $accent; background: $surface;
    }
    OverviewScreen #overview-title { text-style: bold; padding: 0 1; }
    OverviewScreen DataTable { height: auto; max-height: 1fr; }
    OverviewScreen #overview-empty { color: $text-muted; padding: 1 2; }
    OverviewScreen #overview-keys { background: $panel; color: $text-muted; padding: 0 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "close", "Close")]

    def __init__(self, rows: Callable[[], list[SessionRow]], current: int) -> None:
        super().__init__()
        self.rows = rows
        self.current = current
        self.shown: list[tuple[Text, ...]] = []
        """The cells on screen, row by row (tests read them)."""
        self.widths: list[int] = []
        self.refreshes = 0
        """How many times the rows were read; tests wait on it."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Sessions", id="overview-title", markup=False)
            table: DataTable[Text] = DataTable(cursor_type="row", zebra_stripes=True)
            yield table
            yield Static(EMPTY_TEXT, id="overview-empty", markup=False)
            yield Static(KEY_HELP, id="overview-keys", markup=False)

    def on_mount(self) -> None:
        """Build the table, put the cursor on the current session and refresh the rows every
        `REFRESH_SECONDS`.
        """
        self._add_columns()
        self.refresh_rows()
        table = self.query_one(DataTable)
        if self.shown:
            table.move_cursor(row=max(0, min(self.current, len(self.shown) - 1)))
        table.focus()
        self.set_interval(REFRESH_SECONDS, self.refresh_rows)

    def on_resize(self) -> None:
        """Rebuild the columns when the width changes their sizes, keeping the cursor's row."""
        if self._table_widths() != self.widths:
            table = self.query_one(DataTable)
            cursor = table.cursor_row
            table.clear(columns=True)
            self._add_columns()
            self.shown = []
            self.refresh_rows()
            if self.shown:
                table.move_cursor(row=min(cursor, len(self.shown) - 1))

    def _table_widths(self) -> list[int]:
        """The columns' widths in the frame (96% of the screen, its border, a scrollbar)."""
        inner = self.app.size.width * 96 // 100 - 2 - 1
        return column_widths(inner, self.query_one(DataTable).cell_padding)

    def _add_columns(self) -> None:
        table = self.query_one(DataTable)
        self.widths = self._table_widths()
        for (label, _), width in zip(COLUMNS, self.widths, strict=True):
            if width:
                table.add_column(Text(label, style="bold"), width=width)

    def _on_table(self, cells: tuple[Text, ...]) -> list[Text]:
        """The cells of the columns the table shows."""
        return [cell for cell, width in zip(cells, self.widths, strict=True) if width]

    def refresh_rows(self) -> None:
        """Read the rows again; redraw the cells that changed (all when the count changed)."""
        table: DataTable[Text] = self.query_one(DataTable)
        where = self.widths[2]
        cells = [row_cells(index, row, where) for index, row in enumerate(self.rows())]
        self.refreshes += 1
        if len(cells) != len(self.shown):
            cursor = table.cursor_row
            table.clear()
            for index, row in enumerate(cells):
                table.add_row(*self._on_table(row), key=str(index))
            if cells:
                table.move_cursor(row=max(0, min(cursor, len(cells) - 1)))
        else:
            for index, (new, old) in enumerate(zip(cells, self.shown, strict=True)):
                pairs = zip(self._on_table(new), self._on_table(old), strict=True)
                for column, (cell, before) in enumerate(pairs):
                    if not _same(cell, before):
                        table.update_cell_at(Coordinate(index, column), cell)
        self.shown = cells
        title = Text(f"Sessions ({len(cells)})")
        left_out = [label for (label, _), width in zip(COLUMNS, self.widths, strict=True)
                    if not width]  # fmt: skip
        if left_out:
            title.append(f"  (not shown at this width: {', '.join(left_out)})", style="dim")
        self.query_one("#overview-title", Static).update(title)
        self.query_one("#overview-empty").display = not cells
        table.display = bool(cells)

    @on(DataTable.RowSelected)
    def _open(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.dismiss(event.cursor_row)

    def action_close(self) -> None:
        """Close the overview."""
        self.dismiss(None)

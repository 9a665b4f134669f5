"""The workspace overview's screen (ctrl+o): `OverviewScreen` with the workspace's actions on
the selected row. Imported when the overview first opens (its table is not on the first
screen)."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Static

from acp_tui.client.session.overview import SessionRow
from acp_tui.ui.screens.overview_screen import KEY_HELP, OverviewScreen


class WorkspaceOverview(OverviewScreen):
    """`OverviewScreen` with the workspace's actions on the selected row: `a` apply its
    worktree, `c` compare it with the current tab."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *OverviewScreen.BINDINGS,
        Binding("a", "row('apply')", "Apply worktree", id="overview.apply"),
        Binding("c", "row('compare')", "Compare with current", id="overview.compare"),
    ]

    def __init__(
        self, rows: Callable[[], list[SessionRow]], current: int, act: Callable[[str, int], None]
    ) -> None:
        super().__init__(rows, current)
        self.act = act

    def on_mount(self) -> None:
        super().on_mount()
        help_line = f"{KEY_HELP} · a apply worktree · c compare with current"
        self.query_one("#overview-keys", Static).update(Text(help_line))

    def action_row(self, what: str) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        if not self.shown:
            return
        index = table.cursor_row
        self.dismiss(None)
        self.act(what, index)

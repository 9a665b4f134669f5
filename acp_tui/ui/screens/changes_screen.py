"""The Changes view: every file the session wrote, with its diff against the content before the
session first touched it; any hunk or whole file can be reverted from here.

Left: a filter and the files (``+N -M path``): edits to files that existed before the session
first, then deletions, then new files, each group in the order first written
(`acp_tui.client.changed_files`), so a real edit never hides behind many new files. ``/`` goes to
the filter; typing there narrows the list to the paths holding every word typed (enter or down
goes back to the list). Right: a `DiffView` of the selected file, original → what is on disk now.
Keys: ``r`` revert the current hunk, ``R`` revert the whole file (to the exact original bytes; a
file the session created is deleted), ``escape``/``q`` close; ``tab`` moves between the filter,
the list and the diff (``n``/``p``/``s`` work in the diff).

Reverts go through the file host (`acp_tui.host.reverts.Reverts`: the per-path lock, the
directory-fd walk, the boundary's questions, the atomic write) and are recorded in the
`ChangeLog` with `reverts` set to the file's first record (the one that holds the original): a
whole-file revert is `Reverts.revert_record(first_id)`, a hunk revert `Reverts.restore` of the
merged text. A revert that would delete or empty the file asks first. The view follows the log:
new writes (the agent's or a revert) refresh the list and the diff, once per `ChangeLog.settled`
(a reload that is running finishes first, then one more runs).

Many files (an agent that created 20,000): the view opens at once and says what it is reading;
the files are read and diffed `SLICE` at a time in a thread (the progress in the title between
slices), the first `MAX_LISTED` (in the order above, of those the filter matches) listed, then a
line "… and N more files (not listed; / filters)". Files are read again only when the log
changed or the filter brought them into the list.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.client.changed_files import FileKind, matching, ordered_files
from acp_tui.client.write_review import display_path
from acp_tui.host.asker import Choice, Question
from acp_tui.host.change_log import ChangeLog, WriteRecord
from acp_tui.host.local_files import LocalFileError, read_regular
from acp_tui.host.reverts import Expect, RevertError, Reverts
from acp_tui.thread.diff import FileDiff, compute_diff, revert_hunks
from acp_tui.ui.plain import notify
from acp_tui.ui.screens.question import QuestionScreen
from acp_tui.ui.widgets.diff_view import DiffView

EMPTY_TEXT = "No files written in this session yet."
NO_MATCH_TEXT = "No file matches the filter."
LOADING_TEXT = "Reading the changed files…"
TITLE = "Changes in this session"
SLICE = 100
"""Files read and diffed in one go between two returns to the event loop."""
FILTER_PAUSE = 0.15
"""Seconds without a key in the filter before the list is narrowed."""
MAX_LISTED = 1000
"""Files listed (read and diffed); the rest are counted on one line at the end."""
REVERT = "revert"
KEEP = "keep"
KEY_HELP = (
    "r revert hunk · R revert file · n/p next/prev hunk · s split · / filter · "
    "tab focus filter/list/diff · esc close"
)


@dataclass(frozen=True)
class FileChange:
    """One written file as it stands: its diff from the original to the disk now."""

    path: Path
    diff: FileDiff
    exists: bool
    exact: bool  # the disk content is valid UTF-8 (hunks can be reverted one by one)


def load_changes(log: ChangeLog, paths: list[Path]) -> dict[Path, FileChange]:
    """(blocking) `load_change` of each path, in order."""
    return {path: load_change(log, path) for path in paths}


def load_change(log: ChangeLog, path: Path) -> FileChange:
    """Read `path` now and diff it against its original (blocking: run in a thread)."""
    try:
        data = read_regular(path, follow=True)
    except LocalFileError:
        data = None  # not a regular file (or too large): shown as gone
    exact = True
    if data is None:
        current = ""
    else:
        try:
            current = data.decode("utf-8")
        except UnicodeDecodeError:
            current, exact = data.decode("utf-8", errors="replace"), False
    return FileChange(
        path, compute_diff(str(path), log.original(path), current), data is not None, exact
    )


class ChangesScreen(ModalScreen[None]):
    """Lists the session's written files; shows and reverts their changes."""

    DEFAULT_CSS = """
    ChangesScreen { align: center middle; }
    ChangesScreen > Vertical {
        width: 96%; height: 94%; border: thick $accent; background: $surface;
    }
    ChangesScreen #changes-title { text-style: bold; padding: 0 1; }
    ChangesScreen Horizontal { height: 1fr; }
    ChangesScreen #changes-side { width: 40; max-width: 40%; height: 1fr; }
    ChangesScreen #changes-files { height: 1fr; }
    ChangesScreen #changes-detail { width: 1fr; height: 1fr; }
    ChangesScreen #changes-detail DiffView { height: 1fr; }
    ChangesScreen #changes-empty { color: $text-muted; padding: 1 2; }
    ChangesScreen #changes-keys { background: $panel; color: $text-muted; padding: 0 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "revert_hunk", "Revert hunk"),
        Binding("R", "revert_file", "Revert file"),
        Binding("escape,q", "close", "Close"),
        Binding("slash", "filter", "Filter", show=False),
        # the diff's own keys, also when the file list has focus
        Binding("n,right_square_bracket", "diff('next_hunk')", "Next hunk", show=False),
        Binding("p,left_square_bracket", "diff('previous_hunk')", "Previous hunk", show=False),
        Binding("s", "diff('toggle_layout')", "Split/unified", show=False),
    ]

    def __init__(self, reverts: Reverts, *, root: Path | None = None) -> None:
        super().__init__()
        self.reverts = reverts
        self.change_log: ChangeLog = reverts.changes
        self.root = root
        self.changes: dict[Path, FileChange] = {}
        self.selected: Path | None = None
        self._shown: Path | None = None
        self._show_lock = asyncio.Lock()
        self.loads = 0
        """How many times the list was (re)loaded from disk; tests wait on it."""
        self._unsubscribe: Callable[[], None] | None = None
        self._busy = False
        self._loading = False
        self._stale = False
        self._log_changed = False
        self._shown_paths: dict[Path, str] = {}
        self._filtering: Timer | None = None

    def compose(self) -> ComposeResult:
        waiting = LOADING_TEXT if self.change_log.records else EMPTY_TEXT
        with Vertical():
            yield Static(TITLE, id="changes-title", markup=False)
            with Horizontal():
                with Vertical(id="changes-side"):
                    yield Input(placeholder="filter (/)", id="changes-filter")
                    yield OptionList(id="changes-files")
                with Vertical(id="changes-detail"):
                    yield Static(waiting, id="changes-empty", markup=False)
            yield Static(KEY_HELP, id="changes-keys", markup=False)

    def on_mount(self) -> None:
        """Follow the change log (reloading when a slice of records settles) and list the changed
        files.
        """
        self._unsubscribe = self.change_log.settled.subscribe(self._on_settled)
        self.query_one(OptionList).focus()
        self.reload()

    def on_unmount(self) -> None:
        """Stop following the change log."""
        if self._unsubscribe is not None:
            self._unsubscribe()

    def _on_settled(self, _: None) -> None:
        self.read_again()

    def read_again(self) -> None:
        """Read every listed file again (the log or the disk changed) and redraw."""
        self._log_changed = True
        self._refresh()

    def _refresh(self) -> None:
        """Redraw the list (reading the files that are not read yet)."""
        if self._loading:
            self._stale = True  # the reload running now is followed by one more
        else:
            self.reload()

    # ---- loading ------------------------------------------------------------------------------

    @work(exclusive=True, group="changes-reload")
    async def reload(self) -> None:
        """Re-read the written files and redraw the list and the selected diff."""
        self._loading = True
        try:
            self._stale = True
            while self._stale:
                self._stale = False
                await self._load()
        finally:
            self._loading = False

    def _shown_path(self, path: Path) -> str:
        shown = self._shown_paths.get(path)
        if shown is None:
            shown = self._shown_paths[path] = display_path(path, self.root)
        return shown

    @property
    def filter_text(self) -> str:
        """What the filter holds now."""
        return self.query_one("#changes-filter", Input).value

    async def _load(self) -> None:
        if self._log_changed:
            self._log_changed = False
            self.changes = {}
        every = ordered_files(self.change_log)
        needle = self.filter_text
        paths = [path for path, _ in matching(every, needle, self._shown_path)]
        listed = paths[:MAX_LISTED]
        loaded = {path: self.changes[path] for path in listed if path in self.changes}
        unread = [path for path in listed if path not in loaded]
        title = self.query_one("#changes-title", Static)
        for first in range(0, len(unread), SLICE):
            if len(unread) > SLICE:
                title.update(f"{TITLE} · reading {first:,} of {len(unread):,} files…")
            chunk = unread[first : first + SLICE]
            loaded.update(await asyncio.to_thread(load_changes, self.change_log, chunk))
        title.update(_title(every, len(paths), needle))
        self.changes = {path: loaded[path] for path in listed}
        options = [Option(self._label(self.changes[path]), id=str(path)) for path in listed]
        if len(paths) > len(listed):
            more = f"… and {len(paths) - len(listed):,} more files (not listed; / filters)"
            options.append(Option(Text(more, "italic"), disabled=True))
        files = self.query_one(OptionList)
        files.set_options(options)
        if self.selected not in loaded:
            self.selected = listed[0] if listed else None
        if self.selected is not None:
            files.highlighted = listed.index(self.selected)
        await self._show(self.selected)
        self.loads += 1

    def _label(self, change: FileChange) -> Text:
        diff = change.diff
        label = Text(no_wrap=True, overflow="ellipsis")
        if diff.hunks:
            label.append(f"+{diff.added}", style="green")
            label.append(f" \N{MINUS SIGN}{diff.removed} ", style="red")
        label.append(display_path(change.path, self.root))
        if not change.exists:
            label.append("  (removed)", style="dim italic")
        elif not diff.hunks:
            label.append("  (as before)", style="dim italic")
        whose = self._whose(change.path)
        if whose:
            label.append(f"\n  {whose}", style="dim")
        return label

    def _whose(self, path: Path) -> str:
        """Who made the file's latest change, when acp-tui did not write it (the monitor saw)."""
        for record in reversed(self.change_log.records_for(path)):
            if record.reverts is None:
                return record.observed.describe() if record.observed is not None else ""
        return ""

    async def _show(self, path: Path | None) -> None:
        async with self._show_lock:
            detail = self.query_one("#changes-detail", Vertical)
            old_views = list(detail.query(DiffView))
            layout = old_views[0].layout_mode if old_views else "auto"
            hunk = old_views[0].current_hunk if old_views and path == self._shown else 0
            had_focus = any(view.has_focus for view in old_views)
            self._shown = path
            await detail.remove_children()
            if path is None or path not in self.changes:
                empty = NO_MATCH_TEXT if self.filter_text.strip() else EMPTY_TEXT
                await detail.mount(Static(empty, id="changes-empty", markup=False))
                return
            view = DiffView(self.changes[path].diff, layout=layout, root=self.root)
            await detail.mount(view)
            if view.diff.hunks:
                view.go_to_hunk(min(hunk, len(view.diff.hunks) - 1))
            if had_focus:
                view.focus()

    @on(OptionList.OptionHighlighted)
    async def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        path = Path(event.option.id) if event.option.id else None
        if path != self.selected or path != self._shown:
            self.selected = path
            await self._show(path)

    # ---- the filter ---------------------------------------------------------------------------

    def action_filter(self) -> None:
        """Go to the filter."""
        self.query_one("#changes-filter", Input).focus()

    @on(Input.Changed, "#changes-filter")
    def _filter_changed(self) -> None:
        """Narrow the list once the user pauses (`FILTER_PAUSE`): a burst of keys filters once."""
        if self._filtering is not None:
            self._filtering.stop()
        self._filtering = self.set_timer(FILTER_PAUSE, self._refresh)

    @on(Input.Submitted, "#changes-filter")
    def _filter_done(self) -> None:
        self.query_one(OptionList).focus()

    def on_key(self, event: events.Key) -> None:
        """Down in the filter goes to the list."""
        if event.key == "down" and self.query_one("#changes-filter", Input).has_focus:
            event.stop()
            self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        for view in self.query(DiffView):
            view.focus()

    # ---- reverting ----------------------------------------------------------------------------

    def _current(self) -> tuple[FileChange, int] | None:
        change = self.changes.get(self.selected) if self.selected is not None else None
        views = list(self.query(DiffView))
        if change is None or not change.diff.hunks or not views:
            notify(self, "Nothing to revert here.", timeout=3)
            return None
        return change, views[0].current_hunk

    def action_revert_hunk(self) -> None:
        """Revert the highlighted hunk through the host (one revert at a time)."""
        current = self._current()
        if current is not None and not self._busy:
            self._busy = True
            self._revert_hunk(*current)

    @work(exclusive=True, group="changes-revert")
    async def _revert_hunk(self, change: FileChange, index: int) -> None:
        try:
            if len(change.diff.hunks) == 1:
                await self._revert_whole(change)
                return
            if not change.exact:
                notify(
                    self,
                    f"{change.path.name} is not valid UTF-8 now: "
                    "only the whole file can be reverted.",
                    severity="warning",
                )
                return
            if not await self._unchanged_since_shown(change):
                return
            content = revert_hunks(change.diff, {index})
            first = self.change_log.records_for(change.path)[0]
            try:
                await self.reverts.restore(
                    change.path,
                    content.encode("utf-8"),
                    reverts=first.id,
                    expected=change.diff.new_text.encode("utf-8"),
                )
            except RevertError as error:
                notify(self, f"Could not revert: {error}", severity="error")
                return
            shown = display_path(change.path, self.root)
            notify(self, f"reverted hunk {index + 1} of {shown}", timeout=4)
        finally:
            self._busy = False

    def action_revert_file(self) -> None:
        """Revert every change of the highlighted file through the host (one revert at a time)."""
        current = self._current()
        if current is not None and not self._busy:
            self._busy = True
            self._revert_file(current[0])

    @work(exclusive=True, group="changes-revert")
    async def _revert_file(self, change: FileChange) -> None:
        try:
            await self._revert_whole(change)
        finally:
            self._busy = False

    async def _revert_whole(self, change: FileChange) -> None:
        if not await self._unchanged_since_shown(change):
            return
        first = self.change_log.records_for(change.path)[0]
        shown = display_path(change.path, self.root)
        if not await self._confirm_loss(change, first, shown):
            return
        expected: bytes | Expect | None = Expect.ANY
        if change.exact:
            expected = change.diff.new_text.encode("utf-8") if change.exists else None
        try:
            await self.reverts.revert_record(first.id, expected=expected)
        except RevertError as error:
            notify(self, f"Could not revert: {error}", severity="error")
            return
        what = "deleted" if first.before is None else "restored"
        notify(self, f"reverted {shown} ({what} as before the session)", timeout=4)

    async def _confirm_loss(self, change: FileChange, first: WriteRecord, shown: str) -> bool:
        """Ask before a revert that deletes or empties the file; True to go on."""
        if not change.exists or first.before_omitted:
            return True
        if first.before is None:
            title = f"Delete {shown}?"
            detail = f"{shown} did not exist before the session: reverting it deletes the file."
        elif first.before == "" and first.before_bytes is None:
            title = f"Empty {shown}?"
            detail = f"{shown} was empty before the session: reverting it empties the file."
        else:
            return True
        question = Question(
            "revert_loses_file",
            title,
            detail,
            (Choice(REVERT, "Revert", "y"), Choice(KEEP, "Keep", "n")),
            data={"path": str(change.path)},
        )
        return await self.app.push_screen_wait(QuestionScreen(question)) == REVERT

    async def _unchanged_since_shown(self, change: FileChange) -> bool:
        """False (and refresh) when the file changed on disk since its diff was drawn."""
        now = await asyncio.to_thread(load_change, self.change_log, change.path)
        if now.diff.new_text == change.diff.new_text and now.exists == change.exists:
            return True
        notify(
            self,
            f"{change.path.name} changed on disk: the diff was refreshed, nothing was reverted.",
            severity="warning",
        )
        self.read_again()
        return False

    def action_diff(self, action: str) -> None:
        """Run a diff-view action (scroll, next/previous hunk, ...) on every diff shown."""
        run = _DIFF_ACTIONS[action]
        for view in self.query(DiffView):
            run(view)

    def action_close(self) -> None:
        """Close the changes list."""
        self.dismiss(None)


def _title(files: list[tuple[Path, FileKind]], matched: int, needle: str) -> str:
    """The view's title: how many files match the filter, or (many files) how many of each
    kind."""
    if needle.strip():
        return f"{TITLE} · {matched:,} of {len(files):,} file{'s' * (len(files) != 1)} match"
    if len(files) <= SLICE:
        return TITLE
    counts = [sum(1 for _, kind in files if kind is each) for each in FileKind]
    edited, deleted, new = counts
    return f"{TITLE} · {len(files):,} files: {edited:,} edited, {deleted:,} deleted, {new:,} new"


_DIFF_ACTIONS: dict[str, Callable[[DiffView], None]] = {
    "next_hunk": DiffView.action_next_hunk,
    "previous_hunk": DiffView.action_previous_hunk,
    "toggle_layout": DiffView.action_toggle_layout,
}
"""The diff view's actions the screen's keys forward to every open diff."""

"""The traffic inspector screen: frame list, frame view, conformance summary, filters, search."""

from __future__ import annotations

import time

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, Static, TextArea

from acp_tui.protocol.traffic_rows import RowFilter
from acp_tui.protocol.traffic_store import FrameRecord, TrafficStore
from acp_tui.ui.inspector.frame_list import FrameList
from acp_tui.ui.inspector.key_bar import KeyBar
from acp_tui.ui.inspector.safe import safe_text
from acp_tui.ui.plain import notify

MAX_VIEW_CHARS = 200_000
"""A frame larger than this is shown cut (the copy key still copies all of it)."""
POLL_SECONDS = 0.1
NOT_KEPT = (
    "The text of this frame was not kept: the oldest frames' text is dropped past a budget, "
    "to bound memory in long sessions (use --log FILE to keep every frame)."
)


def frame_view_text(frame: FrameRecord, count: int) -> str:
    """What the frame view shows: a header (pair, latency, marks) and the indented frame."""
    size = f"{len(frame.raw)} bytes" if frame.kept else "text not kept"
    lines = [f"frame {frame.index} · {frame.direction} · {frame.kind} · {size}"]
    if count > 1:
        lines.append(f"first of {count} frames of this kind in a row (g ungroups)")
    if frame.pair >= 0:
        latency = f" after {frame.latency * 1000:.0f} ms" if frame.latency is not None else ""
        what = "answered by" if frame.kind == "request" else "answers"
        lines.append(f"{what} frame {frame.pair}{latency} (p jumps there)")
    elif frame.kind == "request":
        lines.append("no answer yet")
    for mark in frame.marks:
        lines.append(f"⚠ {mark}")
    lines.append("")
    if not frame.kept:
        lines.append(NOT_KEPT)
        return "\n".join(safe_text(line) for line in lines)
    pretty = frame.pretty()
    if len(pretty) > MAX_VIEW_CHARS:
        pretty = pretty[:MAX_VIEW_CHARS] + f"\n… cut at {MAX_VIEW_CHARS} characters (y copies all)"
    lines.extend(pretty.splitlines())
    return "\n".join(safe_text(line) for line in lines)


def summary_text(store: TrafficStore) -> Text:
    """The inspector's summary pane: conformance marks by kind and frame counts by update kind."""
    text = Text()
    text.append("Conformance\n", style="bold")
    if not store.mark_counts:
        text.append("  nothing outside the schema\n", style="green")
    for kind, count in store.mark_counts.most_common():
        text.append(f"  {count:>5}  {kind}\n", style="yellow")
    text.append("\nUpdates by kind\n", style="bold")
    for update, count in store.update_counts.most_common():
        text.append(f"  {count:>5}  {safe_text(update)[:26]}\n")
    text.append("\nMethods\n", style="bold")
    for method, count in store.method_counts.most_common():
        text.append(f"  {count:>5}  {safe_text(method)[:26]}\n")
    return text


class InspectorScreen(Screen[None]):
    """The traffic inspector: every frame of the session from the `TrafficStore`, filtered and
    grouped in a list, the selected frame in full beside a summary."""

    DEFAULT_CSS = """
    InspectorScreen { layout: vertical; }
    InspectorScreen #inspector-header { height: 1; background: $panel; padding: 0 1; }
    InspectorScreen #inspector-body { height: 1fr; }
    InspectorScreen #inspector-left { width: 3fr; }
    InspectorScreen FrameList { height: 2fr; border-top: solid $primary-darken-2; }
    InspectorScreen #frame-view { height: 1fr; border: none; }
    InspectorScreen #summary { width: 38; border-left: solid $primary-darken-2; padding: 0 1; }
    InspectorScreen #summary.hidden { display: none; }
    InspectorScreen #query { dock: bottom; display: none; }
    InspectorScreen #query.open { display: block; }
    """
    BINDINGS = [
        Binding("escape,f12", "close", "close", id="inspector.close"),
        Binding("d", "direction", "direction", id="inspector.direction"),
        Binding("m", "ask('method')", "method", id="inspector.method"),
        Binding("e", "flip('errors_only')", "errors", id="inspector.errors"),
        Binding("x", "flip('marked_only')", "marked", id="inspector.marked"),
        Binding("g", "flip('grouped')", "group", id="inspector.group"),
        Binding("slash", "ask('search')", "search", id="inspector.search"),
        Binding("n", "search_next(1)", "next", show=False, id="inspector.next"),
        Binding("N", "search_next(-1)", "previous", show=False, id="inspector.previous"),
        Binding("p", "pair", "pair", id="inspector.pair"),
        Binding("y", "copy", "copy", id="inspector.copy"),
        Binding("s", "summary", "summary", id="inspector.summary"),
    ]

    def __init__(self, store: TrafficStore) -> None:
        super().__init__()
        self.store = store
        self.row_filter = RowFilter()
        self.search = ""
        self._asking = ""
        self._poll: Timer | None = None
        self.polling = False
        """Whether the store is polled for new frames (only while the screen is shown)."""

    def compose(self) -> ComposeResult:
        yield Static(id="inspector-header", markup=False)
        with Horizontal(id="inspector-body"):
            with Vertical(id="inspector-left"):
                yield FrameList(self.store, id="frames")
                yield TextArea(id="frame-view", read_only=True, soft_wrap=True)
            yield Static(id="summary", markup=False)
        yield Input(id="query")
        yield KeyBar(id="inspector-keys")

    @property
    def frame_list(self) -> FrameList:
        """The screen's frame list."""
        return self.query_one(FrameList)

    def on_mount(self) -> None:
        """Read the recorded frames, put the cursor on the newest and focus the list."""
        if not self.query(FrameList):
            return  # built in the background as the app quits: taken down before it mounted
        frames = self.frame_list
        frames.poll()
        frames.cursor = len(frames.index) - 1
        frames.focus()
        self._refresh_panels()
        # built in the background (see `AcpApp.prepare_inspector`) it waits until shown
        self.polling = self.app.screen is self
        self._poll = self.set_interval(POLL_SECONDS, self._tick, pause=not self.polling)

    def on_screen_resume(self) -> None:
        """Show the frames that arrived while hidden and resume polling."""
        if self._poll is not None:  # else: not mounted yet, on_mount polls
            self._tick()  # frames that arrived while hidden
            self._poll.resume()
            self.polling = True

    def on_screen_suspend(self) -> None:
        """Stop polling while hidden."""
        if self._poll is not None:
            self._poll.pause()  # hidden: nothing to poll for
            self.polling = False

    def _tick(self) -> None:
        if not self.query(FrameList):  # being taken down (the app quits): nothing to draw
            return
        if self.frame_list.poll():
            self._refresh_panels()
        else:
            self._refresh_header()

    def _refresh_panels(self) -> None:
        self._refresh_header()
        summary = self.query_one("#summary", Static)
        if summary.display:
            summary.update(summary_text(self.store), layout=False)  # its size is fixed

    def _refresh_header(self) -> None:
        store = self.store
        rows = len(self.frame_list.index)
        marks = store.mark_counts.total()
        header = (
            f"Traffic · {len(store):,} frames · {rows:,} rows · "
            f"{store.frames_per_second(time.time())} frames/s · {marks} marks · "
            f"{self.row_filter.describe()}"
        )
        if store.dropped_texts:
            header += f" · {store.dropped_texts:,} older frames' text not kept"
        if self.search:
            header += f" · search: {safe_text(self.search)}"
        self.query_one("#inspector-header", Static).update(Text(header), layout=False)

    # ---- selection ----------------------------------------------------------------------

    @on(FrameList.Selected)
    def _show_frame(self, event: FrameList.Selected) -> None:
        view = self.query_one("#frame-view", TextArea)
        view.load_text("" if event.frame is None else frame_view_text(event.frame, event.count))

    def action_pair(self) -> None:
        """Jump to the selected frame's pair (a request's response or a response's request)."""
        frame = self.frame_list.selected_frame
        if frame is None or frame.pair < 0:
            notify(self, "no paired frame")
            return
        self.frame_list.move_to_frame(frame.pair)

    def action_copy(self) -> None:
        """Copy the selected frame, pretty-printed, to the clipboard."""
        frame = self.frame_list.selected_frame
        if frame is not None and not frame.kept:
            notify(self, f"frame {frame.index}'s text was not kept", severity="warning")
        elif frame is not None:
            self.app.copy_to_clipboard(frame.pretty())
            notify(self, f"frame {frame.index} copied ({len(frame.raw)} bytes)")

    def action_close(self) -> None:
        """Close the query field if open, else the inspector."""
        query = self.query_one("#query", Input)
        if query.has_class("open"):
            query.remove_class("open")
            self.frame_list.focus()
            return
        self.dismiss(None)

    # ---- filters ------------------------------------------------------------------------

    def _apply(self, row_filter: RowFilter) -> None:
        self.row_filter = row_filter
        self.frame_list.set_filter(row_filter)
        self._refresh_panels()

    def action_direction(self) -> None:
        """Cycle the direction filter: all, from the agent, to the agent."""
        following = {None: "in", "in": "out", "out": None}[self.row_filter.direction]
        self._apply(self.row_filter.with_(direction=following))

    def action_flip(self, name: str) -> None:
        """Flip one of the filter's switches (`errors_only`, `marked_only`, `grouped`)."""
        row_filter = self.row_filter
        switches = {
            "errors_only": row_filter.errors_only,
            "marked_only": row_filter.marked_only,
            "grouped": row_filter.grouped,
        }
        self._apply(row_filter.with_(**{name: not switches[name]}))

    def action_summary(self) -> None:
        """Show or hide the traffic summary."""
        summary = self.query_one("#summary", Static)
        summary.display = not summary.display
        self._refresh_panels()

    def action_ask(self, what: str) -> None:
        """Open the query field to filter by method (`method`) or search the frames' text."""
        query = self.query_one("#query", Input)
        self._asking = what
        query.placeholder = (
            "method or update kind contains… (empty: any)" if what == "method" else "search…"
        )
        query.value = self.row_filter.method if what == "method" else self.search
        query.add_class("open")
        query.focus()

    @on(Input.Submitted, "#query")
    def _answered(self, event: Input.Submitted) -> None:
        event.input.remove_class("open")
        self.frame_list.focus()
        if self._asking == "method":
            self._apply(self.row_filter.with_(method=event.value.strip()))
        else:
            self.search = event.value
            self.action_search_next(1)

    def action_search_next(self, step: int) -> None:
        """Move to the next (step 1) or previous (-1) row whose frame contains the search."""
        needle = self.search
        if not needle:
            return
        fold = needle == needle.lower()
        frames = self.frame_list
        index, store = frames.index, self.store
        rows = len(index)
        row = frames.cursor
        for _ in range(rows):
            row = (row + step) % rows
            first, count = index.row(row)
            for frame in store.frames[first : first + count]:
                raw = frame.raw.lower() if fold else frame.raw
                if needle in raw:
                    frames.cursor = row
                    self._refresh_header()
                    return
        dropped = store.dropped_texts
        unsearched = f" (the text of the {dropped:,} oldest frames was not kept)" if dropped else ""
        notify(self, f"not found{unsearched}", severity="warning")

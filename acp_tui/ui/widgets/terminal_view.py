"""A live view of one agent terminal: a pyte screen with scrollback, keyboard to the PTY.

Output is collected as it arrives and interpreted at most once per frame; a flood is skipped
through cheaply (see `TerminalEmulator.feed`). The view follows the output while scrolled to
the bottom. Keys typed while focused go to the PTY (Tab / Shift+Tab still move focus);
ctrl+k kills the command's process group. The border shows the command and, once it ended,
its exit status.

With `fit_output` (a terminal in a tool call card) the view is as tall as its output, from one
row up to `MAX_ROWS`, and scrolls beyond; the PTY keeps `MAX_ROWS` rows whatever the view
shows. Without it, the view is a fixed 12 rows and the PTY follows the view's size.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.events import Key, Paste, Resize
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from acp_tui.host.terminals import Terminal
from acp_tui.safe_text import safe_line
from acp_tui.thread.v2.agent_terminals import AgentTerminal, as_terminal_shows

if TYPE_CHECKING:
    from acp_tui.host.terminal_emulator import HistoryLine

FRAME_SECONDS = 1 / 60
FIXED_ROWS = 12
MAX_ROWS = 20
BORDER_ROWS = 2
HISTORY_LINES = 5000
DECTCEM = 25 << 5  # pyte's flag for "cursor visible"

_ANSI_NUMBERS = {
    name: number
    for number, name in enumerate(
        ["black", "red", "green", "brown", "blue", "magenta", "cyan", "white"]
    )
}
_KEY_BYTES = {
    "enter": b"\r",
    "backspace": b"\x7f",
    "escape": b"\x1b",
    "up": b"\x1b[A",
    "down": b"\x1b[B",
    "right": b"\x1b[C",
    "left": b"\x1b[D",
    "home": b"\x1b[H",
    "end": b"\x1b[F",
    "insert": b"\x1b[2~",
    "delete": b"\x1b[3~",
    "pageup": b"\x1b[5~",
    "pagedown": b"\x1b[6~",
    "f1": b"\x1bOP",
    "f2": b"\x1bOQ",
    "f3": b"\x1bOR",
    "f4": b"\x1bOS",
    "f5": b"\x1b[15~",
    "f6": b"\x1b[17~",
    "f7": b"\x1b[18~",
    "f8": b"\x1b[19~",
    "f9": b"\x1b[20~",
    "f10": b"\x1b[21~",
    "f11": b"\x1b[23~",
    "f12": b"\x1b[24~",
}
_FOCUS_KEYS = {"tab", "shift+tab"}


def key_to_bytes(key: str, character: str | None) -> bytes | None:
    """What a terminal would send for a Textual key, or None for keys it does not send."""
    if key in _KEY_BYTES:
        return _KEY_BYTES[key]
    if key.startswith("ctrl+") and len(key) == 6 and key[5].isalpha():
        return bytes([ord(key[5].lower()) - ord("a") + 1])
    if character:
        return character.encode()
    return None


def _color(name: str) -> Color | None:
    if name == "default":
        return None
    bright = name.startswith("bright")
    number = _ANSI_NUMBERS.get(name[6:] if bright else name)
    if number is not None:
        return Color.from_ansi(number + 8 if bright else number)
    try:
        return Color.parse(f"#{name}")
    except Exception:
        return None


CellLook = tuple[str, str, bool, bool, bool, bool, bool]
"""A screen cell's look: foreground, background, bold, italic, underline, strike, reverse."""


class TerminalView(ScrollView, can_focus=True):
    """Shows a `Terminal` live; type into it when focused."""

    BINDINGS = [Binding("ctrl+k", "kill", "Kill command", id="terminal.kill")]

    DEFAULT_CSS = """
    TerminalView {
        height: 14;
        &.-fit { height: 3; }
        border: round $panel-lighten-2;
        border-title-color: $text-muted;
        border-subtitle-color: $text-muted;
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-gutter: stable;
        scrollbar-size-vertical: 1;
        &:focus { border: round $accent; }
        &.-failed { border: round $error; }
    }
    """

    def __init__(
        self,
        terminal: Terminal | AgentTerminal,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        fit_output: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.terminal = terminal
        from acp_tui.host.terminal_emulator import TerminalEmulator  # pyte: first terminal only

        self.fit_output = fit_output
        self.set_class(fit_output, "-fit")
        rows = MAX_ROWS if fit_output else FIXED_ROWS
        self._emulator = TerminalEmulator(
            80, rows, history=HISTORY_LINES, newline_mode=self.agent_owned
        )
        self._emulator.screen.on_process_input = self._reply_to_program
        self._pending = bytearray()
        self._following = True  # stick to the bottom until the user scrolls up
        self._unsubscribe: list[Callable[[], None]] = []
        self._styles: dict[CellLook, Style] = {}
        self._show_title()

    # -- lifecycle ----------------------------------------------------------------------------

    @property
    def agent_owned(self) -> bool:
        """An agent-owned terminal (v2): shown only; keys and ctrl+k do not reach it."""
        return isinstance(self.terminal, AgentTerminal)

    def _agent_stoppable(self) -> bool:
        """An agent-owned terminal the agent lets us stop (`terminal/cancel`)."""
        return isinstance(self.terminal, AgentTerminal) and self.terminal.can_cancel

    def _show_title(self) -> None:
        # the command comes from the agent: shown as plain text, control characters replaced
        command = " ".join([self.terminal.command, *self.terminal.args]) or "terminal"
        self.border_title = Text(safe_line(command))

    def on_mount(self) -> None:
        """Start the paused frame timer, show the output so far and follow new output."""
        # Output arrives from the host's reader callbacks, outside the app's context: a paused
        # frame timer (created here) is resumed by them, and interprets it at most once a frame.
        self._frame_timer = self.set_interval(FRAME_SECONDS, self._flush, pause=True)
        self._pending += self.terminal.output_bytes()
        self._unsubscribe.append(self.terminal.add_output_listener(self._on_output))
        if self.terminal.exit_status is None:
            self._unsubscribe.append(self.terminal.add_exit_listener(self._on_exit))
        if isinstance(self.terminal, AgentTerminal):
            self._unsubscribe.append(self.terminal.add_reset_listener(self._on_reset))
        self._flush()
        self._show_status()

    def on_unmount(self) -> None:
        """Stop following the terminal's output."""
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()

    def _on_output(self, data: bytes) -> None:
        self._pending += data
        self._frame_timer.resume()

    def _on_reset(self, snapshot: bytes) -> None:
        """The agent replaced the whole output: start a fresh screen with the snapshot."""
        screen = self._emulator.screen
        from acp_tui.host.terminal_emulator import TerminalEmulator

        self._emulator = TerminalEmulator(
            screen.columns, screen.lines, history=HISTORY_LINES, newline_mode=True
        )
        self._emulator.screen.on_process_input = self._reply_to_program
        self._pending = bytearray(snapshot)
        self._frame_timer.resume()

    def refresh_terminal(self) -> None:
        """The terminal's command or exit status may have changed (agent-owned terminals)."""
        self._show_title()
        self._show_status()

    def _on_exit(self, _status: object) -> None:
        self.call_later(self._show_exit)

    def _show_exit(self) -> None:
        self._flush()
        self._update_virtual_size()  # the cursor's empty row no longer counts
        self._show_status()

    def _show_status(self) -> None:
        status = self.terminal.exit_status
        if status is None:
            self.border_subtitle = (
                (
                    "running (the agent's) · ctrl+k stop"
                    if self._agent_stoppable()
                    else "running (the agent's)"
                )
                if self.agent_owned
                else "running · ctrl+k kill"
            )
        else:
            self.border_subtitle = status.describe()
            self.set_class(status.exit_code != 0, "-failed")
        self.refresh()

    def _flush(self) -> None:
        """Interpret the output collected since the last frame, then repaint once."""
        if not self._pending:
            return
        data = bytes(self._pending)
        self._pending.clear()
        if self.agent_owned:  # pipes, not a PTY: lines end in LF alone
            data = as_terminal_shows(data)
        screen = self._emulator.screen
        budget = max(4096, screen.columns * screen.lines * 4)
        self._emulator.feed(data, budget)
        self._update_virtual_size()
        if self._following:
            self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True)
        self.refresh()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        """Follow new output exactly while the view sits at the bottom."""
        super().watch_scroll_y(old_value, new_value)
        # Follow exactly while the view sits at the bottom. A move up that lands at the bottom is
        # Textual clamping to a smaller maximum (the region grew), not the user scrolling away.
        self._following = new_value >= self.max_scroll_y

    def _update_virtual_size(self) -> None:
        screen = self._emulator.screen
        height = len(screen.history) + screen.used_lines()
        if self.fit_output and self.terminal.exit_status is not None:
            top = len(screen.history)
            while height > top + 1 and self._blank_row(height - 1 - top):
                height -= 1
        self.virtual_size = Size(screen.columns, height)
        if self.fit_output:
            rows = min(max(height, 1), MAX_ROWS) + BORDER_ROWS
            if self.styles.height is None or self.styles.height.value != rows:
                self.styles.height = rows

    def _blank_row(self, y: int) -> bool:
        return not any(char.data.strip() for char in self._emulator.screen.buffer[y].values())

    def text_lines(self) -> list[str]:
        """The plain text of every line the view can show (scrollback, then the screen)."""
        screen = self._emulator.screen
        lines = [
            row if isinstance(row, str) else "".join(row[x].data for x in range(screen.columns))
            for row in screen.history
        ]
        lines.extend(screen.display[: screen.used_lines()])
        lines = [line.rstrip() for line in lines]
        while lines and not lines[-1]:
            lines.pop()
        return lines

    # -- input ----------------------------------------------------------------------------------

    def on_key(self, event: Key) -> None:
        """Send the key to the running command, except focus keys, ctrl+k and keys of an agent-
        owned or ended terminal.
        """
        if (
            event.key in _FOCUS_KEYS
            or event.key == "ctrl+k"
            or self.terminal.exit_status is not None
            or self.agent_owned
        ):
            return
        data = key_to_bytes(event.key, event.character)
        if data is None:
            return
        event.stop()
        event.prevent_default()
        self.terminal.write_input(data)

    def on_paste(self, event: Paste) -> None:
        """Send pasted text to the running command (newlines as carriage returns)."""
        if self.terminal.exit_status is None:
            event.stop()
            self.terminal.write_input(event.text.replace("\r\n", "\r").replace("\n", "\r").encode())

    def _reply_to_program(self, data: str) -> None:
        self.terminal.write_input(data.encode())

    def action_kill(self) -> None:
        """Kill the command."""
        self.terminal.kill()

    def on_resize(self, _event: Resize) -> None:
        """Resize the emulated screen (and the PTY) to the view."""
        region = self.scrollable_content_region
        screen = self._emulator.screen
        columns = max(2, region.width)
        rows = screen.lines if self.fit_output else max(1, region.height)
        if (columns, rows) != (screen.columns, screen.lines):
            self._emulator.resize(columns, rows)
            self.terminal.resize(columns, rows)
            self._update_virtual_size()
            self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True)
            self.refresh()
        elif self.fit_output and self._following:
            # grown to fit the output: stay at the bottom
            self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True)

    # -- rendering --------------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.size.width
        screen = self._emulator.screen
        base = self.rich_style
        history = screen.history
        if index < len(history):
            strip = self._row_strip(history[index], screen.columns, base, cursor_x=None)
        elif index - len(history) < screen.lines:
            row_y = index - len(history)
            show_cursor = (
                row_y == screen.cursor.y
                and self.has_focus
                and self.terminal.exit_status is None
                and DECTCEM in screen.mode
            )
            strip = self._row_strip(
                screen.buffer[row_y], screen.columns, base, screen.cursor.x if show_cursor else None
            )
        else:
            return Strip.blank(width, base)
        return strip.crop_extend(scroll_x, scroll_x + width, base)

    def _row_strip(
        self, row: HistoryLine, columns: int, base: Style, cursor_x: int | None
    ) -> Strip:
        if isinstance(row, str):
            return Strip([Segment(safe_line(row.expandtabs()), base)])
        segments: list[Segment] = []
        text: list[str] = []
        current: CellLook | None = None
        for x in range(columns):
            char = row.get(x)
            if char is None:
                key: CellLook = ("default", "default", False, False, False, False, False)
                data = " "
            else:
                data = char.data
                if not data:
                    continue  # the stub after a wide character
                key = (
                    char.fg,
                    char.bg,
                    char.bold,
                    char.italics,
                    char.underscore,
                    char.strikethrough,
                    char.reverse,
                )
            if x == cursor_x:
                key = (*key[:6], not key[6])
            if key != current:
                if text:
                    segments.append(Segment(safe_line("".join(text)), base + self._style(current)))
                    text = []
                current = key
            text.append(data)
        if text:
            segments.append(Segment(safe_line("".join(text)), base + self._style(current)))
        return Strip(segments)

    def _style(self, key: CellLook | None) -> Style:
        if key is None:
            return Style()
        style = self._styles.get(key)
        if style is None:
            fg, bg, bold, italic, underline, strike, reverse = key
            style = Style(
                color=_color(fg),
                bgcolor=_color(bg),
                bold=bold or None,
                italic=italic or None,
                underline=underline or None,
                strike=strike or None,
                reverse=reverse or None,
            )
            self._styles[key] = style
        return style

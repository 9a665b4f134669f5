"""What the main screen does for the composer: local slash commands (//export, //copy, //editor),
the copy key, $EDITOR, and desktop notifications when the user is elsewhere.

An object the `MainScreen` owns (`composer_actions`), so the screen stays about the
conversation; the screen's actions and message handlers for these delegate to it.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from textual.app import SuspendNotSupported
from textual.binding import Binding
from textual.screen import Screen
from textual.widget import Widget

from acp_tui.client.elicitation import PendingElicitation
from acp_tui.client.events import SessionState
from acp_tui.host.local_files import LocalFileError, private_draft, read_regular_text
from acp_tui.host.own_writes import OwnWriteError
from acp_tui.host.permissions import PendingPermission
from acp_tui.ui.plain import notify
from acp_tui.ui.textual_internals import write_to_terminal
from acp_tui.ui.widgets.composer import Composer
from acp_tui.ui.widgets.prompt_input import PromptInput

T = TypeVar("T")

if TYPE_CHECKING:
    from acp_tui.client.session.facade import SessionFacade
    from acp_tui.ui.elicitation_queue import ElicitationQueue
    from acp_tui.ui.screens.session_screen_port import SessionScreenPort

COMPOSER_BINDINGS = [
    Binding("f8", "copy", "copy", show=False, priority=True, id="main.copy"),
]
"""The main screen's keys for what this object does."""


class ComposerActions:
    """The composer's side of a main screen (owned by it): local slash commands, export, copy,
    $EDITOR, desktop notifications, elicitation forms."""

    def __init__(self, screen: SessionScreenPort) -> None:
        self.screen = screen
        self._turn_started: float | None = None
        self._elicitations: ElicitationQueue | None = None
        """The agent's questions, shown one at a time (made at the first)."""
        self.sent_notifications: list[str] = []
        """The bodies of desktop notifications sent (for the user's record and for tests)."""

    @property
    def session(self) -> SessionFacade:
        return self.screen.session

    def subscribe(self) -> list[Callable[[], None]]:
        """Subscribe to what the composer reacts to (state, permissions, elicitations, turns);
        returns the unsubscribes."""
        session = self.session
        return [
            session.state_changed.subscribe(self._notify_on_state),
            session.permission_asked.subscribe(self._notify_on_permission),
            session.elicitation_asked.subscribe(self._on_elicitation),
        ]

    # ------------------------------------------------------------------ local commands

    def local_command(self, event: Composer.LocalCommand) -> None:
        """A local slash command typed in the composer."""
        if event.name == "export":
            self.export_conversation(event.args)
        elif event.name == "copy":
            self.copy_last(code=event.args == "code")
        elif event.name == "editor":
            self.open_editor()
        elif event.name == "rewind":
            from acp_tui.ui.workspace.messages import RewindAsk

            self.screen.post_message(RewindAsk(self.session))
        elif event.name == "all":
            self._prompt_all(event.args)
        else:
            from acp_tui.ui.session_actions import run_local_command

            run_local_command(self.screen, event.name)

    def _prompt_all(self, text: str) -> None:
        from acp_tui.ui.workspace.messages import PromptAll

        if not text.strip():
            notify(self.screen, "//all PROMPT sends PROMPT to every open session.")
            return
        self.screen.post_message(PromptAll(text))

    def export_conversation(self, given: str = "") -> None:
        """Export the conversation (`_export`) in a worker of the screen."""
        self.screen.run_worker(self._export(given), group="export")

    async def _export(self, given: str) -> Path | None:
        """Write the conversation as Markdown (`given`: a path or name, else a default in the
        session directory) through the file host; the path written, or None when it was not
        (the user is told why)."""
        from acp_tui.output.export import conversation_markdown, export_path  # (when exported)

        session = self.session
        markdown = conversation_markdown(
            list(session.thread.entries),
            title=session.thread.title,
            agent_name=session.agent_name,
            terminal_text=self._terminal_text,
        )
        path = export_path(session.cwd, given)
        try:
            written = await session.write_export(path, markdown, typed=bool(given.strip()))
        except OwnWriteError as error:
            notify(self.screen, f"Export failed: {error}", severity="error")
            return None
        notify(self.screen, f"Conversation exported to {written}", title="Export")
        return written

    # ------------------------------------------------------------------ copy

    def copy(self) -> None:
        """Copy what has focus: a terminal's output, a diff, a tool call; else the last
        agent message."""
        found = self._focused_copy_text()
        if found is None:
            self.copy_last(code=False)
        else:
            self._copy(*found)

    def _focused_copy_text(self) -> tuple[str, str] | None:
        from acp_tui.output.export import tool_call_markdown, unified_diff  # (when copied)
        from acp_tui.thread.entries import ToolCallEntry
        from acp_tui.ui.widgets.diff_view import DiffView
        from acp_tui.ui.widgets.frozen_history import FrozenHistory
        from acp_tui.ui.widgets.terminal_view import TerminalView
        from acp_tui.ui.widgets.tool_call_card import ToolCallCard

        widget = self.screen.focused
        while widget is not None and widget is not self.screen:
            if isinstance(widget, TerminalView):
                return widget.terminal.output_text()[0], "terminal output"
            if isinstance(widget, DiffView):
                diff = widget.diff
                return unified_diff(diff.path, diff.old_text, diff.new_text), "diff"
            if isinstance(widget, ToolCallCard):
                return tool_call_markdown(widget.entry, self._terminal_text), "tool call"
            if isinstance(widget, FrozenHistory):  # a finished turn's card under its cursor
                entry = widget.cursor_entry
                if isinstance(entry, ToolCallEntry):
                    return tool_call_markdown(entry, self._terminal_text), "tool call"
                return None
            parent = widget.parent
            widget = parent if isinstance(parent, Widget) else None
        return None

    def _terminal_text(self, terminal_id: str) -> str | None:
        terminal = self.session.terminal(terminal_id)
        return terminal.output_text()[0] if terminal is not None else None

    def copy_last(self, *, code: bool) -> None:
        """Copy the agent's last message, or with `code` the last code block in it, to the
        clipboard."""
        from acp_tui.output.copy_targets import last_agent_text, last_code_block  # (when copied)

        entries = list(self.session.thread.entries)
        text = last_code_block(entries) if code else last_agent_text(entries)
        if text is None:
            notify(self.screen, "Nothing to copy yet.")
            return
        self._copy(text, "code block" if code else "agent message")

    def _copy(self, text: str, what: str) -> None:
        from acp_tui.output.clipboard import copy_text  # (when copied)

        app = self.screen.app

        def write(sequence: str) -> None:
            write_to_terminal(app, sequence)

        how = copy_text(text, write)
        notify(self.screen, f"Copied the {what} ({len(text)} characters) via {how}")

    # ------------------------------------------------------------------ $EDITOR

    def open_editor(self) -> None:
        """Edit the prompt in $VISUAL/$EDITOR (the app suspended meanwhile) and load the result
        back. The draft lives in a private directory the host makes (`private_draft`) and is read
        back through the host (a regular file, no symlink followed)."""
        screen = self.screen
        prompt = screen.query_one(PromptInput)
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        with private_draft(prompt.text) as path:
            argv = [*shlex.split(editor), str(path)]
            try:
                try:
                    with screen.app.suspend():
                        code = subprocess.run(argv, check=False).returncode
                except SuspendNotSupported:  # headless (tests): no terminal to hand over
                    code = subprocess.run(argv, check=False, capture_output=True).returncode
            except OSError as error:
                notify(self.screen, f"Could not run {editor}: {error}", severity="error")
                return
            if code != 0:
                notify(self.screen, f"{editor} exited with code {code}; prompt unchanged")
                return
            try:
                edited = read_regular_text(path)
            except LocalFileError as error:
                notify(self.screen, f"{error}; prompt unchanged", severity="error")
                return
        if edited is None:
            notify(self.screen, f"{editor} removed the draft; prompt unchanged")
            return
        text = edited.rstrip("\n")
        prompt.load_text(text)
        prompt.move_cursor(prompt.document.end)
        prompt.focus()

    # ------------------------------------------------------------------ notifications

    def _notify_on_state(self, state: SessionState) -> None:
        if state is SessionState.RUNNING:
            self._turn_started = time.monotonic()
            return
        started, self._turn_started = self._turn_started, None
        if state is not SessionState.READY or started is None:
            return
        settings = self.session.settings
        long_turn = time.monotonic() - started >= settings.notify_after_seconds
        unseen = not self.screen.app.app_focus or not self.shown  # (a tab in the background)
        if settings.notify_turn_end and (long_turn or unseen):
            self.desktop_notify(self.session.agent_name, "The turn has ended.")

    @property
    def shown(self) -> bool:
        """This session's screen is in the stack on screen (not a tab in the background)."""
        return self.screen in self.screen.app.screen_stack

    def show_question(self, screen: Screen[T], callback: Callable[[T | None], None]) -> None:
        """Show a question of this session over its own screens: through its tab's `ScreenUi`
        (it waits while the tab is in the background), else at once."""
        ui = self.screen.ui
        if ui is not None:
            ui.show(screen, callback)
        else:
            self.screen.app.push_screen(screen, callback=callback)

    def _notify_on_permission(self, pending: PendingPermission) -> None:
        settings = self.session.settings
        if settings.notify_permission and (not self.screen.app.app_focus or not self.shown):
            title = str(pending.tool_call.get("title") or "a tool call")
            # the screen already rings the bell for an unfocused permission request
            self.desktop_notify(self.session.agent_name, f"Permission needed: {title}", bell=False)

    def _on_elicitation(self, pending: PendingElicitation) -> None:
        if self._elicitations is None:
            from acp_tui.ui.elicitation_queue import ElicitationQueue

            self._elicitations = ElicitationQueue(self.show_question)
        self._elicitations.add(pending)
        # (a session in the background: its `ScreenUi` notifies when the form waits for its tab)
        app_focus = self.screen.app.app_focus
        if self.session.settings.notify_elicitation and not app_focus and self.shown:
            self.desktop_notify(self.session.agent_name, f"Input needed: {pending.message}")

    def desktop_notify(self, title: str, body: str, *, bell: bool = True) -> None:
        """OSC 777 + OSC 9 (through tmux when inside it) and the bell."""
        from acp_tui.output.terminal_sequences import desktop_notification  # (when notified)

        app = self.screen.app
        write_to_terminal(app, desktop_notification(title, body, tmux=bool(os.environ.get("TMUX"))))
        if bell:
            app.bell()
        self.sent_notifications.append(body)

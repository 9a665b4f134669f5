"""Earlier sessions of this directory: search, open, fork, delete.

The list is the agent's `session/list` for the session's cwd, a page at a time ("more…" at the
end loads the next page with its cursor), or the sessions acp-tui remembers for agents that
cannot list. Typing filters by title and id. Enter opens, `f` forks (unstable `session/fork`),
`d` deletes after a confirmation, ctrl+r opens an old branch a rewind left and rewinds its files
forward (the app's `OpenBranch`: in a new tab). Dismisses with a `PickedSession`, or None.

Shown `at_start` (`--resume` alone, before any session is open: Esc opens a new one), it came
unasked while the user may be typing a prompt: it is guarded like every question
(`QuestionKeys`): it takes no key for 0.6 s, nor as long as the user goes on typing, and if it
came while the user typed (or a few seconds after) not until they choose it (f4, or a click);
the keys before go to the composer.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.client.session.agent_session import AgentSession
from acp_tui.client.session.history import (
    HistoryCapabilities,
    archive_session,
    delete_session,
    list_sessions,
    rename_session,
)
from acp_tui.client.session.session_summary import GONE, SessionSummary
from acp_tui.host.asker import Choice, Question
from acp_tui.ui.key_guard import CHOOSE_KEY, QuestionKeys
from acp_tui.ui.plain import notify
from acp_tui.ui.screens.question import QuestionScreen
from acp_tui.ui.widgets.guard_hint import GuardHint
from acp_tui.ui.widgets.settings_text import safe_text

MORE = "\x00more"
RELEASE_POLL = 0.1  # seconds between looks at whether the picker shown at start may take keys


@dataclass(frozen=True)
class PickedSession:
    """What the user picked: open (resume or load) or fork the session `session_id`."""

    action: Literal["open", "fork"]
    session_id: str


def describe_time(value: str | None) -> str:
    """An ISO 8601 time as `2026-11-03 14:05` (as given when it does not parse)."""
    if not value:
        return ""
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return safe_text(value, limit=40)
    if moment.tzinfo is not None:
        moment = moment.astimezone()
    return moment.strftime("%Y-%m-%d %H:%M")


class SessionPicker(ModalScreen[PickedSession | None]):
    """The earlier sessions of this directory to open, fork or delete (see the module doc)."""

    DEFAULT_CSS = """
    SessionPicker { align: center middle; }
    SessionPicker > Vertical {
        width: 100; max-width: 95%; height: auto; max-height: 90%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    SessionPicker #sessions-title { text-style: bold; margin-top: 1; }
    SessionPicker #sessions-search { margin-top: 1; }
    SessionPicker OptionList { height: auto; max-height: 26; border: none; }
    SessionPicker #sessions-hint { color: $text-muted; margin-bottom: 1; }
    """
    AUTO_FOCUS = ""  # the search field is focused on mount, or when the guard lets go
    BINDINGS = [
        Binding("escape", "dismiss_none", "close", id="sessions.close"),
        Binding("ctrl+f", "fork", "fork", priority=True, id="sessions.fork"),
        Binding("ctrl+d", "delete", "delete", priority=True, id="sessions.delete"),
        Binding("ctrl+a", "archive", "archive", priority=True, id="sessions.archive"),
        Binding("ctrl+n", "rename", "rename", priority=True, id="sessions.rename"),
        Binding("ctrl+s", "show_archived", "archived", priority=True, id="sessions.show-archived"),
        Binding(
            "ctrl+r",
            "rewind_forward",
            "rewind forward",
            priority=True,
            id="sessions.rewind-forward",
        ),
        Binding(CHOOSE_KEY, "choose_question", "pick here", show=False),
    ]

    def __init__(self, session: AgentSession, *, at_start: bool = False) -> None:
        super().__init__()
        self.session = session
        self.at_start = at_start
        """Shown unasked at start (`--resume` alone): guarded, and Esc means a new session."""
        self.taking_keys = not at_start
        self.keys = QuestionKeys()
        self._releasing: Timer | None = None
        self.caps = HistoryCapabilities.of(session.agent_capabilities)
        self.sessions: list[SessionSummary] = []
        self.next_cursor: str | None = None
        self.error: str | None = None
        self._fetching = False
        self.archives = session.agent_capabilities.session_capabilities.archive is not None
        """The agent archives sessions (`session/archive`): ctrl+a, ctrl+s."""
        self.show_archived = False
        """Archived sessions listed too (ctrl+s); hidden unless asked for."""
        self.renames = session.agent_capabilities.session_capabilities.title is not None
        """The agent takes a new title for a session (`session/set_title`): ctrl+n."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                Text(f"Sessions in {safe_text(str(self.session.cwd))}"), id="sessions-title"
            )
            yield Input(placeholder="search titles", id="sessions-search")
            yield OptionList(id="sessions-list")
            yield Static(self._hint(), id="sessions-hint")
            yield GuardHint(self.keys)

    def _hint(self) -> Text:
        parts = ["enter open"]
        if self.caps.fork:
            parts.append("ctrl+f fork")
        parts.append("ctrl+d delete" if self.caps.delete or not self.caps.list else "")
        parts.append("ctrl+r old branch: files forward")
        if self.archives:
            parts.append("ctrl+a archive/unarchive · ctrl+s show archived")
        if self.renames:
            parts.append("ctrl+n rename")
        parts.append("esc a new session" if self.at_start else "esc close")
        hint = " · ".join(p for p in parts if p)
        if not self.caps.list:
            hint = f"{self.session.agent_name} cannot list sessions; these are the ones acp-tui "
            hint += "started here. " + " · ".join(p for p in parts if p)
        return Text(safe_text(hint))

    def on_mount(self) -> None:
        """Focus the search field (at start: once the key guard lets go) and load the first
        page of sessions."""
        if self.at_start:
            self.keys.arm(self.app)
            if not self._release():
                self._releasing = self.set_interval(RELEASE_POLL, self._release)
        else:
            self.query_one(Input).focus()
        self.load_page(None)

    def _release(self) -> bool:
        """Once the guard lets go: take keys, focus the search field. True when done."""
        if self.taking_keys or self.keys.holds():
            return self.taking_keys
        self.taking_keys = True
        if self._releasing is not None:
            self._releasing.stop()
        if self.focused is None:
            self.query_one(Input).focus()
        return True

    @work(exclusive=True, group="sessions-page")
    async def load_page(self, cursor: str | None) -> None:
        """Load a page of sessions and show it (`cursor` None: the first page, replacing all)."""
        self._fetching = True
        page = await list_sessions(self.session, cursor, archived=self.show_archived)
        self._fetching = False
        if cursor is None:
            self.sessions = []
        self.sessions += page.sessions
        self.next_cursor = page.next_cursor
        self.error = page.error
        self._fill()

    @on(Input.Changed, "#sessions-search")
    def _search(self) -> None:
        self._fill()

    def _fill(self) -> None:
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        options.clear_options()
        needle = self.query_one(Input).value.strip().lower()
        current = self.session.session_id
        for summary in self.sessions:
            haystack = f"{summary.title or ''} {summary.id}".lower()
            if needle and needle not in haystack:
                continue
            text = Text("● " if summary.id == current else "  ", style="green")
            text.append(safe_text(summary.title or "(untitled)", limit=80), style="bold")
            when = describe_time(summary.updated_at)
            if when:
                text.append(f"  {when}", style="dim")
            if summary.status == "open":  # `session/status`: still in the agent's memory
                text.append("  open", style="green")
            elif summary.status == GONE:  # `session/status`: the agent no longer knows it
                text.append("  gone", style="red")
            if summary.archived:
                text.append("  archived", style="yellow")
            text.append(f"\n  {safe_text(summary.id, limit=80)}", style="dim")
            options.add_option(Option(text, id=summary.id))
        if self.next_cursor is not None:
            options.add_option(Option(Text("more…", style="italic"), id=MORE))
        if self.error:
            options.add_option(Option(Text(safe_text(self.error), style="red"), disabled=True))
        elif not options.option_count:
            empty = "no sessions match" if needle else "no earlier sessions here"
            options.add_option(Option(Text(empty, style="dim"), disabled=True))
        if options.option_count:
            options.highlighted = min(highlighted or 0, options.option_count - 1)

    def _selected(self) -> str | None:
        options = self.query_one(OptionList)
        if options.highlighted is None:
            return None
        option = options.get_option_at_index(options.highlighted)
        return None if option.disabled else option.id

    def _acted_on(self) -> str | None:
        """The highlighted session a key acts on: None while the guard holds the keys, or when
        the highlight is on no session (nothing, or the "more" line)."""
        if not self.taking_keys:
            return None
        session_id = self._selected()
        return None if session_id in (None, MORE) else session_id

    @on(Input.Submitted, "#sessions-search")
    def _submit_search(self) -> None:
        self._choose(self._selected())

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._choose(event.option.id)

    def _choose(self, session_id: str | None) -> None:
        if session_id == MORE:
            if self.next_cursor is not None and not self._fetching:
                self.load_page(self.next_cursor)
        elif session_id is not None:
            self.dismiss(PickedSession("open", session_id))

    def on_key(self, event: events.Key) -> None:
        """Up and down in the search field move the list's cursor. Before the picker takes
        keys, a key answers nothing: it goes to the composer."""
        if not self.taking_keys and not self._release():
            self.keys.hold(event, focus=False)
            return
        key = event.key
        search = self.query_one(Input)
        if key in ("down", "up") and search.has_focus:
            options = self.query_one(OptionList)
            if key == "down":
                options.action_cursor_down()
            else:
                options.action_cursor_up()

    def on_click(self) -> None:
        """A click on the picker chooses it: it takes keys from now on."""
        self.action_choose_question()

    def action_choose_question(self) -> None:
        """f4: the user goes to the picker on purpose."""
        self.keys.choose()
        self._release()

    def action_fork(self) -> None:
        """Dismiss with a fork of the selected session, if the agent can fork."""
        if not self.taking_keys:
            return  # (a priority binding runs before `on_key`: held here too)
        session_id = self._selected()
        if not self.caps.fork:
            notify(self, f"{self.session.agent_name} cannot fork sessions.")
        elif session_id not in (None, MORE):
            assert session_id is not None
            self.dismiss(PickedSession("fork", session_id))

    def action_rewind_forward(self) -> None:
        """Open the highlighted session, an old branch a rewind left, with its files forward."""
        from acp_tui.ui.workspace.messages import OpenBranch

        session_id = self._acted_on()
        if session_id is None:
            return
        self.app.post_message(OpenBranch(self.session, session_id))
        self.dismiss(None)

    def action_delete(self) -> None:
        """Delete the selected session after asking, if the agent can delete."""
        session_id = self._acted_on()
        if session_id is None:
            return
        if self.caps.list and not self.caps.delete:
            notify(self, f"{self.session.agent_name} cannot delete sessions.")
            return
        summary = next((s for s in self.sessions if s.id == session_id), None)
        title = summary.title if summary and summary.title else session_id
        question = Question(
            "delete_session",
            "Delete this session?",
            safe_text(f"{title}\n{session_id}"),
            (Choice("keep", "Keep", "n"), Choice("delete", "Delete", "y")),
        )
        self.app.push_screen(
            QuestionScreen(question), lambda answer: self._confirmed(session_id, answer)
        )

    def _confirmed(self, session_id: str, answer: str | None) -> None:
        if answer == "delete":
            self.run_worker(self._delete(session_id), group="sessions-delete")

    async def _delete(self, session_id: str) -> None:
        error = await delete_session(self.session, session_id)
        if error is not None:
            notify(self, f"Could not delete the session: {error}", severity="error")
            return
        self.sessions = [s for s in self.sessions if s.id != session_id]
        self._fill()
        notify(self, "Session deleted.")

    def action_dismiss_none(self) -> None:
        """Dismiss without a session (at start: a new session is opened)."""
        if self.taking_keys:
            self.dismiss(None)

    def action_show_archived(self) -> None:
        """List the archived sessions too, or hide them again (the agent's `archived` filter)."""
        if not self.taking_keys:
            return
        if not self.archives:
            notify(self, f"{self.session.agent_name} does not archive sessions.")
            return
        self.show_archived = not self.show_archived
        self.load_page(None)

    def action_archive(self) -> None:
        """Archive the selected session (unarchive an archived one), if the agent can."""
        session_id = self._acted_on()
        if session_id is None:
            return
        if not self.archives:
            notify(self, f"{self.session.agent_name} does not archive sessions.")
            return
        summary = next((s for s in self.sessions if s.id == session_id), None)
        archived = summary is None or not summary.archived
        self.run_worker(self._archive(session_id, archived), group="sessions-archive")

    async def _archive(self, session_id: str, archived: bool) -> None:
        error = await archive_session(self.session, session_id, archived=archived)
        if error is not None:
            notify(self, f"Could not {'archive' if archived else 'unarchive'}: {error}")
            return
        notify(self, "Session archived." if archived else "Session unarchived.")
        self.load_page(None)

    def action_rename(self) -> None:
        """Give the highlighted session a new title (`session/set_title`), if the agent can."""
        from acp_tui.ui.screens.rename_screen import RenameScreen

        session_id = self._acted_on()
        if session_id is None:
            return
        if not self.renames:
            notify(self, f"{self.session.agent_name} does not rename sessions.")
            return
        summary = next((s for s in self.sessions if s.id == session_id), None)
        current = summary.title if summary is not None and summary.title else ""

        def renamed(title: str | None) -> None:
            if title is not None:
                self.run_worker(self._rename(session_id, title), group="sessions-rename")

        self.app.push_screen(RenameScreen(current, told_to_agent=True), renamed)

    async def _rename(self, session_id: str, title: str) -> None:
        error = await rename_session(self.session, session_id, title)
        if error is not None:
            notify(self, f"Could not rename the session: {error}")
            return
        self.load_page(None)

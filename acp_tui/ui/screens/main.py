"""The conversation screen: conversation, queue, prompt, sidebar, status bar, crash banner."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from textual import events, on
from textual.app import ComposeResult, ScreenStackError
from textual.binding import ActiveBinding, Binding
from textual.containers import Horizontal, Vertical

from acp_tui.client.events import AgentCrash, Notice, QueuedPrompt, SessionState
from acp_tui.client.session.facade import SessionFacade
from acp_tui.client.turn_changes import TurnSummary
from acp_tui.client.write_review import WriteReport
from acp_tui.protocol.models import Notice as ThreadNotice
from acp_tui.thread import thread_changes
from acp_tui.thread.config_options import MODEL
from acp_tui.ui import collector, runtime
from acp_tui.ui.first_frame import shows_sidebar
from acp_tui.ui.key_labels import key_label
from acp_tui.ui.local_commands import LOCAL_COMMANDS, LocalCommandsProvider
from acp_tui.ui.plain import notify
from acp_tui.ui.screens.composer_actions import COMPOSER_BINDINGS, ComposerActions
from acp_tui.ui.screens.session_screen_port import SessionScreenPort
from acp_tui.ui.screens.settings_actions import SettingsActions
from acp_tui.ui.screens.sidebar_fit import SidebarFit
from acp_tui.ui.screens.status_text import activity_text, describe_usage
from acp_tui.ui.session_actions import fork_entries, logout_entries
from acp_tui.ui.textual_internals import priority_bindings
from acp_tui.ui.toast_pacer import ToastPacer
from acp_tui.ui.widgets.composer import Composer
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.crash_banner import CrashBanner
from acp_tui.ui.widgets.empty_state import EmptyState
from acp_tui.ui.widgets.mode_list import ModeList
from acp_tui.ui.widgets.notices_section import notice_toast
from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.queue_view import QueuedItem, QueueView
from acp_tui.ui.widgets.screen_footer import ScreenFooter, in_stable_order
from acp_tui.ui.widgets.settings_section import SettingsSection
from acp_tui.ui.widgets.sidebar import Sidebar
from acp_tui.ui.widgets.status_bar import StatusBar
from acp_tui.ui.widgets.subagent_lane import SubagentLaneView
from acp_tui.ui.widgets.tool_call_card import ToolCallCard
from acp_tui.ui.widgets.turn_summary import TurnSummaryView
from acp_tui.ui.workspace.messages import ForkWhole, RewindHere, SendOnBranch, ShowSessions
from acp_tui.ui.workspace.tab_bar import TabBar

if TYPE_CHECKING:
    from textual.screen import Screen

    from acp_tui.ui.screen_ui import ScreenUi
    from acp_tui.ui.workspace.messages import RewindPoint

T = TypeVar("T")


@dataclass(frozen=True)
class ScreenParts:
    """The main screen's widgets a tab switch touches (held, not searched for each time)."""

    tab_bar: TabBar
    conversation: ConversationView
    composer: Composer
    sidebar: Sidebar
    status: StatusBar


class MainScreen(SessionScreenPort):
    """The screen of a session: conversation, prompt and queue, sidebar, status bar, crash banner;
    keys for cancel, modes, changes, rules and restart. What it does for the composer, the
    session's settings and the sidebar's width is done by objects it owns (`composer_actions`,
    `setting_actions`, `sidebar_fit`), its keys and message handlers delegating to them."""

    DEFAULT_CSS = """
    MainScreen { layout: vertical; }
    MainScreen #body { height: 1fr; }
    MainScreen #main-column { width: 1fr; height: 1fr; }
    """
    # fmt: off
    BINDINGS = [  # the footer's order, whatever has the focus (see `in_stable_order`)
        Binding("f6", "pick_model", "model", priority=True, id="main.pick-model",
                tooltip="pick the model (the sidebar's Settings has every option)"),
        Binding("shift+tab", "cycle_mode", "mode", priority=True, id="main.next-mode",
                tooltip="the agent's next session mode"),
        Binding("escape", "cancel_turn", "cancel turn", id="main.cancel-turn",
                tooltip="cancel the running turn"),
        Binding("escape", "keep_waiting", "wait on", id="main.wait-on",
                tooltip="an agent slow to start: keep waiting for it (its time starts again)"),
        Binding("ctrl+r", "restart_agent", "restart agent", id="main.restart-agent",
                tooltip="restart a crashed or stuck agent and continue the session"),
        Binding("f2", "show_changes", "changes", id="main.changes",
                tooltip="the files changed in this session: diffs, revert"),
        Binding("f5", "show_sessions", "sessions", priority=True, id="main.sessions",
                tooltip="earlier sessions of this directory: open, fork, delete"),
        Binding("ctrl+b", "toggle_sidebar", "sidebar", show=False, id="main.toggle-sidebar",
                tooltip="show or hide the sidebar"),
        Binding("f3", "show_rules", "permission rules", show=False, id="main.rules",
                tooltip="the permission rules remembered for this project"),
        Binding(
            "f7", "fork_here", "continue from here", show=False, priority=True, id="main.fork-here"
        ),
        Binding("e", "rewind_here", "edit & rewind", show=False, id="main.rewind",
                tooltip="on an earlier prompt: edit it, files as they were before it"),
        Binding("ctrl+l", "focus_prompt", "prompt", show=False, id="main.focus-prompt",
                tooltip="back to the prompt"),
        Binding("f4", "focus_permission", "permission", show=False, id="main.permission",
                tooltip="go to the oldest permission request waiting"),
        *COMPOSER_BINDINGS,
    ]
    # fmt: on
    FOOTER_FIRST = ("help",)
    """The app's keys the footer shows before the screen's (the rest of the app's come after)."""
    FOOTER_DROPPED_FIRST = ("show_sessions", "show_changes", "pick_model", "cycle_mode")
    """The keys the footer leaves out first, in this order, while its keys do not fit its width
    (then the others but `FOOTER_KEPT`, from the right: a permission's, which its buttons show
    too); f1, which lists them all, then reads "more"."""
    FOOTER_KEPT = ("help", "quit", "new_tab", "cancel_turn", "keep_waiting", "restart_agent")
    """The keys the footer never hides."""
    COMMANDS = {LocalCommandsProvider}

    def __init__(self, session: SessionFacade, ui: ScreenUi | None = None) -> None:
        super().__init__()
        self.session = session
        self.ui = ui  # its tab's: the session's questions wait while the tab is hidden
        self.generation = session.thread.generation  # another session opens on a new screen
        self._unsubscribe: list[Callable[[], None]] = []
        self.turn_summaries: dict[int, TurnSummaryView] = {}
        self.rewind_pending: RewindPoint | None = None
        self._paused = False
        """Its tab is hidden: its timers are paused (`on_screen_suspend`)."""
        self._opening: Callable[[], None] | None = None
        """The session is opening (starting, logging in): what ends the collector's opening
        policy (`runtime.CollectorPolicy.opening`); a READY now ends the open."""
        self._blinking: list[PromptInput] = []
        self.notice_toasts = ToastPacer()
        """The agent's notices: a few toasts a second, the rest told as one count."""
        self._held_notices_due = False
        """A rewind done here: the next prompt sent continues in a new branch."""
        self.composer_actions = ComposerActions(self)
        self.setting_actions = SettingsActions(self)
        self.sidebar_fit = SidebarFit(lambda: self.query_one(Sidebar))

    def compose(self) -> ComposeResult:
        session = self.session
        parts = self.parts = ScreenParts(
            TabBar(id="tabs"),
            ConversationView(session.thread, session, id="conversation"),
            Composer(
                session.thread,
                session.cwd,
                LOCAL_COMMANDS,
                watchers=session.watchers,
                id="composer",
            ),
            Sidebar(session.thread, id="sidebar", session=session),
            StatusBar(id="status"),
        )
        parts.sidebar.display = shows_sidebar(self.app.size.width)  # (as the skeleton drew it)
        yield parts.tab_bar
        with Horizontal(id="body"):
            with Vertical(id="main-column"):
                yield CrashBanner(id="banner")
                yield EmptyState(session, id="empty-state")
                yield parts.conversation
                yield QueueView(id="queue")
                yield parts.composer
            yield parts.sidebar
        yield parts.status
        yield ScreenFooter(compact=True)

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        """Textual's, in one order whatever has the focus (the footer's keys stay put), the
        help key first among the screen's."""
        ordered = in_stable_order(super().active_bindings, self, self.BINDINGS)
        first = {
            key: found
            for key, found in ordered.items()
            if found.node is self.app and found.binding.action in self.FOOTER_FIRST
        }
        focused = {k: f for k, f in ordered.items() if f.node not in (self, self.app)}
        return self._keys_the_app_takes({**focused, **first, **ordered})

    def _keys_the_app_takes(self, found: dict[str, ActiveBinding]) -> dict[str, ActiveBinding]:
        """A key the app binds with priority is the app's (Textual asks it first): the footer
        says what it does there, not what the screen would (the `--replay` viewer's f6-f8
        read "model" and nothing while they played, paused and stepped)."""
        app = self.app
        for key, binding in priority_bindings(self):
            shown = found.get(key)
            if shown is None or shown.node is app:
                continue
            action = binding.action.partition("(")[0]
            if app.check_action(action, ()) is False:
                continue
            found[key] = ActiveBinding(app, binding, True, binding.tooltip)
        return found

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys that do nothing now leave the footer (and the key to whoever else binds it):
        cancel while no turn runs and no start is stalled, restart while the agent runs."""
        session = self.session
        if action == "cancel_turn":
            return session.turn_running
        if action == "keep_waiting":
            return session.stall is not None and not session.turn_running
        if action == "restart_agent":
            stopped = session.state in (SessionState.CRASHED, SessionState.FAILED)
            return stopped or session.stall is not None
        return True

    def on_mount(self) -> None:
        """Subscribe the screen to its session's signals (state, queue, notices, stalls, thread,
        writes, ...).
        """
        session = self.session
        self._unsubscribe += [
            session.state_changed.subscribe(self._on_state),
            session.queue_changed.subscribe(self._on_queue),
            session.notices.subscribe(self._on_notice),
            session.stalled.subscribe(self._on_stall),
            session.thread.subscribe(self._on_thread_change),
            session.written.subscribe(self._on_write),
            session.turn_changes.summary_changed.subscribe(self._on_turn_summary),
            *self.composer_actions.subscribe(),
        ]
        status = self.query_one(StatusBar)
        status.agent_name = session.agent_name
        self._start_clock = self.set_interval(1.0, self._tick_start, pause=True)
        status.title = session.thread.title or ""  # (a screen rebuilt for a new branch: kept)
        # now, not with `focus()` (queued behind them): keys typed while the app starts go here
        self.set_focus(self.query_one(PromptInput))
        self._on_state(session.state)

    # ----------------------------------------------------- owned: composer, settings, sidebar

    @on(Composer.LocalCommand)
    def _local_command(self, event: Composer.LocalCommand) -> None:
        self.composer_actions.local_command(event)

    @on(PromptInput.EditorRequested)
    def _editor_requested(self, event: PromptInput.EditorRequested) -> None:
        self.composer_actions.open_editor()

    def action_copy(self) -> None:
        """Copy what has focus (a terminal's output, a diff, a tool call), else the last agent
        message (f8)."""
        self.composer_actions.copy()

    def show_question(self, screen: Screen[T], callback: Callable[[T | None], None]) -> None:
        """Show a question of this session over its own screens (`ComposerActions`)."""
        self.composer_actions.show_question(screen, callback)

    def desktop_notify(self, title: str, body: str, *, bell: bool = True) -> None:
        """A desktop notification (OSC 777 + OSC 9) and the bell (`ComposerActions`)."""
        self.composer_actions.desktop_notify(title, body, bell=bell)

    @on(ModeList.ModeChosen)
    def _mode_chosen(self, event: ModeList.ModeChosen) -> None:
        self.setting_actions.mode_chosen(event)

    @on(SettingsSection.ChangeRequested)
    def _config_change(self, event: SettingsSection.ChangeRequested) -> None:
        self.setting_actions.config_change(event)

    @on(SettingsSection.ModelRequested)
    def _model_change(self, event: SettingsSection.ModelRequested) -> None:
        self.setting_actions.model_change(event)

    def action_pick_model(self) -> None:
        """Open the picker of the agent's models (f6)."""
        self.setting_actions.pick_setting(MODEL)

    def action_cycle_mode(self) -> None:
        """Select the agent's next session mode, set once the presses stop (shift+tab)."""
        self.setting_actions.cycle_mode()

    def pick_setting(self, category: str) -> None:
        """Open the quick picker of the model (or thought level) option."""
        self.setting_actions.pick_setting(category)

    def on_resize(self, event: events.Resize) -> None:
        """Refit the sidebar to the new width."""
        self.sidebar_fit.fit(event.size.width)

    def action_toggle_sidebar(self) -> None:
        """Show or hide the sidebar, whatever the width from now on (ctrl+b)."""
        self.sidebar_fit.toggle()

    # ------------------------------------------------------------ lifecycle

    def on_unmount(self) -> None:
        """Drop every subscription taken in `on_mount`."""
        self.detach()

    def detach(self) -> None:
        """Stop hearing the session (once; again does nothing): the screen is being replaced,
        and its widgets go before its own unmount, while the session goes on emitting."""
        if self._opening is not None:  # (gone while its session opened)
            self._opening()
            self._opening = None
        unsubscribers, self._unsubscribe = self._unsubscribe, []
        for unsubscribe in unsubscribers:
            unsubscribe()

    def on_screen_resume(self) -> None:
        """Shown (its tab switched to, or a screen over it closed): keys held from a question
        go to this screen's composer, and the oldest open permission prompt takes the focus
        armed, as if it had just come: keys the user typed just before (in another tab) do
        not answer it, and one asked while the tab was hidden gets the keys once shown."""
        if self._paused:
            self._tick_while_shown(True)
        self.parts.composer.claim_held_keys()
        if self.session.thread.waiting_permission():
            self._focus_waiting_permission()

    @property
    def streaming(self) -> bool:
        """Whether the agent's text is streaming into this screen's conversation now."""
        parts: ScreenParts | None = getattr(self, "parts", None)  # (None before compose)
        return parts is not None and parts.conversation.streaming

    @property
    def caught_up_on_show(self) -> bool:
        """Shown again, its conversation has changes to draw (Textual's delay hides them)."""
        return self._paused and self.parts.conversation.missed_anything

    def keeping_waits(self) -> bool:
        """Hidden, its frame is kept (and laid out first) only while the tab shown runs no turn
        (and while a screen is shown: none when the app quits, its timer due meanwhile)."""
        try:
            shown = self.app.screen
        except ScreenStackError:
            return True
        return shown is not self and isinstance(shown, MainScreen) and shown.session.turn_running

    def on_screen_suspend(self) -> None:
        """Its tab switched away from: nothing of it ticks or blinks in the background (a
        screen pushed over it keeps it going: it may still show beneath)."""
        if self.ui is not None and not self.ui.shown and not self._paused:
            self._tick_while_shown(False)
            self.engine.kept_frame.keep_frame_soon()

    def _tick_while_shown(self, shown: bool) -> None:
        """Pause the clock and the prompts' blinking (remembering which blinked), or resume
        them as they were; the conversation and the sidebar draw nothing while hidden and
        catch up once shown."""
        self._paused = not shown
        parts = self.parts
        parts.status.show_clock(shown)
        if not shown:
            self._start_clock.pause()
        elif self.session.state is SessionState.STARTING:
            self._tick_start()
        if shown:
            changed = parts.conversation.catch_up()
            if parts.sidebar.catch_up() or changed:
                self.engine.kept_frame.drop_frame()  # (what changed while hidden is composed anew)
        else:
            parts.conversation.hide()
            parts.sidebar.hide()
        prompts = parts.composer.query(PromptInput).results(PromptInput)
        if not shown:
            self._blinking = [prompt for prompt in prompts if prompt.cursor_blink]
        for prompt in self._blinking:
            prompt.cursor_blink = shown

    def _focus_waiting_permission(self) -> None:
        prompts = self.open_prompts()
        if not prompts or not self.is_current:
            return
        focused = self.focused
        in_prompt = focused is not None and any(
            focused is prompt or prompt in focused.ancestors for prompt in prompts
        )
        if not (in_prompt or focused is None or isinstance(focused, PromptInput)):
            return
        if not prompts[0].take_focus(armed=True) and not isinstance(focused, PromptInput):
            self.action_focus_prompt()  # it waits to be chosen (the user was typing)

    # ------------------------------------------------------------ session → UI

    def _on_state(self, state: SessionState) -> None:
        session = self.session
        status = self.query_one(StatusBar)
        status.agent_name = session.agent_name
        status.state = "not answering" if session.stall is not None else state.value
        status.running_since = time.monotonic() if state is SessionState.RUNNING else None
        self._tick_start()
        self.refresh_bindings()  # (cancel and restart come and go with the state)
        self._on_queue_title()
        banner = self.query_one(CrashBanner)
        if state is SessionState.CRASHED and session.crash is not None:
            banner.show_crash(session.crash, session.agent_name)
            self.app.bell()
        elif state is SessionState.FAILED and session.error:
            banner.show_error(session.error)
        elif state in (SessionState.READY, SessionState.RUNNING) or (
            state is SessionState.STARTING and session.stall is None  # (a stall's stays)
        ):
            banner.hide()
        if state is not SessionState.STARTING:
            for composer in self.query(Composer).results(Composer):
                composer.start_index()  # after the first frame and the handshake
        if state is SessionState.READY:
            self.query_one(Sidebar).refresh_providers()
            if self._opening is not None and session.thread.entries:  # (a load replayed them)
                conversation = self.query_one(ConversationView)
                last = session.thread.entries[-1].id
                collector.collect_once_replayed(
                    conversation,
                    lambda: conversation.placing,
                    lambda: conversation.turn_end.end_streams(last, replayed=True),
                )
        opening = state in (SessionState.STARTING, SessionState.AUTHENTICATING)
        if opening and self._opening is None:
            self._opening = runtime.collection.opening()
        elif not opening and self._opening is not None:
            self._opening()
            self._opening = None
        if state in (SessionState.READY, SessionState.RUNNING):
            self.setting_actions.refresh_modes()
            # a screen mounted after the options came (another session, a new branch whose
            # first prompt already runs)
            self.setting_actions.refresh_model()

    def _tick_start(self) -> None:
        """While the agent starts, once a second: how long it has been starting (the status
        bar) and its stderr (the empty conversation's hint); the clock stops once it started,
        and while the tab is hidden."""
        starting = self.session.state is SessionState.STARTING
        self.parts.status.starting_since = self.session.starting_since if starting else None
        self.query_one(EmptyState).update_state()
        if starting and not self._paused:
            self._start_clock.resume()
        else:
            self._start_clock.pause()

    def _on_stall(self, stall: AgentCrash | None) -> None:
        """The agent has not answered initialize for a while, or opened no session within
        `start_timeout` (None: it has now, or the user waits on)."""
        status = self.query_one(StatusBar)
        banner = self.query_one(CrashBanner)
        if stall is not None:
            banner.show_stall(stall, self.session.agent_name, self.stall_keys())
            status.state = "not answering"
            self.app.bell()
        elif self.session.state not in (SessionState.CRASHED, SessionState.FAILED):
            banner.hide()
            status.state = self.session.state.value
        self._on_queue_title()
        self.refresh_bindings()

    def stall_keys(self) -> str:
        """What a stalled start offers, with the keys as the user's keymap has them."""
        app = self.app
        wait = key_label(app, "main.wait-on", "escape")
        restart = key_label(app, "main.restart-agent", "ctrl+r")
        quit_key = key_label(app, "app.quit", "ctrl+q")
        return f"{wait} wait on · {restart} restart the agent · {quit_key} quit"

    def _on_queue(self, items: list[QueuedPrompt]) -> None:
        self.query_one(QueueView).show_queue(list(items))
        self.query_one(StatusBar).queued = len(items)
        self._on_queue_title()

    def _on_queue_title(self) -> None:
        """While no session is open the queue waits for it, not for a turn's end."""
        session = self.session
        if session.stall is not None:
            waiting = "waiting for the session: the agent is not answering"
        elif session.state in (SessionState.STARTING, SessionState.AUTHENTICATING):
            waiting = "waiting for the session: sent once it is open"
        else:
            waiting = None
        self.query_one(QueueView).waiting_for = waiting

    def _on_notice(self, notice: Notice) -> None:
        notify(self, notice.text, severity=notice.severity)  # type: ignore[arg-type]

    def _on_write(self, report: WriteReport) -> None:
        if report.held:
            notify(self, report.summary(self.session.cwd), title="Written")

    def _on_turn_summary(self, summary: TurnSummary) -> None:
        """Under the turn: the files it changed. A late change updates the line shown at once,
        also while the tab is hidden (one line redrawn in place: nothing to catch up on); a new
        line, while the tab is hidden, when it is shown, in order with the turn's entries."""
        view = self.turn_summaries.get(summary.turn)
        if view is not None:
            view.show(summary)
        else:
            self.parts.conversation.when_shown(lambda: self._show_turn_summary(summary))

    def _show_turn_summary(self, summary: TurnSummary) -> None:
        view = self.turn_summaries.get(summary.turn)
        if view is not None:
            view.show(summary)
        elif summary.files or summary.apart:
            view = TurnSummaryView(summary, self.session.turn_changes, self.session.cwd)
            self.turn_summaries[summary.turn] = view
            self.query_one(ConversationView).mount(view)

    def _on_permission(self, change: thread_changes.PermissionChanged) -> None:
        """A permission request was added to a tool call (its card shows it and takes the
        focus), or answered: then the next open one, else the prompt, gets the focus. One is
        asked at a time: a request waiting behind another says so on its card, no toast."""
        if change.ask.open and change.ask.asked:
            if change.moved or not change.ask.current:
                return
            title = change.entry.title or "a tool call"
            message = f"Permission needed: {title} (f4 goes there)"
            notify(self, message, severity="warning", timeout=4)
            if not self.app.app_focus:
                self.app.bell()
        elif not change.ask.open and change.ask.asked and not self.session.closing:
            # (closing cancels every open question: moving the focus through them one by one
            # looked the whole screen up for each, seconds of the quit with hundreds queued)
            self.action_focus_permission(fallback=True)

    def open_prompts(self) -> list[PermissionPrompt]:
        """The mounted prompts still waiting for an answer, oldest first."""
        prompts = [p for p in self.query(PermissionPrompt).results(PermissionPrompt) if p.ask.open]
        return sorted(prompts, key=lambda p: p.ask.request_id)

    def _on_thread_change(self, change: thread_changes.Change) -> None:
        # Called for every change, text chunks included: touch widgets only when it matters.
        thread = self.session.thread
        match change:
            case thread_changes.PermissionChanged():
                self._on_permission(change)
                if self.session.speaks_v2:  # requires_action points at what waits
                    self.query_one(StatusBar).activity = activity_text(thread)
            case thread_changes.InfoChanged():
                self.query_one(StatusBar).title = thread.title or ""
                self.app.title = thread.title or "acp-tui"
            case thread_changes.UsageChanged():
                self.query_one(StatusBar).usage = describe_usage(thread.usage)
            case thread_changes.ModesChanged() | thread_changes.CurrentModeChanged():
                self.setting_actions.refresh_modes()
            case thread_changes.ConfigOptionsChanged() | thread_changes.ModelsChanged():
                self.setting_actions.refresh_modes()  # a `mode` config option stands in for modes
                self.setting_actions.refresh_model()
            case thread_changes.TurnStateChanged() | thread_changes.BackgroundWorkChanged() if (
                self.session.speaks_v2
            ):
                self.query_one(StatusBar).activity = activity_text(thread)
                self.refresh_bindings()
            case thread_changes.EntryAdded() | thread_changes.CommandsChanged():
                empty = self.query_one(EmptyState)
                if empty.display or isinstance(change, thread_changes.CommandsChanged):
                    empty.update_state()
            case thread_changes.NoticeReceived():
                self._toast_notice(change.notice)

    def _toast_notice(self, notice: ThreadNotice) -> None:
        """A toast for the agent's notice, unless a few were shown this second: then counted,
        and the count told in one toast when the second ends."""
        if self.notice_toasts.admit():
            message, title, severity = notice_toast(notice)
            notify(self, message, title=title, severity=severity)
        elif not self._held_notices_due:
            self._held_notices_due = True
            self.set_timer(self.notice_toasts.until_window_ends(), self._tell_held_notices)

    def _tell_held_notices(self) -> None:
        self._held_notices_due = False
        held = self.notice_toasts.take_held()
        if held:
            more = f"{held} more notice{'s' if held != 1 else ''} from the agent"
            notify(self, f"{more}: listed in the sidebar.", severity="information")

    # ------------------------------------------------------------ UI → session

    @on(PromptInput.Submitted)
    def _submit(self, event: PromptInput.Submitted) -> None:
        if self.rewind_pending is not None:
            point, self.rewind_pending = self.rewind_pending, None
            self.post_message(SendOnBranch(self.session, point, event.text))
            return
        self.session.submit(event.text)
        restart = key_label(self.app, "main.restart-agent", "ctrl+r")
        if self.session.state in (SessionState.CRASHED, SessionState.FAILED):
            notify(self, f"The agent is not running: {restart} restarts it and sends this prompt.")
        elif self.session.stall is not None:
            wait = key_label(self.app, "main.wait-on", "escape")
            notify(self, f"The agent is not answering: your prompt waits for the session "
                   f"({wait} wait on, {restart} restart).", severity="warning")  # fmt: skip
        self.query_one(ConversationView).follow()

    @on(QueuedItem.EditRequested)
    def _edit_queued(self, event: QueuedItem.EditRequested) -> None:
        prompt = self.query_one(PromptInput)
        if self.session.remove_queued(event.item.id) is False:
            return  # (v2: the agent already accepted it)
        prompt.load_text(event.item.text)
        prompt.focus()

    @on(SubagentLaneView.CancelRequested)
    async def _cancel_subagent(self, event: SubagentLaneView.CancelRequested) -> None:
        if await self.session.cancel_subagent(event.session_id):
            notify(self, "Cancelling the subagent…", timeout=2)

    @on(ToolCallCard.StopRequested)
    async def _stop_tool_call(self, event: ToolCallCard.StopRequested) -> None:
        error = await self.session.cancel_tool_call(event.tool_call_id)
        notify(self, error or "Asked the agent to stop it…", timeout=2)

    @on(QueuedItem.RemoveRequested)
    def _remove_queued(self, event: QueuedItem.RemoveRequested) -> None:
        self.session.remove_queued(event.item.id)
        self.query_one(PromptInput).focus()

    def extra_commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        """More palette entries for this session (sessions, fork, logout): name, help, action."""
        from acp_tui.client.session.history import HistoryCapabilities

        caps = HistoryCapabilities.of(self.session.agent_capabilities)
        entries: list[tuple[str, str, Callable[[], object]]] = [
            ("Sessions…", "Open, fork or delete an earlier session", self.action_show_sessions)
        ]
        if caps.fork and self.session.session_id is not None:
            entries.append(
                ("Fork this session", "Continue from here in a new session", self.fork_current)
            )
        if self.session.agent_capabilities.providers is not None:
            entries.append(("LLM providers…", "List, set or disable the agent's providers",
                            self.action_show_providers))  # fmt: skip
        if self.session.session_id is not None:
            entries.append(("Rename session…", "A new title for this session (the tab, the "
                            "overview and, where it can be told, the agent)",
                            self.action_rename_session))  # fmt: skip
        return [*entries, *fork_entries(self), *logout_entries(self)]

    def action_rename_session(self) -> None:
        """Ask for a new title and rename the session (`session/set_title` where offered)."""
        from acp_tui.ui.screens.rename_screen import RenameScreen

        offered = self.session.agent_capabilities.session_capabilities.title is not None
        screen = RenameScreen(self.session.thread.title or "", told_to_agent=offered)

        def renamed(title: str | None) -> None:
            if title is not None:
                self.run_worker(self._rename(title), group="rename")

        self.app.push_screen(screen, renamed)

    async def _rename(self, title: str) -> None:
        problem = await self.session.rename(title)
        if problem is not None:
            notify(self, f"Could not rename the session: {problem}", severity="warning")

    def action_show_providers(self) -> None:
        """Open the agent's provider settings (providers/list)."""
        from acp_tui.ui.screens.providers_screen import ProvidersScreen

        self.app.push_screen(ProvidersScreen(self.session))

    def action_show_sessions(self) -> None:
        """Ask the app for the session picker of this screen's session."""
        self.post_message(ShowSessions(self.session))

    def fork_current(self) -> None:
        """Fork this session (unstable `session/fork`); the conversation stays shown."""
        self.post_message(ForkWhole(self.session))

    def action_fork_here(self) -> None:
        """Continue in a new session from the focused message or tool call, else a picked one."""
        from acp_tui.ui.session_actions import fork_here

        fork_here(self)

    def action_rewind_here(self) -> None:
        """Rewind to before the focused prompt of the user's (else a picked one)."""
        self.post_message(RewindHere(self.session))

    async def action_cancel_turn(self) -> None:
        """Send session/cancel when a turn is running."""
        if self.session.turn_running:
            await self.session.cancel()
            notify(self, "Cancelling…", timeout=2)

    def action_keep_waiting(self) -> None:
        """On a stalled start, wait on (the banner goes, the bound starts again)."""
        if self.session.keep_waiting():
            notify(self, f"Waiting on for {self.session.agent_name}…", timeout=3)

    def action_restart_agent(self) -> None:
        """Restart a crashed, failed or stalled agent (hides the crash banner)."""
        stopped = self.session.state in (SessionState.CRASHED, SessionState.FAILED)
        if stopped or self.session.stall is not None:
            self.query_one(CrashBanner).hide()
            notify(self, "Restarting the agent…", timeout=2)
            self.run_worker(self.session.restart(), group="restart", exclusive=True)

    def action_show_changes(self) -> None:
        """Open the list of the session's file changes (F2)."""
        from acp_tui.ui.screens.changes_screen import ChangesScreen

        self.app.push_screen(ChangesScreen(self.session.reverts, root=self.session.cwd))

    def action_show_rules(self) -> None:
        """Open the saved permission rules, when this session saves them."""
        from acp_tui.ui.screens.rules_screen import RulesScreen

        store = self.session.rules
        if store is None:
            notify(self, "Permission rules are not saved in this session.")
            return
        self.app.push_screen(RulesScreen(store, self.session.settings.permission_policy))

    def action_focus_prompt(self) -> None:
        """Move the focus to the prompt."""
        self.query_one(PromptInput).focus()

    def action_focus_permission(self, fallback: bool = False) -> None:
        """Focus the oldest open permission prompt (else, with `fallback`, the prompt). With
        `fallback` (one was just answered) the next prompt comes up by itself: it holds keys for
        a moment (a key pressed twice must not answer it too), or waits to be chosen if the user
        was typing; f4 (the user goes there) chooses it."""
        prompts = self.open_prompts()
        if prompts and prompts[0].take_focus(armed=fallback):
            return
        if fallback:  # (or the next one waits to be chosen: the user was typing)
            for prompt_input in self.query(PromptInput).results(PromptInput):
                prompt_input.focus()  # (none while the screen is being torn down)

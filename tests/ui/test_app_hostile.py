"""A hostile agent puts escape sequences, C1 bytes, bidi overrides and markup in every field.

The app shows every widget and screen those fields reach (auth screen, main screen with every
card, collapsible and plan unfolded, sidebar, status bar, permission prompt, consent question,
write review, changes, rules, full diff, the frozen history, toasts, crash banner) and each time
the exact bytes Textual would write to the terminal are checked: nothing of the agent's payload
arrives raw, markup is shown as text, and the app keeps running.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.segment import Segment
from textual._compositor import LayoutUpdate
from textual.containers import ScrollableContainer
from textual.screen import Screen
from textual.widgets import Collapsible

from acp_tui.client.events import SessionState
from acp_tui.config import HoldWrites, Settings
from acp_tui.host.permission_rules import RulesStore
from acp_tui.safe_text import is_safe
from acp_tui.thread.entries import MessageEntry, ToolCallEntry
from acp_tui.ui.screens.auth import AuthMethodScreen
from acp_tui.ui.screens.changes_screen import ChangesScreen
from acp_tui.ui.screens.diff_screen import DiffScreen
from acp_tui.ui.screens.question import QuestionScreen
from acp_tui.ui.screens.review_screen import WriteReviewScreen
from acp_tui.ui.screens.rules_screen import RulesScreen
from acp_tui.ui.widgets.card_lines import resource_section
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.crash_banner import CrashBanner
from acp_tui.ui.widgets.entry_state import RAW_INPUT, RAW_OUTPUT, THOUGHT
from acp_tui.ui.widgets.frozen_history import FrozenHistory
from acp_tui.ui.widgets.message_lines import block_section
from acp_tui.ui.widgets.message_view import MessageLines
from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
from acp_tui.ui.widgets.sidebar import Sidebar
from acp_tui.ui.widgets.status_bar import StatusBar
from acp_tui.ui.widgets.terminal_view import TerminalView
from acp_tui.ui.widgets.tool_call_card import ToolCallCard
from tests.agents.hostile import (
    MARKUP_CRASHERS,
    OUTSIDE_NAME,
    PAYLOAD,
    WRITE_NAME,
    hostile_run,
    shown_tag,
)
from tests.agents.scenarios import write_scenario
from tests.ui.app_harness import AppHarness, fixed_cwd, run_app
from tests.ui.conversation_text import live_card

# Textual's own output: cursor moves, SGR styles, OSC 8 hyperlinks. Anything else with an ESC
# (or any other control) in the output came from the content.
_TEXTUAL_SEQUENCES = re.compile(
    r"\x1b\[\d+;\d+H"  # cursor position
    r"|\x1b\[[0-9;:]*m"  # SGR
    r"|\x1b\]8;id=[^;\x1b\x07]*;[^\x1b\x07]*\x1b\\"  # hyperlink start
    r"|\x1b\]8;;\x1b\\"  # hyperlink end
)
ATTACKS = ("\x1b]0;", "\x1b[2J", "\x1b]52;", "\x9b", "\x85", "\u202e", "\u2066", "\x08", "\x7f")


def terminal_output(h: AppHarness) -> tuple[str, list[Segment]]:
    """What Textual writes to the terminal for the whole screen now, and its segments."""
    app = h.app
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    assert isinstance(update, LayoutUpdate)
    segments = [segment for line in update.strips for strip in line for segment in strip]
    return update.render_segments(app.console), segments


def assert_clean(h: AppHarness, where: str) -> str:
    """Nothing raw from the agent on the terminal; returns the screen as plain text."""
    output, segments = terminal_output(h)
    for segment in segments:
        assert is_safe(segment.text) and "\n" not in segment.text, (where, segment.text)
        link = segment.style.link if segment.style is not None else None
        assert link is None or is_safe(link), (where, link)
    for attack in ATTACKS:
        assert attack not in output, (where, attack, output[output.find(attack) - 80 :][:200])
    rest = _TEXTUAL_SEQUENCES.sub("", output)
    assert "\x1b" not in rest, (where, rest[rest.find("\x1b") - 80 :][:200])
    assert is_safe(rest), where
    assert h.app._exception is None, where
    return h.screen_text()


def scroll_positions(h: AppHarness) -> Iterator[None]:
    """Every page of every scrollable area of the current screen, one after another."""
    for scrollable in list(h.app.screen.query(ScrollableContainer)):
        if not scrollable.display or scrollable.max_scroll_y == 0:
            continue
        y = 0
        while True:
            scrollable.scroll_to(y=y, animate=False, immediate=True)
            yield
            if y >= scrollable.max_scroll_y:
                break
            y += max(1, scrollable.scrollable_content_region.height - 1)
        scrollable.scroll_to(y=0, animate=False, immediate=True)


async def assert_clean_everywhere(h: AppHarness, where: str) -> str:
    """`assert_clean` on every page of every scrollable area; returns all the text seen."""
    await h.pilot.pause()
    seen = [assert_clean(h, where)]
    for _ in scroll_positions(h):
        await h.pilot.pause()
        seen.append(assert_clean(h, where))
    return "\n".join(seen)


async def on_screen(h: AppHarness, kind: type[Screen[Any]]) -> None:
    await h.until(lambda: isinstance(h.app.screen, kind), f"the {kind.__name__}")
    await h.pilot.pause()


def unfold_everything(h: AppHarness) -> None:
    """Every card unfolded with every section open and all its output, every thought and
    embedded resource open: live or frozen (a frozen entry draws its view state too)."""
    conversation = h.one(ConversationView)
    for entry in h.session.thread.entries:
        state = conversation.view_state(entry.id)
        if isinstance(entry, ToolCallEntry):
            state.folded = False
            sections = [RAW_INPUT, RAW_OUTPUT, *map(resource_section, range(len(entry.content)))]
            state.sections.update(dict.fromkeys(sections, True))
            state.output_expanded = True
        elif isinstance(entry, MessageEntry):
            sections = [block_section(i) for i, _ in enumerate(entry.blocks)]
            state.sections.update(dict.fromkeys([*sections, THOUGHT], True))
    for card in h.all(ToolCallCard):
        card.update_from_entry()
    for collapsible in h.all(Collapsible):
        collapsible.collapsed = False
    for message in h.all(MessageLines):
        message.redraw()
    for history in h.all(FrozenHistory):
        for item in history.items:
            history.item_changed(item)


def missing(text: str, *tags: str) -> list[str]:
    """Tags not found on the screen (the message says which, not the whole screen)."""
    return [tag for tag in tags if shown_tag(tag) not in text]


async def test_hostile_agent_reaches_every_widget_and_screen_and_nothing_raw_gets_out(
    tmp_path: Path,
) -> None:
    cwd = fixed_cwd(tmp_path)
    (cwd / "w[").mkdir()
    # outside at a path of fixed length: the consent question wraps the path, and where the
    # tag falls must not depend on pytest's temp dir counter
    outside = Path(tempfile.mkdtemp(prefix="acp-hostile-", dir="/tmp"))
    try:
        await _hostile_run(tmp_path, cwd, outside)
    finally:
        shutil.rmtree(outside, ignore_errors=True)


async def _hostile_run(tmp_path: Path, cwd: Path, outside: Path) -> None:
    (outside / OUTSIDE_NAME).write_text("secret\n")
    agent = write_scenario(tmp_path, hostile_run(cwd, outside))
    store = RulesStore(cwd, path=tmp_path / "rules.json")
    kwargs = {"rules": store, "settings": Settings(hold_writes=HoldWrites.ALWAYS)}
    async with run_app(
        agent.argv, cwd, wait_ready=False, size=(150, 50), session_kwargs=kwargs, notifications=True
    ) as h:
        # ---- authentication: agent name, method names, the agent's error
        await on_screen(h, AuthMethodScreen)
        text = await assert_clean_everywhere(h, "auth screen")
        assert not missing(text, "agent", "auth", "authdesc", "autherr", "tauth")
        await h.pilot.press("enter")
        await h.ready()

        # ---- the turn: every update variant
        await h.type_prompt("go")
        await h.until(lambda: h.all(PermissionPrompt), "the permission prompt")
        await h.caught_up()
        unfold_everything(h)
        await h.caught_up()
        text = await assert_clean_everywhere(h, "main screen")
        assert not missing(
            text, "agent", "mode1", "mode2", "mdesc", "cmd", "cmddesc", "plan1", "plan2", "plan3",
            "planfile", "user", "thought", "tool", "tool3", "tooltext", "permission", "opt-once",
            "opt-always", "msg", "linktitle", "resuri", "termcall",
        )  # fmt: skip
        for raw in ("rawin", "rawout"):  # raw JSON: the ESC shows as its JSON escape
            assert f"<{raw}>\\u001b]0;PWNED" in text, raw
        said = "".join(part.plain for _, part in h.one(StatusBar).parts())  # (however narrow)
        assert shown_tag("title") in said
        (terminal,) = h.all(TerminalView)
        assert "\u241b]0;PWNED" in str(terminal.border_title)  # the argv, made safe

        # ---- permission: the toast quoted the title; answer "always" (a rule remembers it)
        assert any(shown_tag("permission") in n for n in h.notified), h.notified
        (prompt,) = h.all(PermissionPrompt)
        prompt.choose("always")

        # ---- consent question: a read outside the session directory
        await on_screen(h, QuestionScreen)
        text = await assert_clean_everywhere(h, "consent question")
        assert not missing(text, "outside")
        await h.pilot.press("d")

        # ---- write review: a hostile file name; the content reaches the disk exactly
        await on_screen(h, WriteReviewScreen)
        await assert_clean_everywhere(h, "review screen")
        await h.pilot.press("enter")
        written = cwd / WRITE_NAME
        await h.until(written.exists, "the reviewed write")
        await h.until(lambda: any("wrote w[/]" in n for n in h.notified), "the write toast")
        assert written.read_bytes() == PAYLOAD.encode()

        # ---- the prompt fails with a hostile error: toast and note keep text and reason
        await h.until(lambda: not h.session.turn_running, "the failed turn")
        await h.pilot.pause()
        assert any(
            shown_tag("prompterr") in n and shown_tag("prompterr-why") in n for n in h.notified
        ), h.notified
        await h.until(h.turn_end_settled, "the turn end's freezing")
        unfold_everything(h)
        text = await assert_clean_everywhere(h, "after the failed prompt")
        assert not missing(text, "prompterr")

        # ---- changes, rules, full diff
        h.app.screen.query_one(ConversationView).focus()
        await h.pilot.press("f2")
        await on_screen(h, ChangesScreen)
        changes = h.app.screen
        assert isinstance(changes, ChangesScreen)
        await h.until(lambda: changes.loads > 0, "the changes list")
        await assert_clean_everywhere(h, "changes screen")
        await h.pilot.press("escape")
        await h.pilot.press("f3")
        await on_screen(h, RulesScreen)
        text = await assert_clean_everywhere(h, "rules screen")
        assert shown_tag("diffpath") in text  # an "always" rule covers the paths it touches
        await h.pilot.press("escape")
        edit = h.session.thread.tool_calls["t-edit"]
        card = await live_card(h.pilot, h.one(ConversationView), edit.id)  # (Enter thaws it)
        card.action_show_diff()
        await on_screen(h, DiffScreen)
        await assert_clean_everywhere(h, "diff screen")
        await h.pilot.press("escape")

        # ---- the frozen history draws the same entries from their data
        conversation = h.one(ConversationView)
        conversation.freeze_all()  # (the turn end froze the others; the card thawed for d)
        await h.pilot.pause()
        assert conversation.frozen_entry_ids and h.all(FrozenHistory)
        text = await assert_clean_everywhere(h, "frozen history")
        assert not missing(text, "tool", "msg")

        # ---- a mode switch the agent refuses
        await h.pilot.press("shift+tab")
        await h.until(lambda: any(shown_tag("modeerr") in n for n in h.notified), "mode toast")
        assert any(shown_tag("modeerr-why") in n for n in h.notified), h.notified
        await assert_clean_everywhere(h, "mode error toast")

        # ---- the crash banner with the agent's stderr
        await h.until(lambda: h.session.state is SessionState.CRASHED, "the crash")
        banner = h.one(CrashBanner)
        await h.until(lambda: banner.has_class("-visible"), "the crash banner")
        text = await assert_clean_everywhere(h, "crash banner")
        assert not missing(text, "agent", "stderr")

        # ---- markup was never parsed: the crashers are on screen as text, the app runs
        for crasher in MARKUP_CRASHERS:
            assert any(crasher in n for n in h.notified), (crasher, h.notified)
        assert h.logged_errors == []
        await h.pilot.press("ctrl+b")  # still answering keys
        sidebar = h.one(Sidebar)
        await h.until(lambda: not sidebar.display, "the sidebar to hide")
        assert h.app._exception is None

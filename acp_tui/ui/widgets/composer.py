"""The prompt with its helpers: the completion list above it and the mention chips below.

Typing `/` at the start opens the slash commands (the agent's, live as it updates them, and
acp-tui's own, `//name`, each labelled); `@` opens the file picker over the session directory's
index. A prompt naming one of acp-tui's commands (`//export out.md`, or `/export out.md` while
the agent has no `export`) is not sent: the composer posts `Composer.LocalCommand` and the
screen runs it. Every other `/name` goes to the agent as typed.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from acp_tui.composer.file_index import FileIndex
from acp_tui.composer.mentions import Mention, find_mentions, mention_at, mention_text
from acp_tui.composer.path_search import SLICE, Search
from acp_tui.composer.prompt_content import IMAGE_TYPES, media_kind, mime_type
from acp_tui.composer.slash import (
    SlashCommand,
    agent_commands,
    completing_name,
    filter_commands,
    hint_for,
    local_command,
    merged,
)
from acp_tui.host.dir_watch import DirectoryWatchers
from acp_tui.host.local_files import path_kind
from acp_tui.thread import thread_changes
from acp_tui.thread.thread import Thread
from acp_tui.ui.key_guard import KeyGuard
from acp_tui.ui.widgets.completion_list import MAX_SHOWN, CompletionList
from acp_tui.ui.widgets.prompt_input import PromptInput


class MentionChips(Static):
    """The files the prompt mentions, as chips (only those that exist)."""

    DEFAULT_CSS = """
    MentionChips { height: auto; padding: 0 1; color: $text-muted; display: none; }
    MentionChips.-some { display: block; }
    """

    _shown: tuple[str, ...] = ()

    def show(self, mentions: Sequence[tuple[Mention, Path]]) -> None:
        """Show the prompt's @-mentions as chips (unchanged mentions cause no redraw)."""
        labels = tuple(mention.label for mention, _ in mentions)
        if labels == self._shown:
            return  # most keystrokes change no mention: no refresh, no layout
        self._shown = labels
        text = Text()
        for mention, path in mentions:
            if path_kind(path) == "directory":
                icon = "📁"
            elif (mime_type(path) or "") in IMAGE_TYPES:
                icon = "🖼"
            elif (mime_type(path) or "").startswith("audio/"):
                icon = "🔊"
            else:
                icon = "📎"
            text.append(f" {icon} {mention.label} ", style="reverse")
            text.append(" ")
        self.update(text)
        self.set_class(bool(mentions), "-some")


class Composer(Vertical):
    """The prompt with its completion list and mention chips: what the user sends, slash commands
    and @-mentions."""

    DEFAULT_CSS = """
    Composer { height: auto; }
    """

    @dataclass
    class LocalCommand(Message):
        """The user ran one of acp-tui's own slash commands (`name` and the text after it)."""

        name: str
        args: str

    def __init__(
        self,
        thread: Thread,
        cwd: Path,
        local_commands: Sequence[SlashCommand] = (),
        *,
        index: FileIndex | None = None,
        watchers: DirectoryWatchers | None = None,
        id: str | None = None,
    ) -> None:
        """`watchers`: the session's directory watchers, which keep the file index fresh
        (shared with its change monitor and the other sessions in the directory)."""
        super().__init__(id=id)
        self.thread = thread
        self.cwd = cwd
        self.local_commands = list(local_commands)
        self.index = index if index is not None else FileIndex(cwd)
        self.watchers = watchers if watchers is not None else DirectoryWatchers()
        self._unsubscribe: list[object] = []
        self._search: Search | None = None
        self._index_started = False

    def compose(self) -> ComposeResult:
        yield CompletionList(id="completion")
        yield PromptInput(id="prompt")
        yield MentionChips(id="chips")

    def on_mount(self) -> None:
        """Wire the prompt to its completion list, hints and paste handling, and follow the
        thread.
        """
        prompt = self.query_one(PromptInput)
        prompt.completion = self.query_one(CompletionList)
        prompt.hint_source = lambda text: hint_for(text, self.commands())
        prompt.paste_transform = self._pasted
        self._unsubscribe.append(self.thread.subscribe(self._on_thread_change))
        self._unsubscribe.append(self.index.changed.subscribe(self._index_changed))
        self.claim_held_keys()
        # the file index is built once the session is open (`start_index`), not on the way to
        # the first frame: walking the tree in a thread slowed the main thread while it started

    def start_index(self) -> None:
        """Build the file index (in a thread), then follow the tree (once): when the session
        has opened (the screen calls it), or at the first @-mention typed before that. The
        thread starts once the screen has been drawn: its listing (git, a stat a file) holds
        the interpreter by turns with the loop, and the frame that says "ready" goes first."""
        if not self._index_started:
            self._index_started = True
            self.call_after_refresh(self._build_index)

    def claim_held_keys(self) -> None:
        """Keys a question holds go here (the composer of the session shown, with several)."""
        KeyGuard.of(self.app).composer_sink = self.take_held_key

    def on_unmount(self) -> None:
        """Stop following the thread and give up the key guard's composer sink if it is this
        one's.
        """
        for unsubscribe in self._unsubscribe:
            unsubscribe()  # type: ignore[operator]
        guard = KeyGuard.of(self.app)
        if guard.composer_sink == self.take_held_key:
            guard.composer_sink = None

    def take_held_key(self, key: str, character: str | None, focus: bool) -> None:
        """A key typed while a question held the keys (`KeyGuard`): it lands here, where the
        user was typing (a printable character or backspace; other keys are dropped)."""
        prompt = self.query_one(PromptInput)
        if focus:
            self.screen.set_focus(prompt)  # now: the next key already on its way goes there
        if character is not None:
            prompt.insert_text(character)
        elif key == "backspace":
            prompt.action_delete_left()

    @work(thread=True, group="file-index", exclusive=True)
    def _build_index(self) -> None:
        self.index.build()
        self.app.call_from_thread(self._index_built)

    def _index_built(self) -> None:
        if self._being_removed():  # (the index thread ended as the app closed)
            return
        self._refresh_completion()
        self._watch_index()

    def _being_removed(self) -> bool:
        """Whether the composer, or its completion list, is already gone (the app closing): the
        file index's callbacks come from a thread and the watcher, at any time."""
        return not self.is_attached or not self.query(CompletionList)

    @work(group="file-index-watch", exclusive=True)
    async def _watch_index(self) -> None:
        with contextlib.suppress(OSError, RuntimeError):
            await self.index.watch(self.watchers)

    def _index_changed(self, _: None) -> None:
        if not self._being_removed():
            self._refresh_completion()  # an open file list shows new files at once

    def _pasted(self, text: str) -> str:
        """A pasted (or dropped) path to an image or audio file becomes an @-mention."""
        path = pasted_media_path(text, self.cwd)
        if path is None:
            return text
        shown = path.relative_to(self.cwd) if path.is_relative_to(self.cwd) else path
        return mention_text(shown.as_posix()) + " "

    def commands(self) -> list[SlashCommand]:
        """The slash commands offered now: the agent's and acp-tui's, merged."""
        return merged(agent_commands(self.thread.commands), self.local_commands)

    def _on_thread_change(self, change: thread_changes.Change) -> None:
        if isinstance(change, thread_changes.CommandsChanged):
            self._refresh_completion()

    # ------------------------------------------------------------------ completion

    @on(PromptInput.Changed)
    def _prompt_changed(self, event: PromptInput.Changed) -> None:
        self._refresh_completion()
        self._refresh_chips()

    @on(PromptInput.SelectionChanged)
    def _cursor_moved(self, event: PromptInput.SelectionChanged) -> None:
        self._refresh_completion()

    def _refresh_completion(self) -> None:
        prompt = self.query_one(PromptInput)
        completion = self.query_one(CompletionList)
        self._search = None
        text, cursor = prompt.text, _offset(prompt)
        if cursor is None:
            completion.close()
            return
        name = completing_name(text, cursor)
        if name is not None:
            completion.show_commands(filter_commands(self.commands(), name), 0)
            return
        mention = mention_at(text, cursor)
        if mention is not None and not self.index.built:
            self.start_index()  # typed before the session opened: the list shows once built
        elif mention is not None:
            start, query = mention
            self._search = search = self.index.search(query)
            done = search.run(SLICE)
            completion.show_paths(search.results, start)
            if not done:
                self.call_after_refresh(self._go_on_searching, search, start)
            return
        completion.close()

    def _go_on_searching(self, search: Search, start: int) -> None:
        """Another slice of a search over a big tree. Its results only grow at the end, so the
        rows shown stay where they are (and so does the highlight)."""
        completion = self.query_one(CompletionList)
        before = len(search.results)
        if search is not self._search or (before and not completion.has_class("-open")):
            return  # the prompt changed meanwhile, or the list was closed (escape)
        done = search.run(SLICE)
        results = search.results
        if len(results) > before and before < MAX_SHOWN:
            highlighted = completion.highlighted
            completion.show_paths(results, start)
            completion.highlighted = highlighted
        if not done:
            self.call_after_refresh(self._go_on_searching, search, start)

    def _refresh_chips(self) -> None:
        text = self.query_one(PromptInput).text
        found = []
        for mention in find_mentions(text)[:20]:
            path = Path(os.path.expanduser(mention.path))
            path = path if path.is_absolute() else self.cwd / path
            if path_kind(path) is not None:
                found.append((mention, path))
        self.query_one(MentionChips).show(found)

    @on(PromptInput.CompletionChosen)
    def _complete(self, event: PromptInput.CompletionChosen) -> None:
        prompt = self.query_one(PromptInput)
        chosen = event.completion
        cursor = _offset(prompt) or 0
        if chosen.kind == "slash":
            start, end = 0, cursor
            replacement = f"/{chosen.value} "
        else:
            start, end = chosen.start, cursor
            folder = chosen.value.endswith("/")
            replacement = mention_text(chosen.value) + ("" if folder else " ")
        location_start = _location(prompt, start)
        location_end = _location(prompt, end)
        result = prompt.replace(replacement, location_start, location_end)
        prompt.move_cursor(result.end_location)

    @on(PromptInput.Submitted)
    def _submitted(self, event: PromptInput.Submitted) -> None:
        agent = agent_commands(self.thread.commands)
        parsed = local_command(event.text, self.local_commands, agent)
        if parsed is not None:
            event.stop()
            self.post_message(self.LocalCommand(parsed.name, parsed.args.strip()))


def pasted_media_path(text: str, cwd: Path) -> Path | None:
    """The image or audio file a paste names (a path or file:// URL, as terminals paste dropped
    files), if it is one that exists."""
    candidate = text.strip()
    if not candidate or "\n" in candidate or len(candidate) > 4096:
        return None
    if candidate[0] == candidate[-1] and candidate[0] in "'\"" and len(candidate) > 1:
        candidate = candidate[1:-1]  # terminals quote dropped paths with spaces
    if candidate.startswith("file://"):
        from urllib.parse import unquote, urlparse

        candidate = unquote(urlparse(candidate).path)
    path = Path(os.path.expanduser(candidate))
    path = path if path.is_absolute() else cwd / path
    if media_kind(mime_type(path)) is None or path_kind(path) != "file":
        return None
    return path


def _offset(prompt: PromptInput) -> int | None:
    """The cursor as an offset into the text, None while text is selected."""
    if not prompt.selection.is_empty:
        return None
    row, column = prompt.cursor_location
    lines = prompt.document.lines
    return sum(len(line) + 1 for line in lines[:row]) + column


def _location(prompt: PromptInput, offset: int) -> tuple[int, int]:
    for row, line in enumerate(prompt.document.lines):
        if offset <= len(line):
            return row, offset
        offset -= len(line) + 1
    last = prompt.document.line_count - 1
    return last, len(prompt.document.get_line(last))

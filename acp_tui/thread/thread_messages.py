"""The conversation's messages as the thread keeps them: chunks coalesced into the message they
continue, the agent's echo of the prompt just sent held back (`echo.py`), and the v2 reducer's
message upserts by id.

A part `Thread` owns (`Thread.message_part`): it sees the thread through `EntryReading`, adds
its entries and emits on the thread's signal through it. The thread tells it when a turn's
state changed (the next chunk starts a new message) and when any entry was added.
"""

from __future__ import annotations

from acp_tui.protocol.models import (
    AgentMessageChunk,
    AgentThoughtChunk,
    ContentBlock,
    TextContent,
    UserMessageChunk,
)
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.echo import PromptEcho
from acp_tui.thread.entries import MessageEntry, MessageRole
from acp_tui.thread.part_host import EntryReading

CHUNK_ROLES: dict[str, MessageRole] = {
    "agent_message_chunk": "agent",
    "agent_thought_chunk": "thought",
    "user_message_chunk": "user",
}
"""The role of the message each kind of chunk streams into."""


def _is_plain_text(block: TextContent) -> bool:
    return block.annotations is None and block.meta is None and not block.model_extra


class ThreadMessages:
    """The messages of one thread (see the module docstring)."""

    def __init__(self, thread: EntryReading) -> None:
        self._thread = thread
        self._break_coalescing = False  # a turn's state changed since the last entry
        self._echo: PromptEcho | None = None  # the prompt of the running turn, if it may echo

    def reset(self) -> None:
        """Forget the running turn's prompt (another session opens in the thread)."""
        self._break_coalescing = False
        self._echo = None

    def entry_added(self) -> None:
        """An entry was added to the thread: chunks coalesce into it again, if it is theirs."""
        self._break_coalescing = False

    def turn_changed(self, running: bool) -> None:
        """The turn's state changed: the next chunk starts a new message; a turn that ended
        has no echo left (an echo cut short is still only an echo)."""
        self._break_coalescing = True
        if not running:
            self._echo = None

    def add_user_prompt(self, blocks: list[ContentBlock]) -> MessageEntry:
        """The prompt the user sent, as a new user message (its echo is expected from now)."""
        entry = MessageEntry("user", list(blocks), id=self._thread.next_entry_id())
        self._thread.place_entry(entry)
        self._echo = PromptEcho(blocks)
        return entry

    def append_text(self, role: MessageRole, text: str, message_id: str | None) -> None:
        """A text chunk: into the message it continues, else a new message."""
        if role == "user" and self._echo is not None:
            if self._echo.absorb(text):
                return
            text = self._end_echo() + text
        entry = self._message_for(role, message_id)
        if entry is None:
            entry = MessageEntry(role, message_id=message_id, id=self._thread.next_entry_id())
            entry.append_text(text)
            self._thread.place_entry(entry)
            return
        index, text = entry.append_text(text)
        self._thread.changed.emit(ch.MessageChunkAppended(entry, index, text))

    def on_chunk(self, update: UserMessageChunk | AgentMessageChunk | AgentThoughtChunk) -> None:
        role = CHUNK_ROLES[update.session_update]
        block = update.content
        if type(block) is TextContent and _is_plain_text(block):
            self.append_text(role, block.text, update.message_id)
            return
        if role == "user" and self._echo is not None:
            held = self._end_echo()
            if held:
                self.append_text(role, held, update.message_id)
        entry = self._message_for(role, update.message_id)
        if entry is None:
            entry = MessageEntry(role, [block], update.message_id, id=self._thread.next_entry_id())
            self._thread.place_entry(entry)
            return
        self.append_block(entry, block)

    def add(
        self, role: MessageRole, blocks: list[ContentBlock], message_id: str | None
    ) -> MessageEntry:
        """A new message at the end of the conversation (never coalesced into the last one)."""
        entry = MessageEntry(role, list(blocks), message_id, id=self._thread.next_entry_id())
        self._thread.place_entry(entry)
        return entry

    def append_block(self, entry: MessageEntry, block: ContentBlock) -> None:
        """One more block of `entry`, wherever it is (text merges into a trailing text block)."""
        index, text = entry.append_block(block)
        if text is None:
            self._thread.changed.emit(ch.EntryChanged(entry))
        else:
            self._thread.changed.emit(ch.MessageChunkAppended(entry, index, text))

    def replace(
        self, entry: MessageEntry, blocks: list[ContentBlock], message_id: str | None = None
    ) -> None:
        """`entry`'s content is now `blocks`; with `message_id`, the agent's id for it."""
        if message_id is not None:
            entry.message_id = message_id
        entry.replace_blocks(blocks)
        self._thread.changed.emit(ch.EntryChanged(entry))

    def _message_for(self, role: MessageRole, message_id: str | None) -> MessageEntry | None:
        """The message a chunk of this role/id coalesces into, if it is the last entry."""
        entries = self._thread.entries
        if self._break_coalescing or not entries:
            return None
        last = entries[-1]
        if type(last) is not MessageEntry or last.role != role:
            return None
        if message_id is not None and last.message_id != message_id:
            if last.message_id is not None:
                return None
            last.message_id = message_id
        return last

    def _end_echo(self) -> str:
        """Stop treating user chunks as an echo; returns held text that was not one after all."""
        echo, self._echo = self._echo, None
        return echo.not_an_echo() if echo is not None else ""

"""Unstable `notice` and compaction updates in the reducer: notices apart from the entries,
compactions upserted by id with patch semantics, summary chunks appended."""

from __future__ import annotations

from typing import Any

from acp_tui.protocol import models as m
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.entries import CompactionEntry
from acp_tui.thread.thread import Thread
from tests.unit.thread_support import chunk, notify


def compaction(status: str, cid: str = "c1", **fields: Any) -> dict[str, Any]:
    return {"sessionUpdate": "compaction_update", "compactionId": cid, "status": status, **fields}


def summary_chunk(text: str, cid: str = "c1") -> dict[str, Any]:
    return {
        "sessionUpdate": "compaction_summary_chunk",
        "compactionId": cid,
        "content": {"type": "text", "text": text},
    }


def test_a_notice_is_kept_apart_from_the_conversation(
    thread: Thread, events: list[ch.Change]
) -> None:
    notice = {"sessionUpdate": "notice", "severity": "warning", "title": "Quota\x1b[2J low"}
    notify(thread, {**notice, "description": "80% used\u202e"})
    notify(thread, {"sessionUpdate": "notice", "severity": "_vendor", "title": "Custom"})
    assert thread.entries == []
    first, second = thread.notices
    assert "\x1b" not in first.title and first.title.startswith("Quota")
    assert first.description is not None and first.description.startswith("80% used")
    assert "\u202e" not in first.description
    assert (first.level, second.level) == ("warning", "info")
    assert events == [ch.NoticeReceived(first), ch.NoticeReceived(second)]


def test_a_notice_without_title_is_an_unknown_update(thread: Thread) -> None:
    notify(thread, {"sessionUpdate": "notice", "severity": "info", "title": ""})
    assert thread.notices == []
    assert len(thread.entries) == 1


def test_compaction_is_one_entry_at_its_first_update(
    thread: Thread, events: list[ch.Change]
) -> None:
    notify(thread, compaction("in_progress"))
    notify(thread, chunk("agent_message_chunk", "after"))
    notify(thread, summary_chunk("The user "))
    notify(thread, summary_chunk("fixed total()."))
    notify(thread, compaction("completed"))
    entry, message = thread.entries
    assert isinstance(entry, CompactionEntry) and entry.status == "completed"
    assert entry.summary == [m.TextContent(text="The user fixed total().")]
    assert message.id > entry.id  # the compaction stays where it started
    assert events[0] == ch.EntryAdded(entry)
    assert events[2:] == [ch.EntryChanged(entry)] * 3


def test_compaction_patch_semantics(thread: Thread) -> None:
    block = {"type": "text", "text": "kept"}
    notify(thread, compaction("completed", summary=[block], _meta={"a": 1}))
    [entry] = thread.entries
    assert isinstance(entry, CompactionEntry)
    assert entry.summary == [m.TextContent(text="kept")] and entry.meta == {"a": 1}
    notify(thread, compaction("completed"))  # omitted: unchanged
    assert entry.summary == [m.TextContent(text="kept")] and entry.meta == {"a": 1}
    notify(thread, compaction("completed", summary=[]))  # []: cleared
    assert entry.summary == []
    notify(thread, compaction("completed", summary=[block]))
    notify(thread, compaction("failed", summary=None, error="context too large", _meta=None))
    assert entry.summary == [] and entry.meta is None
    assert (entry.status, entry.error) == ("failed", "context too large")
    notify(thread, compaction("failed", error=None))  # null clears
    assert entry.error is None
    assert len(thread.entries) == 1


def test_a_chunk_before_its_compaction_starts_it(thread: Thread) -> None:
    notify(thread, summary_chunk("early"))
    [entry] = thread.entries
    assert isinstance(entry, CompactionEntry)
    assert entry.status == "in_progress" and entry.summary == [m.TextContent(text="early")]


def test_reset_forgets_notices_and_compactions(thread: Thread) -> None:
    notify(thread, {"sessionUpdate": "notice", "severity": "info", "title": "x"})
    notify(thread, compaction("in_progress"))
    thread.reset()
    notify(thread, compaction("in_progress"))
    assert thread.notices == [] and len(thread.entries) == 1

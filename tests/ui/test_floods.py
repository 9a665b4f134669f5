"""A hostile agent floods the client (tests/agents/flood_agent.py, a real process): tool calls
by the thousand stay data until shown, ctrl+q quits while the flood still arrives, and
questions (elicitations, permission requests) are asked one at a time, oldest first."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Sized
from functools import partial
from pathlib import Path
from typing import Any

from textual.widgets import Static

from acp_tui.ui.screens.elicitation_screen import ElicitationScreen
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.entry_lines import EntryLines
from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
from acp_tui.ui.widgets.tool_call_card import ToolCallCard
from tests.agents.scenarios import SCRIPTED_AGENT
from tests.ui.app_harness import AppHarness, fixed_cwd, plain, run_app

FLOOD_AGENT = SCRIPTED_AGENT.parent / "flood_agent.py"
WIDGET_BOUND = 600
"""Mounted widgets on the main screen: the app's own plus the conversation's live window."""
TOOL_CALLS = 3_000
"""Five times the widget bound (drawn as widgets they fail it at once), 75 freeze batches."""


def flood(kind: str, count: int, *extra: str) -> list[str]:
    return [sys.executable, str(FLOOD_AGENT), kind, str(count), *extra]


def widgets(h: AppHarness) -> int:
    return len(list(h.app.screen.walk_children()))


async def test_thousands_of_tool_calls_stay_data_until_shown(tmp_path: Path) -> None:
    async with run_app(flood("tool_call", TOOL_CALLS), fixed_cwd(tmp_path)) as h:
        await h.type_prompt("flood me")
        most = 0

        def arrived() -> bool:
            nonlocal most
            most = max(most, widgets(h))
            return len(h.session.thread.tool_calls) == TOOL_CALLS and not h.session.turn_running

        await h.until(arrived, f"the {TOOL_CALLS} tool calls", seconds=120)
        conversation = h.one(ConversationView)
        newest = f"call-{TOOL_CALLS - 1}"
        await h.until(lambda: newest in h.screen_text(), "the newest call on screen")
        assert most < WIDGET_BOUND and widgets(h) < WIDGET_BOUND
        live_entries = conversation.window.live_entries
        assert len(conversation.views) <= live_entries * 2
        assert len(conversation.frozen_entry_ids) >= TOOL_CALLS - live_entries * 2


async def test_ctrl_q_quits_while_a_tool_call_flood_still_arrives(tmp_path: Path) -> None:
    async with run_app(flood("tool_call", 2_000, "--forever"), fixed_cwd(tmp_path)) as h:
        process = h.session._process
        assert process is not None
        agent_pid = process.pid
        await h.type_prompt("flood me")
        await h.until(lambda: len(h.session.thread.tool_calls) > 3_000, "the flood", seconds=60)
        arrived = len(h.session.thread.tool_calls)
        await h.pilot.press("ctrl+q")
        async with asyncio.timeout(30):  # (a deadline for a hung quit, not a measure)
            while h.app.is_running:  # noqa: ASYNC110 (the app's state has no event to await)
                await asyncio.sleep(0.05)
        assert len(h.session.thread.tool_calls) >= arrived
        await wait_gone(agent_pid)


async def wait_gone(pid: int) -> None:
    async with asyncio.timeout(15):
        while "Z" not in _state(pid):  # noqa: ASYNC110 (a process of no parent of ours)
            await asyncio.sleep(0.05)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "Z"


def is_not_shown(h: AppHarness, screen: object) -> bool:
    return h.app.screen is not screen


def has_length(sized: Sized, length: int) -> bool:
    return len(sized) == length


def answers(transcript: Path) -> dict[str, Any]:
    """The app's answers to the agent's requests, by request id."""
    frames = [json.loads(line) for line in transcript.read_text().splitlines()]
    return {f["id"]: f.get("result", f.get("error")) for f in frames if "method" not in f}


async def test_fifty_elicitations_are_asked_one_screen_at_a_time_in_order(tmp_path: Path) -> None:
    transcript = tmp_path / "frames.jsonl"
    argv = flood("elicitation", 50, "--transcript", str(transcript))
    async with run_app(argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("ask me")
        await h.until(lambda: len(h.session.elicitations.open) == 50, "the 50 questions")
        for index in range(3):  # by keys: each answer to its own question, in order
            await h.until(
                lambda: isinstance(h.app.screen, ElicitationScreen) and h.app.screen.is_mounted,
                f"question {index}",
            )
            screen = h.app.screen
            assert isinstance(screen, ElicitationScreen)
            stacked = [s for s in h.app.screen_stack if isinstance(s, ElicitationScreen)]
            assert stacked == [screen], "one question on the screen at a time"
            assert plain(screen.query_one("#message", Static)) == f"Question {index}"
            waiting = plain(screen.query_one("#waiting-count", Static))
            assert waiting == f"{49 - index} more questions waiting"
            await h.pilot.press(*f"n{index}", "tab", "enter")
            await h.until(partial(is_not_shown, h, screen), f"question {index} answered")
        await h.until(lambda: len(answers(transcript)) == 3, "three answers")
        await h.session.cancel()  # the turn ends: the questions still waiting are cancelled
        await h.settle()
        assert not [s for s in h.app.screen_stack if isinstance(s, ElicitationScreen)]
        got = answers(transcript)
        accepted = [{"action": "accept", "content": {"name": f"n{i}"}} for i in range(3)]
        assert [got[f"e-{i}"] for i in range(50)] == accepted + [{"action": "cancel"}] * 47


def conversation_text(h: AppHarness) -> str:
    """What the conversation draws, live cards and frozen history, on screen or not."""
    parts = h.one(ConversationView).query_children("ToolCallCard, FrozenHistory")
    return "\n".join(part.text for part in parts if isinstance(part, ToolCallCard | EntryLines))


async def test_five_hundred_permission_requests_show_one_live_prompt(tmp_path: Path) -> None:
    transcript = tmp_path / "frames.jsonl"
    argv = flood("permission", 500, "--transcript", str(transcript))
    async with run_app(argv, fixed_cwd(tmp_path)) as h:
        await h.type_prompt("ask me")
        queue = h.session.thread.permission_queue
        most = 0

        def asked() -> bool:
            nonlocal most
            most = max(most, len(h.all(PermissionPrompt)))
            return len(queue) == 500 and bool(h.all(PermissionPrompt))

        await h.until(asked, "the 500 questions", seconds=60)
        card = next(a for a in h.all(PermissionPrompt)[0].ancestors if isinstance(a, ToolCallCard))
        await h.until(  # the card is drawn again once the rest of the flood has arrived
            lambda: "499 more questions waiting after this one" in card.text, "the count shown"
        )
        await h.until(
            lambda: "waiting: 1 question before this one" in conversation_text(h), "the 2nd card"
        )
        for index in range(3):  # keys answer the oldest, one after the other
            await h.until(
                lambda: (
                    [p.ask.request_id for p in h.all(PermissionPrompt) if p.ask.open]
                    == [queue.oldest()]
                    and h.app.screen.focused is not None
                    and h.app.screen.focused in h.all(PermissionPrompt)[0].query("*")
                ),
                f"prompt {index} focused",
            )
            most = max(most, len(h.all(PermissionPrompt)))
            await h.pilot.press("a" if index != 1 else "r")
            await h.until(partial(has_length, queue, 499 - index), f"answer {index}")
        await h.until(lambda: len(answers(transcript)) == 3, "three answers sent")
        text = conversation_text(h)  # the last call had 499 questions before it, now 496
        assert "waiting: 499 questions" not in text and "waiting: 497 questions" not in text
        assert "waiting: 496 questions before this one" in text
        got = answers(transcript)
        chosen = {key: value["outcome"].get("optionId") for key, value in got.items()}
        assert chosen == {"p-0": "allow", "p-1": "reject", "p-2": "allow"}
        assert most <= 2  # one live prompt (and the one answered, while it unmounts)
        conversation = h.one(ConversationView)
        window = conversation.window
        assert len(conversation.views) <= window.live_entries * 2 + window.freeze_batch
        await h.pilot.press("escape")  # cancel the turn: the rest are answered "cancelled"
        await h.until(lambda: not len(queue), "the queue emptied")

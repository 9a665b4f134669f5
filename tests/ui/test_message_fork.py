"""Continue from a message in a new session (f7, the palette): session/fork from the latest
message, a new session carrying the conversation up to an earlier one as context."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp_tui.client.message_fork import CONTEXT_INTRO
from acp_tui.protocol.models import EmbeddedResource
from acp_tui.thread.entries import MessageEntry
from acp_tui.ui.screens.choice_picker import ChoicePicker
from acp_tui.ui.screens.main import MainScreen
from acp_tui.ui.widgets.conversation import ConversationView
from tests.agents.scenarios import (
    agent_text,
    end_turn,
    expect_prompt,
    initialize_ok,
    new_session_ok,
    update,
    write_scenario,
)
from tests.ui.app_harness import MODES, SID, AppHarness, fixed_cwd, run_app
from tests.ui.conversation_text import focus_entry
from tests.ui.test_settings_section import open_from_palette, options, pick

CODE_MODES = {**MODES, "currentModeId": "code"}
FORK_MODES = {"currentModeId": "b", "availableModes": [{"id": "b", "name": "B"}]}


def turn(answer: str, save_as: str, session_id: str = SID, tool: str | None = None) -> list[Any]:
    steps: list[Any] = [expect_prompt(save_as)]
    if tool is not None:
        steps.append(update(session_id, {"sessionUpdate": "tool_call", "toolCallId": tool,
                                         "title": f"Read {tool}", "kind": "read",
                                         "status": "completed"}))  # fmt: skip
    return [*steps, agent_text(session_id, answer), end_turn(save_as)]


def entry_with(h: AppHarness, text: str) -> MessageEntry:
    return next(
        e for e in h.session.thread.entries if isinstance(e, MessageEntry) and e.text == text
    )


async def test_from_the_latest_message_the_session_is_forked_and_stays_shown(
    tmp_path: Path,
) -> None:
    steps = [
        initialize_ok(sessionCapabilities={"fork": {}, "close": {}}),
        new_session_ok(),
        *turn("first answer", "p1"),
        {"expect": "session/fork", "match": {"sessionId": SID},
         "respond": {"sessionId": "fork-1", "modes": FORK_MODES}},
        {"expect": "session/close", "match": {"sessionId": SID}, "respond": {}},
        *turn("in the fork", "p2", "fork-1"),
    ]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.prompt("question one")
        screen = h.app.screen
        await h.pilot.press("f7")  # nothing focused in the conversation: pick the message
        await h.until(lambda: isinstance(h.app.screen, ChoicePicker), "the message picker")
        await pick(h, str(entry_with(h, "first answer").id))  # the latest: highlighted first
        await h.until(lambda: h.session.session_id == "fork-1", "the fork")
        await h.until(lambda: any("Forked" in n for n in h.notified), "the notice")
        assert h.app.screen is screen, "the conversation stays on screen"
        assert [m.id for m in h.session.thread.modes] == ["b"]
        assert h.sent_methods("session/new") == [h.sent_methods("session/new")[0]]
        assert h.sent_methods("session/resume") == [] and h.sent_methods("session/load") == []
        await h.prompt("go on")
        sent = h.sent_methods("session/prompt")[-1]["params"]
        assert sent == {"sessionId": "fork-1", "prompt": [{"type": "text", "text": "go on"}]}
        texts = [e.text for e in h.session.thread.entries if isinstance(e, MessageEntry)]
        assert texts == ["question one", "first answer", "go on", "in the fork"]


async def test_from_an_earlier_message_a_new_session_carries_the_conversation_so_far(
    tmp_path: Path,
) -> None:
    steps = [
        initialize_ok(promptCapabilities={"embeddedContext": True},
                      sessionCapabilities={"fork": {}}),
        new_session_ok(configOptions=options(model="opus"), modes=CODE_MODES),
        *turn("first answer", "p1", tool="a.py"),
        *turn("second answer", "p2"),
        new_session_ok("sess-2", configOptions=options(), modes=MODES),
        # the earlier session's settings are carried over
        {"expect": "session/set_mode", "match": {"sessionId": "sess-2", "modeId": "code"},
         "respond": {}},
        {"expect": "session/set_config_option",
         "match": {"sessionId": "sess-2", "configId": "model", "value": "opus"},
         "respond": {"configOptions": options(model="opus")}},
        *turn("continued", "p3", "sess-2"),
        *turn("again", "p4", "sess-2"),
    ]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.prompt("question one")
        await h.prompt("question two")
        await h.caught_up()
        # focus the tool call of the first turn: continue from there (the answer after it is left)
        # (frozen with its turn: the history focused, its cursor on the card)
        (call,) = h.session.thread.tool_calls.values()
        await focus_entry(h.pilot, h.one(ConversationView), call.id)
        await h.pilot.press("f7")
        await h.until(lambda: h.session.session_id == "sess-2", "the new session")
        await h.until(lambda: isinstance(h.app.screen, MainScreen) and not h.session.thread.entries
                      and h.app.screen.session.thread.generation == h.app.screen.generation,
                      "a fresh main screen")  # fmt: skip
        await h.until(lambda: any("carries the conversation" in n for n in h.notified), "notice")
        assert any("(2 entries)" in n for n in h.notified)
        assert h.sent_methods("session/fork") == []
        assert h.session.thread.current_mode_id == "code", "the mode carried"
        assert len(h.sent_methods("session/set_config_option")) == 1, "effort was the same"
        await h.prompt("and now?")
        blocks = h.sent_methods("session/prompt")[-1]["params"]["prompt"]
        intro, context, typed = blocks
        assert intro == {"type": "text", "text": CONTEXT_INTRO}
        assert typed == {"type": "text", "text": "and now?"}
        resource = context["resource"]
        assert context["type"] == "resource" and resource["mimeType"] == "text/markdown"
        assert resource["uri"].startswith(f"acp-tui://conversation/{SID}?until=")
        assert "question one" in resource["text"] and "Read a.py" in resource["text"]
        assert "first answer" not in resource["text"] and "question two" not in resource["text"]
        user = h.session.thread.entries[0]
        assert isinstance(user, MessageEntry) and user.role == "user"
        assert any(isinstance(b, EmbeddedResource) for b in user.blocks), "shown in the prompt"
        await h.prompt("once more")
        assert h.sent_methods("session/prompt")[-1]["params"]["prompt"] == [
            {"type": "text", "text": "once more"}
        ], "carried once"


async def test_without_fork_or_embedded_context_the_palette_carries_it_as_text(
    tmp_path: Path,
) -> None:
    steps = [
        initialize_ok(),
        new_session_ok(),
        *turn("only answer", "p1"),
        new_session_ok("sess-2"),
        *turn("ok", "p2", "sess-2"),
    ]
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.prompt("hello")
        await open_from_palette(h, "continue from")
        await pick(h, str(entry_with(h, "only answer").id))
        await h.until(lambda: h.session.session_id == "sess-2", "the new session")
        await h.prompt("next")
        first, typed = h.sent_methods("session/prompt")[-1]["params"]["prompt"]
        assert first["type"] == "text" and first["text"].startswith(CONTEXT_INTRO)
        assert "hello" in first["text"] and "only answer" in first["text"]
        assert typed == {"type": "text", "text": "next"}


async def test_a_failed_fork_leaves_the_session_as_it_was(tmp_path: Path) -> None:
    steps = [
        initialize_ok(sessionCapabilities={"fork": {}}),
        new_session_ok(),
        *turn("answer", "p1"),
        {"expect": "session/fork", "error": {"code": -32603, "message": "Internal error",
                                             "data": {"details": "disk full"}}},
        *turn("still here", "p2"),
    ]  # fmt: skip
    agent = write_scenario(tmp_path, steps)
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.prompt("hi")
        await open_from_palette(h, "fork this")
        await h.until(lambda: any("disk full" in n for n in h.notified), "the error")
        assert h.session.session_id == SID
        await h.prompt("again")
        assert h.sent_methods("session/prompt")[-1]["params"]["sessionId"] == SID
        texts = [e.text for e in h.session.thread.entries if isinstance(e, MessageEntry)]
        assert texts == ["hi", "answer", "again", "still here"], "the conversation went on"

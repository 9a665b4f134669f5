"""Getting things out and in: /export, the copy key, long pastes, $EDITOR, notifications."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from textual import events

from acp_tui.config import Settings
from acp_tui.ui.screens.main import MainScreen
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.agents.scenarios import write_scenario
from tests.ui.app_harness import ANSWER_MD, fixed_cwd, one_turn, rich_turn_updates, run_app, upd


async def test_export_writes_messages_thoughts_plans_and_tool_calls(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, one_turn(rich_turn_updates()))
    cwd = fixed_cwd(tmp_path)
    async with run_app(agent.argv, cwd) as h:
        await h.prompt("fix total()")
        await h.type_prompt("/export")
        exports = cwd / ".acp-tui"
        await h.until(lambda: exports.exists() and list(exports.iterdir()), "the export")
        [path] = list(exports.iterdir())
        markdown = path.read_text()
    assert markdown.startswith("# Fix total()\n")
    assert "## You\n\nfix total()" in markdown
    assert "<details>\n<summary>Thought</summary>\n\nI should look at the file first" in markdown
    assert "- [x] Read the code _(high)_" in markdown
    assert "### Tool: Edit src/app.py (edit, pending)" in markdown
    assert "+def total(a, b, c=0):" in markdown and "```diff" in markdown
    assert ANSWER_MD.strip() in markdown
    assert path.name.startswith("conversation-") and path.suffix == ".md"


async def test_copy_key_copies_the_last_agent_message_via_osc52_over_ssh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSH_TTY", "/dev/pts/9")  # over SSH: never the remote clipboard
    answer = upd("agent_message_chunk", content={"type": "text", "text": "answer"})
    agent = write_scenario(tmp_path, one_turn([answer]))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.prompt("q")
        await h.pilot.press("f8")
        await h.until(lambda: any("Copied" in n for n in h.notified), "the copy toast")
        assert any("agent message (6 characters) via OSC 52" in n for n in h.notified)


async def test_copy_key_on_a_finished_turns_card_copies_the_tool_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The card froze with its turn: focused in the frozen history (its cursor on it), f8
    copies the tool call as it does on a live card, not the last agent message."""
    from acp_tui.ui.widgets.conversation import ConversationView
    from tests.ui.conversation_text import focus_entry

    monkeypatch.setenv("SSH_TTY", "/dev/pts/9")
    updates = [
        upd("tool_call", toolCallId="c1", title="Read a.py", kind="read", status="completed"),
        upd("agent_message_chunk", content={"type": "text", "text": "answer"}),
    ]
    agent = write_scenario(tmp_path, one_turn(updates))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.prompt("q")
        conversation = h.one(ConversationView)
        card = h.session.thread.tool_calls["c1"]
        assert card.id in conversation.frozen_entry_ids
        await focus_entry(h.pilot, conversation, card.id)
        await h.pilot.press("f8")
        await h.until(lambda: any("Copied" in n for n in h.notified), "the copy toast")
        assert any("Copied the tool call" in n for n in h.notified), h.notified


async def test_a_2000_line_paste_arrives_whole_and_editor_round_trips(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import sys\np = sys.argv[1]\ntext = open(p).read()\n"
        "open(p, 'w').write(text.upper() + '\\nfrom the editor\\n')\n"
    )
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    monkeypatch.delenv("VISUAL", raising=False)
    agent = write_scenario(tmp_path, one_turn([]))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        prompt = h.one(PromptInput)
        prompt.focus()
        pasted = "\r\n".join(f"pasted line {n}" for n in range(2000))
        prompt.post_message(events.Paste(pasted))
        await h.until(lambda: prompt.document.line_count == 2000, "the paste")
        assert prompt.text == pasted.replace("\r\n", "\n")
        prompt.load_text("short draft")
        await h.pilot.press("ctrl+g")
        await h.until(lambda: "from the editor" in prompt.text, "the editor's text")
        assert prompt.text == "SHORT DRAFT\nfrom the editor"


@pytest.mark.parametrize("enabled", [True, False])
async def test_turn_end_notifies_when_the_terminal_is_unfocused(
    tmp_path: Path, enabled: bool
) -> None:
    agent = write_scenario(tmp_path, one_turn([]))
    settings = Settings(notify_turn_end=enabled)
    async with run_app(agent.argv, fixed_cwd(tmp_path), session_kwargs={"settings": settings}) as h:
        screen = h.app.screen
        assert isinstance(screen, MainScreen)
        await h.type_prompt("q", send=False)
        h.app.app_focus = False  # the user went elsewhere (typing would give focus back)
        h.one(PromptInput).submit()
        await h.until(lambda: h.sent_methods("session/prompt"), "the prompt")
        await h.settle()
        sent = screen.composer_actions.sent_notifications
        assert sent == (["The turn has ended."] if enabled else [])


async def test_an_agent_image_opens_with_the_system_viewer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import base64

    from acp_tui.ui.widgets import media_block_view
    from acp_tui.ui.widgets.conversation import ConversationView
    from acp_tui.ui.widgets.message_view import MessageLines
    from tests.ui.app_harness import PNG_8_BYTES
    from tests.ui.conversation_text import entry_text, thaw

    started: list[Path] = []

    def fake_open(path: Path) -> None:
        started.append(path)

    monkeypatch.setattr(media_block_view, "open_with_system", fake_open)
    image = {"type": "image", "mimeType": "image/png", "data": PNG_8_BYTES}
    agent = write_scenario(tmp_path, one_turn([upd("agent_message_chunk", content=image)]))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.prompt("draw")
        await h.settle()  # the turn ended: the message is frozen, drawn from its data
        (message,) = [e for e in h.session.thread.entries if getattr(e, "role", "") == "agent"]
        conversation = h.one(ConversationView)
        assert "🖼 [image: image/png" in entry_text(conversation, message.id)
        view = await thaw(h.pilot, conversation, message.id)  # Enter on it: live and focused
        assert isinstance(view, MessageLines)
        await h.until(lambda: view.has_focus, "the thawed message focused")
        await h.pilot.press("o")
        await h.until(lambda: started, "the viewer to start")
        assert started[0].suffix == ".png"
        assert started[0].read_bytes() == base64.b64decode(PNG_8_BYTES)
        started[0].unlink()


async def test_a_5000_line_paste_is_folded_in_the_conversation_and_a_click_opens_it(
    tmp_path: Path,
) -> None:
    from acp_tui.ui.widgets.conversation import ConversationView
    from tests.ui.conversation_text import entry_text, live_view

    agent = write_scenario(tmp_path, one_turn([]))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        prompt = h.one(PromptInput)
        prompt.focus()
        pasted = "\n".join(f"pasted line {n}" for n in range(5000))
        prompt.post_message(events.Paste(pasted))
        await h.until(lambda: prompt.document.line_count == 5000, "the paste")
        prompt.submit()
        await h.until(lambda: h.sent_methods("session/prompt"), "the prompt")
        await h.settle()
        [sent] = h.sent_methods("session/prompt")
        assert sent["params"]["prompt"][0]["text"] == pasted, "the agent gets it whole"
        conversation = h.one(ConversationView)
        user = h.session.thread.entries[0]
        folded = entry_text(conversation, user.id)
        assert "pasted line 7" in folded and "pasted line 8\n" not in folded
        assert "5,000 lines (4,992 more: click to show)" in folded
        assert len(folded.splitlines()) < 15, "not 5,000 lines on the screen"

        view = await live_view(h.pilot, conversation, user.id)
        title_row = next(y for y, line in enumerate(folded.splitlines()) if "5,000 lines" in line)
        await h.pilot.click(view, offset=(6, title_row))
        await h.until(lambda: "pasted line 4999" in entry_text(conversation, user.id), "opened")
        assert "click to fold them" in entry_text(conversation, user.id)

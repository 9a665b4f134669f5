"""The whole app (Pilot) against a few real agents, driven by keys alone.

The prompt is typed, every permission request is answered by pressing `a` (allow once), and
afterwards: the files on disk, the output of the command the agent ran visible in its card
without unfolding it, the prompt shown once, nothing typed into the prompt box by mistake.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from acp_tui.config import HoldWrites, Settings
from acp_tui.thread.entries import ToolCallEntry
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.mode_list import ModeList
from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.terminal_view import TerminalView
from acp_tui.ui.widgets.tool_call_card import ToolCallCard, ran_command
from tests.interop.agents import InteropAgent
from tests.interop.conftest import NOTES, FakeLlm, agent_for
from tests.ui.app_harness import AppHarness, run_app
from tests.ui.conversation_text import live_card
from tests.ui.conversation_text import shown as shown_entries  # (`shown`: a local below)

APP_AGENTS = ["claude-agent-acp", "qwen", "vibe", "kimi"]
PROMPT = "Please do the task."
START_SECONDS = 90.0
TURN_SECONDS = 240.0
SHELL_OK = re.compile(r"^\s*(?:Output: )?shell-ok\s*$")


def open_prompts(h: AppHarness) -> list[PermissionPrompt]:
    return [p for p in h.all(PermissionPrompt) if p.ask.open]


def is_command(call: ToolCallEntry) -> bool:
    """A call of a command: by its kind or input, or by the terminal in it (Kimi)."""
    terminal = any(getattr(item, "type", None) == "terminal" for item in call.content)
    return terminal or ran_command(call)


def shown_output(card: ToolCallCard) -> list[str]:
    """The lines a command's card shows: its live terminals' and its own (inside the border)."""
    terminals = [line for view in card.query(TerminalView) if view.display
                 for line in view.text_lines()]  # fmt: skip
    return terminals + [line.strip().strip("│") for line in card.text.splitlines()]


def confirming(h: AppHarness) -> bool:
    """The confirmation of a mode that lets the agent act without asking is shown."""
    from acp_tui.ui.screens.question import QuestionScreen

    screen = h.app.screen
    return isinstance(screen, QuestionScreen) and screen.question.kind == "permissive_mode"


async def choose_mode_by_keys(h: AppHarness, agent: InteropAgent) -> None:
    """shift+tab until the agent's mode is `agent.mode` (each switch answered first)."""
    thread = h.session.thread
    for _ in range(len(h.one(ModeList).modes)):
        if thread.current_mode_id == agent.mode:
            return
        state = (thread.current_mode_id, len(h.notified))
        await h.pilot.press("shift+tab")
        await h.until(
            lambda state=state: (  # type: ignore[misc]
                (thread.current_mode_id, len(h.notified)) != state or confirming(h)
            ),
            "the mode switch answered",
            seconds=30,
        )
        if confirming(h):  # a mode that skips permissions (full access): confirmed by key
            await h.pilot.press("s")
            await h.until(
                lambda state=state: (thread.current_mode_id, len(h.notified)) != state,  # type: ignore[misc]
                "the mode switch answered",
                seconds=30,
            )
    assert thread.current_mode_id == agent.mode


async def answer_by_key(h: AppHarness, prompt: PermissionPrompt) -> None:
    # the prompt takes the focus as it mounts (a user cannot type faster than that)
    await h.until(lambda: prompt.has_focus_within, "the focus on the new prompt", seconds=10)
    await h.pilot.press("a")
    await h.until(lambda: not prompt.ask.open, "the prompt answered by `a`", seconds=10)


async def answer_permissions_until_the_turn_ends(h: AppHarness) -> int:
    """Press `a` on each permission prompt as it comes; returns how many were answered."""
    answered = 0
    while True:
        await h.until(
            lambda: open_prompts(h) or not h.session.turn_running,
            "a permission prompt or the end of the turn",
            seconds=TURN_SECONDS,
        )
        prompts = open_prompts(h)
        if not prompts:
            return answered
        await answer_by_key(h, prompts[0])
        answered += 1


@pytest.mark.parametrize("name", APP_AGENTS)
async def test_one_turn_in_the_app_by_keys(
    name: str, kit: Path, workdir: Path, fake_llm: FakeLlm
) -> None:
    agent = agent_for(name)
    settings = Settings(hold_writes=HoldWrites.NEVER)
    async with run_app(
        [str(kit / "agent.sh"), name],
        workdir,
        env={**fake_llm.env, **agent.env()},
        wait_ready=False,
        session_kwargs={"settings": settings, "sandbox": agent.sandbox()},
        allow_unknown_methods=True,
    ) as h:
        await h.until(lambda: h.session.state.value == "ready", "ready", seconds=START_SECONDS)
        if agent.mode is not None:
            await choose_mode_by_keys(h, agent)
        await h.type_prompt(PROMPT)
        answered = await answer_permissions_until_the_turn_ends(h)
        await h.settle()
        await h.caught_up()

        assert h.session.crash is None
        assert h.session.thread.last_stop_reason == "end_turn"
        assert answered > 0
        assert h.one(PromptInput).text == "", "no key went into the prompt box"
        conversation = h.one(ConversationView)
        users = [e for e, _ in shown_entries(conversation) if getattr(e, "role", "") == "user"]
        assert len(users) == 1, "the prompt is shown once"
        assert (workdir / "notes.txt").read_text() == NOTES.replace("old line", "new line")
        assert (workdir / "hello.txt").read_text().startswith("Hello from the fake LLM!")

        commands = [e for e, _ in shown_entries(conversation) if isinstance(e, ToolCallEntry)
                    and is_command(e)]  # fmt: skip
        assert commands, "a card for the shell command"
        card = await live_card(h.pilot, conversation, commands[-1].id)  # (Enter if frozen)
        assert not card.has_class("-folded"), "the command's card is open"
        card.scroll_visible(animate=False)
        await h.pilot.pause()
        shown = shown_output(card)
        assert any(SHELL_OK.match(line) for line in shown), f"shell-ok not in view: {shown}"

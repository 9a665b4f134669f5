"""What was typed in the skeleton's prompt before Textual took the terminal (`early_prompt.py`)
reaches the app's prompt: the prompts sent with Enter go out, in order, as if sent from the prompt
(queued until the session is open), and the rest stays in the prompt with its cursor."""

from __future__ import annotations

from pathlib import Path

from acp_tui.ui.early_prompt import EarlyPrompt
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.agents.scenarios import end_turn, expect_prompt, initialize_ok, write_scenario
from tests.ui.app_harness import fixed_cwd, run_app, session_with_modes


def prompt_texts(frames: list[dict[str, object]]) -> list[str]:
    texts = []
    for frame in frames:
        params = frame["params"]
        assert isinstance(params, dict)
        texts.append("".join(block.get("text", "") for block in params["prompt"]))
    return texts


async def test_prompts_sent_early_go_out_in_order_and_the_draft_stays(tmp_path: Path) -> None:
    steps = [
        initialize_ok(),
        session_with_modes(),
        expect_prompt("one"),
        end_turn("one"),
        expect_prompt("two"),
        end_turn("two"),
    ]
    agent = write_scenario(tmp_path, steps)
    early = EarlyPrompt()
    early.feed(b"first prompt\rsecond\x0aline\rdraft here\x1b[D\x1b[D\x1b[D\x1b[D")
    early.finish()
    async with run_app(
        agent.argv, fixed_cwd(tmp_path), wait_ready=False, app_kwargs={"early_prompt": early}
    ) as h:
        await h.until(lambda: len(h.sent_methods("session/prompt")) == 2, "both early prompts")
        await h.settle()
        assert prompt_texts(h.sent_methods("session/prompt")) == ["first prompt", "second\nline"]
        prompt = h.app.screen.query_one(PromptInput)
        assert prompt.text == "draft here"
        assert prompt.cursor_location == (0, 6)
        assert prompt.sent_history[-2:] == ["first prompt", "second\nline"], "up recalls them"
        assert not h.logged_errors, h.logged_errors

"""@-mentions of hostile files, by keys: a FIFO is refused at once (the prompt is still sent, the
user is told why), a file hard-linked from outside asks the outside-path question first."""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from acp_tui.ui.screens.question import QuestionScreen
from tests.agents.scenarios import end_turn, expect_prompt, initialize_ok, write_scenario
from tests.ui.app_harness import AppHarness, fixed_cwd, run_app, session_with_modes


def prompts(h: AppHarness) -> list[list[dict[str, Any]]]:
    return [f["params"]["prompt"] for f in h.sent_methods("session/prompt")]


def one_prompt_turn() -> list[dict[str, Any]]:
    return [
        initialize_ok(promptCapabilities={"embeddedContext": True}),
        session_with_modes(),
        expect_prompt(),
        end_turn(),
    ]


@contextlib.contextmanager
def released(fifo: Path) -> Iterator[None]:
    """Whatever happens, a reader stuck opening `fifo` is let go at the end (a writer comes and
    goes), so a failing test cannot leave a thread blocked in open(2) behind."""
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # ENXIO: nobody is reading
            os.close(fd)


async def test_a_fifo_mention_is_refused_at_once_and_the_prompt_is_still_sent(
    tmp_path: Path,
) -> None:
    cwd = fixed_cwd(tmp_path)
    fifo = cwd / "pipe.txt"
    os.mkfifo(fifo)
    (cwd / "notes.txt").write_text("kept\n")
    agent = write_scenario(tmp_path, one_prompt_turn())
    with released(fifo):
        async with run_app(agent.argv, cwd) as h:
            await h.type_prompt("read @pipe.txt and @notes.txt please")
            await h.until(lambda: prompts(h), "the prompt to be sent")
            await h.settle()
            [sent] = prompts(h)
            assert sent[0] == {"type": "text", "text": "read @pipe.txt and @notes.txt please"}
            assert [b["resource"]["text"] for b in sent[1:]] == ["kept\n"], "the FIFO: no block"
            assert any(
                "@pipe.txt: not attached (a FIFO (named pipe), not a regular file)" in n
                for n in h.notified
            ), h.notified
        # nobody ever opened the FIFO for reading: a writer finds no reader
        try:
            os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as error:
            assert error.errno == errno.ENXIO
        else:
            raise AssertionError("something is still reading the FIFO")


async def test_a_hard_linked_mention_asks_like_an_outside_path(tmp_path: Path) -> None:
    cwd = fixed_cwd(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("outside secret\n")
    os.link(outside / "secret.txt", cwd / "linked.txt")
    agent = write_scenario(tmp_path, one_prompt_turn())
    async with run_app(agent.argv, cwd) as h:
        await h.type_prompt("see @linked.txt now")
        await h.until(lambda: isinstance(h.app.screen, QuestionScreen), "the consent question")
        screen = h.app.screen
        assert isinstance(screen, QuestionScreen)
        question = screen.question
        assert question.kind == "outside_cwd"
        assert question.data["links"] == 2 and question.data["action"] == "read"
        assert question.data["resolved"] == str(cwd.resolve() / "linked.txt")
        assert "hard link" in question.detail
        assert h.sent_methods("session/prompt") == [], "nothing is sent before the answer"
        await h.pilot.press("d")  # deny
        await h.until(lambda: prompts(h), "the prompt to be sent")
        await h.settle()
        [sent] = prompts(h)
        assert sent == [{"type": "text", "text": "see @linked.txt now"}]
        assert "outside secret" not in str(h.sent)
        assert any("@linked.txt: not attached" in n for n in h.notified), h.notified

"""The UI reads no file itself: the file under review, the $EDITOR draft and theme files go
through the host (`host/local_files.py`), so a symlink swapped in is not followed and a FIFO
never blocks (start-up, a review, the editor)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from acp_tui.ui.screens.review_screen import WriteReviewScreen
from acp_tui.ui.themes import load_themes
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.agents.scenarios import write_scenario
from tests.ui.app_harness import fixed_cwd, one_turn, run_app
from tests.ui.test_review_screen_disk import NEW, OLD, ReviewApp


@contextlib.contextmanager
def fifo_released(path: Path) -> Iterator[None]:
    """Make `path` a FIFO; afterwards open it for writing once so that a reader stuck on it (the
    old behaviour) gets its end of file instead of blocking its thread forever."""
    os.mkfifo(path)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))


def in_thread(work: Callable[[], Any], limit: float = 10.0) -> Any:
    """`work()` in a daemon thread; fail (instead of hanging the suite) when it blocks."""
    result: list[Any] = []
    thread = threading.Thread(target=lambda: result.append(work()), daemon=True)
    thread.start()
    thread.join(limit)
    assert not thread.is_alive(), "blocked (reading a FIFO?)"
    return result[0]


@pytest.mark.parametrize("swap", ["symlink", "fifo"])
async def test_the_file_under_review_is_not_read_through_a_swap(tmp_path: Path, swap: str) -> None:
    target = tmp_path / "app.txt"
    target.write_text(OLD)
    secret = tmp_path / "secret.txt"
    secret.write_text("secret\n")
    screen = WriteReviewScreen(target, OLD, NEW, watch=False)
    app = ReviewApp(screen)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        target.unlink()
        with contextlib.ExitStack() as stack:
            if swap == "symlink":
                target.symlink_to(secret)
            else:
                stack.enter_context(fifo_released(target))
            changed = await asyncio.wait_for(screen.check_disk(), 10)
        assert changed is False
        assert screen.before == OLD and screen.disk_changes == 0
        assert "secret" not in (screen.diff.old_text or "")
        assert any("not read" in str(n.message) for n in app._notifications)


def test_a_fifo_among_the_theme_files_is_reported_and_start_up_goes_on(tmp_path: Path) -> None:
    (tmp_path / "ok.toml").write_text('name = "mine"\nprimary = "red"\n')
    with fifo_released(tmp_path / "pipe.toml"):
        themes, problems = in_thread(lambda: load_themes([tmp_path]))
    assert [theme.name for theme in themes] == ["mine"]
    [problem] = problems
    assert "pipe.toml" in problem and "not a regular file" in problem


async def test_an_editor_that_leaves_a_symlink_does_not_load_what_it_points_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the secret\n")
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import os, sys\np = sys.argv[1]\n"
        f"open({str(tmp_path / 'mode')!r}, 'w').write(oct(os.stat(os.path.dirname(p)).st_mode))\n"
        f"os.unlink(p)\nos.symlink({str(secret)!r}, p)\n"
    )
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    monkeypatch.delenv("VISUAL", raising=False)
    agent = write_scenario(tmp_path, one_turn([]))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        prompt = h.one(PromptInput)
        prompt.focus()
        prompt.load_text("my draft")
        await h.pilot.press("ctrl+g")
        await h.until(lambda: any("prompt unchanged" in n for n in h.notified), "the refusal")
        assert prompt.text == "my draft"
        assert any("symbolic link" in n for n in h.notified)
    assert (tmp_path / "mode").read_text().endswith("700")  # the draft's directory is private

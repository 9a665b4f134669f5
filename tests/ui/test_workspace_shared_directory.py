"""Two tabs in one directory, through Pilot by keys: one watcher for both (the launcher's
`DirectoryWatchers`), a new file in both tabs' @-completion, the watcher kept when one tab closes
and stopped when the last session closes (no thread left)."""

from __future__ import annotations

import threading
from pathlib import Path

from acp_tui.host.dir_watch import DirectoryWatchers
from acp_tui.ui.widgets.completion_list import CompletionList
from acp_tui.ui.widgets.composer import Composer
from acp_tui.ui.widgets.prompt_input import PromptInput
from tests.ui.app_harness import AppHarness, fixed_cwd
from tests.ui.workspace_support import open_tab, workspace_app


def listed(h: AppHarness) -> list[str]:
    completion = h.one(CompletionList)
    return [item.value for item in completion.items] if completion.is_open else []


async def completes(h: AppHarness, text: str, expected: list[str]) -> None:
    """Type `text` in the prompt of the tab shown, wait for the picker to list `expected`, and
    clear the prompt again."""
    composer = h.one(Composer)
    await h.until(lambda: composer.index.watching, "the tab's file index listening")
    await h.type_prompt(text, send=False)
    await h.until(lambda: listed(h) == expected, f"{expected} for {text!r}")
    await h.pilot.press(*["backspace"] * len(text))
    await h.until(lambda: h.one(PromptInput).text == "", "the prompt cleared")


async def test_two_tabs_in_one_directory_share_one_watcher_until_the_last_closes(
    tmp_path: Path,
) -> None:
    cwd = fixed_cwd(tmp_path)
    watchers = DirectoryWatchers()
    async with workspace_app(tmp_path, cwd=cwd, watchers=watchers) as h:
        first = h.app.tabs[0]
        second = await open_tab(h)
        assert second.session.cwd == first.session.cwd
        await completes(h, "@fresh", [])
        (cwd / "fresh-file.md").write_text("new\n")
        await completes(h, "@fresh", ["fresh-file.md"])
        await h.pilot.press("alt+1")
        await h.until(lambda: h.app.current_tab is first, "alt+1")
        await completes(h, "@fresh", ["fresh-file.md"])
        # the file indexes and the change monitors of both tabs: one watcher
        assert watchers.roots == [first.session.cwd]

        await h.pilot.press("alt+2", "ctrl+w")  # idle: closes at once
        await h.until(lambda: second not in h.app.tabs, "the second tab to close")
        assert watchers.roots == [first.session.cwd]
        (cwd / "later-file.md").write_text("after the second tab closed\n")
        await completes(h, "@later", ["later-file.md"])
    assert watchers.roots == []
    assert [t.name for t in threading.enumerate() if t.name.startswith("acp-tui-")] == []

"""The tab bar when its labels do not fit: two worktree tabs of one agent, whose names differ
only in their branch's tail, stay distinguishable (index, state and the branch's end kept, the
common parts cut in the middle), and the tab under the pointer shows its whole label. Tabs of
one agent in two directories are named by their directory."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text

from tests.git_repo import make_repo
from tests.ui.app_harness import AppHarness, _key_for
from tests.ui.workspace_support import bar, open_tab, workspace_app


def drawn(h: AppHarness) -> str:
    """The bar's line as the screen shows it (the cells drawn, not the text before fitting)."""
    return "".join(segment.text for segment in bar(h).render_line(0))


async def test_two_worktree_tabs_of_one_agent_stay_distinguishable(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    async with workspace_app(tmp_path, cwd=repo, size=(90, 30)) as h:
        first = await open_tab(h, "down", "down", "enter")
        second = await open_tab(h, "down", "down", "enter")
        branches = [tab.spec.branch for tab in (first, second)]
        assert None not in branches and branches[0] != branches[1]
        await h.until(lambda: len(bar(h).labels) == 3, "three tabs in the bar")
        await h.until(lambda: all(tab.title for tab in h.app.tabs), "the agent's titles")
        line = drawn(h).strip()
        tabs = line.split(" │ ")
        assert len(tabs) == 3, line
        assert [tab[:2] for tab in tabs] == ["1 ", "2 ", "3 "], "every index kept"
        assert tabs[1][2:] != tabs[2][2:], f"the two worktree tabs look the same: {line!r}"
        for shown, branch in zip(tabs[1:], branches, strict=True):
            assert branch is not None
            assert branch[-6:] in shown, f"{branch}'s tail is not in {shown!r}"
        assert "…" in tabs[1], "the common part is cut in the middle"

        # the tooltip: the whole label of the tab under the pointer
        bar_region = bar(h).content_region
        start = line.index(tabs[1])
        await h.pilot.hover(bar(h), offset=(bar_region.x - bar(h).region.x + start + 3, 0))
        await h.until(lambda: isinstance(bar(h).tooltip, Text), "the tooltip")
        tooltip = bar(h).tooltip
        assert isinstance(tooltip, Text)
        assert first.spec.branch is not None and first.spec.branch in tooltip.plain
        assert tooltip.plain.startswith("2 ")


async def test_tabs_of_one_agent_in_two_directories_are_named_by_their_directory(
    tmp_path: Path,
) -> None:
    other = tmp_path / "elsewhere"
    other.mkdir()
    async with workspace_app(tmp_path) as h:
        first = h.app.tabs[0]
        # ctrl+t, "in another directory…", its path typed
        second = await open_tab(h, "down", "enter", *[_key_for(c) for c in str(other)], "enter")
        assert second.spec.cwd == other.resolve() != first.spec.cwd
        await h.until(lambda: len(bar(h).labels) == 2, "two tabs in the bar")
        names = [label.agent for label in bar(h).labels]
        assert names[0] != names[1], names
        assert names[0].endswith(f"[{first.spec.cwd.name}]") and names[1].endswith("[elsewhere]")
        line = drawn(h).strip()
        assert "[elsewhere]" in line and f"[{first.spec.cwd.name}]" in line, line


async def test_two_tabs_of_one_agent_in_one_directory_are_numbered(tmp_path: Path) -> None:
    async with workspace_app(tmp_path, size=(120, 30)) as h:
        await open_tab(h)  # ctrl+t, Enter: the same agent in the same directory
        await h.until(lambda: len(bar(h).labels) == 2, "two tabs in the bar")
        names = [label.agent for label in bar(h).labels]
        assert names[1] == f"{names[0]} 2", names
        await open_tab(h)
        await h.until(lambda: len(bar(h).labels) == 3, "three tabs in the bar")
        assert [label.agent for label in bar(h).labels] == [
            names[0],
            *(f"{names[0]} {n}" for n in (2, 3)),
        ]
        assert f"{names[0]} 3" in drawn(h)

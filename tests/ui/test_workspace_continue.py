"""`--continue` reopens the workspace of a directory: the tabs are saved as they open, get their
session and close; a saved workspace of several sessions comes back one tab each, and the ones
that cannot come back are named in one notice."""

from __future__ import annotations

import gc
import warnings
from pathlib import Path

from acp_tui.client import saved_workspace as store
from acp_tui.client.session.history import OpenRequest
from acp_tui.ui.screens.question import QuestionScreen
from acp_tui.ui.workspace.restore import plan_restore
from tests.ui.app_harness import demo_argv, fixed_cwd
from tests.ui.workspace_support import open_tab, workspace_app


def saved_ids(cwd: Path) -> list[str | None]:
    records, problems = store.load(cwd)
    assert not problems
    return [record.session_id for record in records]


async def test_tabs_are_saved_and_continue_reopens_each(tmp_path: Path) -> None:
    cwd = fixed_cwd(tmp_path)
    kwargs = {"workspace_dir": cwd}
    async with workspace_app(tmp_path, app_kwargs=kwargs) as h:
        first = h.app.tabs[0].session
        second = (await open_tab(h)).session
        ids = [first.session_id, second.session_id]
        await h.until(lambda: saved_ids(cwd) == ids, "both tabs saved")
        third = await open_tab(h)
        await h.until(lambda: len(saved_ids(cwd)) == 3, "the third tab saved")
        await h.pilot.press("ctrl+w")  # the third closes
        await h.until(lambda: h.app.tabs[-1] is not third, "the third tab to close")
        await h.until(lambda: saved_ids(cwd) == ids, "saved without it")
    assert ids[0] and ids[1]

    # one more saved session whose worktree is gone: it is named, not dropped silently
    records, _ = store.load(cwd)
    gone = store.WorktreeRecord(tmp_path / "gone", "acp-tui/gone-1", "abc", cwd)
    lost = store.SessionRecord(cwd, tuple(demo_argv()), worktree=gone, session_id="s-gone")
    store.save(cwd, [*records, lost])

    restore = plan_restore(cwd, demo_argv(), {})
    assert restore is not None and restore.first == ids[0]
    assert [session_id for _, session_id in restore.others] == [ids[1]]
    assert restore.notice is not None and "is gone (branch acp-tui/gone-1)" in restore.notice
    request = OpenRequest(resume_id=restore.first)
    again = {"workspace_dir": cwd, "restore": restore, "open_request": request}
    async with workspace_app(tmp_path, app_kwargs=again) as h:
        await h.until(lambda: len(h.app.tabs) == 2, "the second tab reopened")
        await h.until(lambda: [t.session.session_id for t in h.app.tabs] == ids, "both sessions")
        # (shown while mounting, before the harness records toasts: Textual's own list of them)
        shown = [note.message for note in h.app._notifications]
        assert any(m.startswith("Not reopened:") and "acp-tui/gone-1" in m for m in shown)
        assert h.app.current_tab is h.app.tabs[0]


async def test_one_saved_session_continues_as_before(tmp_path: Path) -> None:
    cwd = fixed_cwd(tmp_path)
    store.save(cwd, [store.SessionRecord(cwd, tuple(demo_argv()), session_id="s-1")])
    assert plan_restore(cwd, demo_argv(), {}) is None


async def test_nothing_is_saved_once_the_app_closes(tmp_path: Path) -> None:
    """The sessions change state as they close with the app: a save scheduled then was written
    after the app had ended (over a workspace saved since: seen as a flaky --continue test)."""
    cwd = fixed_cwd(tmp_path)
    scheduled: list[object] = []
    async with workspace_app(tmp_path, app_kwargs={"workspace_dir": cwd}) as h:
        app = h.app
        close_every_session = app.close_every_session

        async def closing() -> None:
            app.saving.schedule_save()  # what a session's state change does as it closes
            scheduled.append(app.saving.save_timer)
            await close_every_session()

        app.close_every_session = closing  # type: ignore[method-assign]
    assert scheduled == [None], "no save once the app closes"


async def test_a_quit_right_when_a_save_was_due_leaves_nothing_unawaited(tmp_path: Path) -> None:
    """The save timer fired and the quit came before its worker ran: the worker is cancelled
    unstarted. It was given a coroutine made at once, which was then never awaited (Python
    printed a RuntimeWarning on the user's terminal as acp-tui exited)."""
    cwd = fixed_cwd(tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        async with workspace_app(tmp_path, app_kwargs={"workspace_dir": cwd}) as h:
            h.app.saving._save_soon()  # (what the timer calls)
            h.app.exit(0)
        gc.collect()
    assert not [str(w.message) for w in caught if "never awaited" in str(w.message)]


async def test_saved_sessions_with_their_own_commands_are_shown_before_they_start(
    tmp_path: Path,
) -> None:
    """Issue 40: a saved workspace was trusted as written: its commands ran on `--continue` and
    a saved directory of `/` was reopened. Now they are listed first; Esc starts none of them."""
    cwd = fixed_cwd(tmp_path)
    marker = tmp_path / "ran"
    hostile = ("/bin/sh", "-c", f"touch {marker}")
    store.save(cwd, [
        store.SessionRecord(cwd, tuple(demo_argv()), session_id="s-1"),
        store.SessionRecord(cwd, tuple(demo_argv()), session_id="s-2"),
        store.SessionRecord(cwd, hostile, session_id="s-evil"),
        store.SessionRecord(Path("/"), tuple(demo_argv()), session_id="s-root"),
    ])  # fmt: skip
    restore = plan_restore(cwd, demo_argv(), {})
    assert restore is not None and restore.first == "s-1"
    assert [session_id for _, session_id in restore.others] == ["s-2"]
    assert [session_id for _, session_id in restore.to_confirm] == ["s-evil", "s-root"]

    request = OpenRequest(resume_id=restore.first)
    again = {"workspace_dir": cwd, "restore": restore, "open_request": request}
    async with workspace_app(tmp_path, app_kwargs=again) as h:
        await h.until(lambda: isinstance(h.app.screen, QuestionScreen), "the confirmation")
        asking = h.app.screen
        assert isinstance(asking, QuestionScreen)
        assert asking.question.title == "Start 2 saved session(s) with their own commands?"
        assert f"$ /bin/sh -c 'touch {marker}'\n  in {cwd}" in asking.question.detail
        assert "\n  in /\n" in asking.question.detail
        await h.pilot.press("escape")
        await h.until(lambda: len(h.app.tabs) == 2, "the second own session reopened")
        await h.until(lambda: any("2 saved session(s) not started" in n for n in h.notified),
                      "said")  # fmt: skip
        assert [t.spec.cwd for t in h.app.tabs] == [cwd, cwd]
    assert not marker.exists()

"""The saved workspace: round trip, corrupt/oversized files as problems, what can be restored."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from acp_tui.client.saved_workspace import (
    MAX_STORE_BYTES,
    SessionRecord,
    StoreError,
    WorktreeRecord,
    load,
    restore_plan,
    save,
    store_path,
)
from acp_tui.host.permission_rules import user_data_dir
from acp_tui.worktrees.worktrees import Worktree, create_worktree, remove_worktree
from tests.git_repo import make_repo


def records(project: Path, tree: Path) -> list[SessionRecord]:
    return [
        SessionRecord(project, preset="claude-agent-acp", session_id="s-1", title="Parser"),
        SessionRecord(
            tree,
            argv=("codex-acp", "--flag"),
            worktree=WorktreeRecord(tree, "acp-tui/parser-1", "a" * 40, project, "src"),
            session_id="s-2",
            title=None,
            can_open=True,
        ),
    ]


def test_round_trip(tmp_path: Path) -> None:
    saved = records(tmp_path, tmp_path / "tree")
    save(tmp_path, saved)
    path = store_path(tmp_path)
    assert path.parent == user_data_dir() / "workspaces" and path.is_file()
    assert load(tmp_path) == (saved, [])
    assert load(tmp_path / "elsewhere") == ([], [])
    record = saved[1].worktree
    assert record is not None and record.worktree() == Worktree(
        tmp_path, tmp_path / "tree", "acp-tui/parser-1", "a" * 40, "src"
    )


def test_a_corrupt_file_is_a_problem_and_kept_aside_on_save(tmp_path: Path) -> None:
    path = store_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    loaded, problems = load(tmp_path)
    assert loaded == [] and len(problems) == 1 and "is not valid JSON" in problems[0]
    save(tmp_path, records(tmp_path, tmp_path))
    assert path.with_name(path.name + ".corrupt").read_text() == "{not json"
    assert len(load(tmp_path)[0]) == 2


def test_bad_records_are_listed_the_rest_loads(tmp_path: Path) -> None:
    good = records(tmp_path, tmp_path)[0].to_json()
    path = store_path(tmp_path)
    path.parent.mkdir(parents=True)
    tree = {"path": "/w", "branch": "b", "base": "c", "subdir": "../up"}
    bad = [
        good,
        {"cwd": "relative"},
        {"cwd": "/x"},
        {**good, "worktree": {"path": "/w"}},
        7,
        {**good, "worktree": tree},
    ]
    path.write_text(json.dumps({"version": 1, "sessions": bad}))
    loaded, problems = load(tmp_path)
    assert [r.session_id for r in loaded] == ["s-1"]
    assert problems == [
        "session 2 of the saved workspace is left out: no absolute cwd",
        "session 3 of the saved workspace is left out: "
        "neither a preset nor a command for the agent",
        "session 4 of the saved workspace is left out: "
        "worktree needs an absolute path, a branch and a base",
        "session 5 of the saved workspace is left out: not an object",
        "session 6 of the saved workspace is left out: "
        "worktree's subdir is not a relative path inside it",
    ]


def test_an_oversized_file_or_a_fifo_is_a_problem_not_a_hang(tmp_path: Path) -> None:
    path = store_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(" " * (MAX_STORE_BYTES + 1))
    loaded, problems = load(tmp_path)
    assert loaded == [] and "larger than" in problems[0]
    path.unlink()
    os.mkfifo(path)
    loaded, problems = load(tmp_path)
    assert loaded == [] and "not a regular file" in problems[0]


def test_save_failure_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(StoreError, match="cannot save the workspace"):
        save(tmp_path, [], path=blocker / "ws.json")


async def test_restore_plan_lists_what_cannot_come_back(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    kept = await create_worktree(repo, "kept")
    assert WorktreeRecord.of(kept).worktree() == kept
    gone = await create_worktree(repo, "gone")
    await remove_worktree(gone)

    def in_tree(wt_path: Path, branch: str, session: str) -> SessionRecord:
        return SessionRecord(
            wt_path,
            preset="codex",
            worktree=WorktreeRecord(wt_path, branch, "b" * 40),
            session_id=session,
        )

    saved = [
        SessionRecord(repo, preset="gemini", session_id="g-1"),
        in_tree(kept.path, kept.branch, "k-1"),
        in_tree(gone.path, gone.branch, "x-1"),
        SessionRecord(repo, preset="gemini"),
        SessionRecord(repo, argv=("old-agent",), session_id="o-1", can_open=False),
        SessionRecord(tmp_path / "deleted", preset="gemini", session_id="d-1"),
        SessionRecord(repo, preset="unknown-preset", session_id="u-1"),
    ]

    def check(record: SessionRecord) -> str | None:
        return "no agent preset unknown-preset" if record.preset == "unknown-preset" else None

    plan = restore_plan(saved, can_reopen=check)
    assert [r.session_id for r in plan.restorable] == ["g-1", "k-1"]
    reasons = {r.session_id: why for r, why in plan.lost}
    assert reasons["x-1"] == f"its worktree {gone.path} is gone (branch {gone.branch})"
    assert reasons[None] == "the agent never opened a session there (no session id was saved)"
    assert reasons["o-1"] == "the agent cannot load or resume sessions"
    assert reasons["d-1"] == f"its directory {tmp_path / 'deleted'} no longer exists"
    assert reasons["u-1"] == "no agent preset unknown-preset"
    assert len(plan.lost) == 5


def test_a_deeply_nested_file_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    """Issue 40: `--continue` died of json's RecursionError and the app did not start."""
    path = store_path(tmp_path)
    path.parent.mkdir(parents=True)
    depth = 200_000  # (within MAX_STORE_BYTES: the size bound is not a depth bound)
    path.write_text('{"sessions": ' + "[" * depth + "]" * depth + "}")
    loaded, problems = load(tmp_path)
    assert loaded == []
    assert problems == [f"the saved workspace {path} is nested too deeply: ignored"]
    save(tmp_path, records(tmp_path, tmp_path))  # kept aside, replaced
    assert path.with_name(path.name + ".corrupt").stat().st_size == 2 * depth + 14

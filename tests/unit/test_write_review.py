"""WriteReviewGate: when writes are held (hold_writes + the last granted permission), what the
agent's file host gets back, the write reports; and the pure hunk-decision helpers."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from acp_tui.client.write_review import (
    ReviewedWrite,
    WriteReport,
    WriteReviewGate,
    carry_decisions,
    changed_hunks,
    decide,
    thread_tool_call_paths,
    tool_call_paths,
)
from acp_tui.host.changes import ChangeLog
from acp_tui.host.permissions import PendingPermission, PermissionBroker
from acp_tui.session.diff import compute_diff

OPTIONS = [
    {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
    {"optionId": "always", "name": "Always", "kind": "allow_always"},
    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
]


class FakeReviewUi:
    """Records each review it is asked for and answers with a preset decision."""

    def __init__(self, answer: ReviewedWrite | None = None) -> None:
        self.calls: list[tuple[Path, str | None, str]] = []
        self.answer = answer

    async def __call__(self, path: Path, before: str | None, proposed: str) -> ReviewedWrite | None:
        self.calls.append((path, before, proposed))
        return self.answer


async def answer_permission(
    broker: PermissionBroker, tool_call: dict[str, Any], option_id: str | None
) -> None:
    """Run one permission request through the broker; answer it (None: cancel it)."""
    presented: list[PendingPermission] = []
    shown = asyncio.Event()

    def present(pending: PendingPermission) -> None:
        presented.append(pending)
        shown.set()

    unsubscribe = broker.subscribe(present)
    request = asyncio.create_task(
        broker.request({"sessionId": "s", "toolCall": tool_call, "options": OPTIONS})
    )
    await asyncio.wait_for(shown.wait(), 5)
    if option_id is None:
        presented[0].cancel()
    else:
        presented[0].select(option_id)
    await asyncio.wait_for(request, 5)
    unsubscribe()


@pytest.fixture
def cwd(tmp_path: Path) -> Path:
    return tmp_path.resolve()


async def test_always_holds_every_change(cwd: Path) -> None:
    ui = FakeReviewUi(ReviewedWrite("merged\n", 1, 2))
    gate = WriteReviewGate(ui, hold_writes="always", cwd=cwd)
    assert await gate.review(cwd / "a.txt", "old\n", "new\n") == "merged\n"
    assert ui.calls == [(cwd / "a.txt", "old\n", "new\n")]


async def test_never_holds_nothing(cwd: Path) -> None:
    ui = FakeReviewUi()
    gate = WriteReviewGate(ui, hold_writes="never", cwd=cwd)
    assert await gate.review(cwd / "a.txt", "old\n", "new\n") == "new\n"
    assert ui.calls == []


async def test_an_unchanged_write_is_never_held(cwd: Path) -> None:
    ui = FakeReviewUi()
    gate = WriteReviewGate(ui, hold_writes="always", cwd=cwd)
    assert await gate.review(cwd / "a.txt", "same\n", "same\n") == "same\n"
    assert ui.calls == []


async def test_rejection_returns_none(cwd: Path) -> None:
    gate = WriteReviewGate(FakeReviewUi(None), hold_writes="always", cwd=cwd)
    assert await gate.review(cwd / "a.txt", None, "new\n") is None


def test_unknown_setting_is_refused() -> None:
    with pytest.raises(ValueError, match="hold_writes"):
        WriteReviewGate(FakeReviewUi(), hold_writes="sometimes")


async def test_outside_permission_holds_until_a_grant_covers_the_path(cwd: Path) -> None:
    ui = FakeReviewUi(ReviewedWrite("reviewed\n", 1, 1))
    broker = PermissionBroker()
    gate = WriteReviewGate(ui, cwd=cwd)  # default: outside_permission
    gate.track(broker)
    a, b = cwd / "a.py", cwd / "b.py"
    assert await gate.review(a, "x\n", "y\n") == "reviewed\n"  # nothing granted yet
    tool_call = {"toolCallId": "t1", "locations": [{"path": str(a)}]}
    await answer_permission(broker, tool_call, "yes")
    assert gate.granted_paths == {a}
    assert await gate.review(a, "x\n", "y\n") == "y\n"  # covered: straight through
    assert await gate.review(b, "x\n", "y\n") == "reviewed\n"  # not covered: held
    assert [call[0] for call in ui.calls] == [a, b]


async def test_rejected_or_cancelled_permissions_leave_the_last_grant(cwd: Path) -> None:
    broker = PermissionBroker()
    gate = WriteReviewGate(FakeReviewUi(), cwd=cwd)
    gate.track(broker)
    a, b = cwd / "a.py", cwd / "b.py"
    await answer_permission(broker, {"toolCallId": "t1", "locations": [{"path": str(a)}]}, "always")
    await answer_permission(broker, {"toolCallId": "t2", "locations": [{"path": str(b)}]}, "no")
    await answer_permission(broker, {"toolCallId": "t3", "locations": [{"path": str(b)}]}, None)
    assert gate.granted_paths == {a}
    assert not gate.should_hold(a) and gate.should_hold(b)


async def test_a_new_grant_replaces_the_previous_one(cwd: Path) -> None:
    broker = PermissionBroker()
    gate = WriteReviewGate(FakeReviewUi(), cwd=cwd)
    gate.track(broker)
    a, b = cwd / "a.py", cwd / "b.py"
    await answer_permission(broker, {"toolCallId": "t1", "locations": [{"path": str(a)}]}, "yes")
    await answer_permission(broker, {"toolCallId": "t2", "locations": [{"path": str(b)}]}, "yes")
    assert gate.should_hold(a) and not gate.should_hold(b)
    # a grant whose tool call names no file covers nothing
    await answer_permission(broker, {"toolCallId": "t3", "title": "run tests"}, "yes")
    assert gate.granted_paths == frozenset()
    assert gate.should_hold(b)


async def test_answers_given_without_asking_count_and_tracking_stops(cwd: Path) -> None:
    broker = PermissionBroker()
    gate = WriteReviewGate(FakeReviewUi(), cwd=cwd)
    stop = gate.track(broker)
    a, b = cwd / "a.py", cwd / "b.py"
    broker.auto_answer = lambda pending: "always"  # as a remembered allow_always rule would
    params = {"sessionId": "s", "options": OPTIONS}
    tool_call = {"toolCallId": "t1", "locations": [{"path": str(a)}]}
    await broker.request({**params, "toolCall": tool_call})
    assert gate.granted_paths == {a}
    broker.auto_answer = lambda pending: "no"  # an automatic rejection changes nothing
    await broker.request({**params, "toolCall": {**tool_call, "locations": [{"path": str(b)}]}})
    assert gate.granted_paths == {a}
    stop()
    broker.auto_answer = lambda pending: "yes"
    await broker.request({**params, "toolCall": {**tool_call, "locations": [{"path": str(b)}]}})
    assert gate.granted_paths == {a}


def test_the_settings_enum_is_accepted(cwd: Path) -> None:
    from acp_tui.config import HoldWrites

    gate = WriteReviewGate(FakeReviewUi(), hold_writes=HoldWrites.NEVER, cwd=cwd)
    assert not gate.should_hold(cwd / "x")
    gate.hold_writes = HoldWrites.ALWAYS
    assert gate.should_hold(cwd / "x")


async def test_diff_content_relative_paths_and_known_tool_calls_count(cwd: Path) -> None:
    broker = PermissionBroker()
    known = {"t1": ["/elsewhere/known.py"]}
    gate = WriteReviewGate(
        FakeReviewUi(), cwd=cwd, known_tool_call_paths=lambda tid: known.get(tid, [])
    )
    gate.track(broker)
    tool_call = {
        "toolCallId": "t1",
        "content": [
            {"type": "diff", "path": str(cwd / "d.py"), "newText": "x"},
            {"type": "content", "content": {"type": "text", "text": "hi"}},
        ],
        "locations": [{"path": "rel/r.py"}],
    }
    await answer_permission(broker, tool_call, "yes")
    assert gate.granted_paths == {cwd / "d.py", cwd / "rel" / "r.py", Path("/elsewhere/known.py")}


async def test_symlinked_path_matches_its_target(cwd: Path) -> None:
    (cwd / "real.py").write_text("x\n")
    (cwd / "link.py").symlink_to(cwd / "real.py")
    broker = PermissionBroker()
    gate = WriteReviewGate(FakeReviewUi(), cwd=cwd)
    gate.track(broker)
    await answer_permission(
        broker, {"toolCallId": "t", "locations": [{"path": str(cwd / "link.py")}]}, "yes"
    )
    assert not gate.should_hold(cwd / "real.py")


async def test_written_reports_after_the_change_log_records_the_write(cwd: Path) -> None:
    gate = WriteReviewGate(FakeReviewUi(ReviewedWrite("a\nB\n", 1, 2)), hold_writes="always")
    log = ChangeLog()
    gate.attach(log)
    reports: list[WriteReport] = []
    gate.written.subscribe(reports.append)
    path = cwd / "f.txt"
    content = await gate.review(path, "a\nb\n", "A\nB\n")
    assert reports == []  # nothing written yet
    assert isinstance(content, str)
    record = log.add(path, "a\nb\n", content)
    assert len(reports) == 1
    report = reports[0]
    assert (report.held, report.accepted, report.total, report.record) == (True, 1, 2, record)
    assert report.summary(cwd) == "wrote f.txt: 1 of 2 hunks (+1 \N{MINUS SIGN}1)"
    # a revert is the user's own doing: no report; and a record nobody reviewed neither
    log.add(path, content, "a\nb\n", reverts=record.id)
    log.add(cwd / "other.txt", None, "x\n")
    assert len(reports) == 1


async def test_unheld_write_report_says_what_was_written(cwd: Path) -> None:
    gate = WriteReviewGate(FakeReviewUi(), hold_writes="never")
    log = ChangeLog()
    gate.attach(log)
    reports: list[WriteReport] = []
    gate.written.subscribe(reports.append)
    path = cwd / "new.txt"
    written = await gate.review(path, None, "1\n2\n")
    assert isinstance(written, str)
    log.add(path, None, written)
    assert [r.summary(cwd) for r in reports] == ["wrote new.txt (+2 \N{MINUS SIGN}0)"]
    assert not reports[0].held


# ---- pure helpers -------------------------------------------------------------------------------

OLD = "".join(f"{i}\n" for i in range(1, 31))
NEW = OLD.replace("2\n", "two\n", 1).replace("15\n", "fifteen\n").replace("28\n", "28\n28b\n")


def test_decide_counts_undecided_as_accepted() -> None:
    diff = compute_diff("/f", OLD, NEW)
    assert len(diff.hunks) == 3
    assert decide(diff, {}) == ReviewedWrite(NEW, 3, 3)
    result = decide(diff, {1: "rejected", 2: "accepted"})
    assert result == ReviewedWrite(NEW.replace("fifteen\n", "15\n"), 2, 3)
    assert decide(diff, {0: "rejected", 1: "rejected", 2: "rejected"}) is None


def test_decide_on_an_empty_diff_keeps_the_content() -> None:
    assert decide(compute_diff("/f", "x\n", "x\n"), {}) == ReviewedWrite("x\n", 0, 0)


def test_carry_decisions_keeps_hunks_that_make_the_same_change() -> None:
    old = compute_diff("/f", OLD, NEW)
    decisions = {0: "rejected", 1: "accepted", 2: "rejected"}
    # the disk changed next to hunk 2 (line 16): hunk 2 now differs, 1 and 3 are the same change
    disk = OLD.replace("16\n", "sixteen\n")
    new = compute_diff("/f", disk, NEW)
    assert len(new.hunks) == 3
    assert carry_decisions(old, decisions, new) == {0: "rejected", 2: "rejected"}  # type: ignore[arg-type]


def test_carry_decisions_follows_hunks_that_moved_and_drops_vanished_ones() -> None:
    old = compute_diff("/f", OLD, NEW)
    # the disk already holds the agent's first change and gained 10 lines at the top
    disk = "".join(f"top {i}\n" for i in range(10)) + OLD.replace("2\n", "two\n", 1)
    new = compute_diff("/f", disk, NEW)
    assert len(new.hunks) == 3  # remove the top lines, fifteen, 28b
    carried = carry_decisions(old, {0: "accepted", 1: "rejected", 2: "accepted"}, new)
    assert carried == {1: "rejected", 2: "accepted"}


def test_changed_hunks_are_the_ones_making_a_new_change() -> None:
    old = compute_diff("/f", OLD, NEW)
    assert changed_hunks(old, compute_diff("/f", OLD, NEW)) == set()
    new = compute_diff("/f", OLD.replace("16\n", "sixteen\n"), NEW)
    assert changed_hunks(old, new) == {1}
    # the same change twice in the new diff but once in the old: the second one is new
    twice = compute_diff("/f", "a\n" + "x\n" * 10 + "a\n", "b\n" + "x\n" * 10 + "b\n")
    once = compute_diff("/f", "a\n" + "x\n" * 10 + "c\n", "b\n" + "x\n" * 10 + "c\n")
    assert changed_hunks(once, twice) == {1}


def test_tool_call_paths_ignore_malformed_items() -> None:
    raw = {
        "locations": [{"path": "/a"}, {"line": 3}, "junk", {"path": 5}],
        "content": [{"type": "diff", "path": "/b"}, {"type": "diff"}, None],
    }
    assert tool_call_paths(raw) == ["/a", "/b"]
    assert tool_call_paths({"locations": "nope"}) == []


def test_thread_tool_call_paths_reads_entries() -> None:
    entry = SimpleNamespace(
        locations=[SimpleNamespace(path="/x")],
        content=[SimpleNamespace(type="diff", path="/y"), SimpleNamespace(type="content")],
    )
    lookup = thread_tool_call_paths({"t": entry})
    assert list(lookup("t")) == ["/x", "/y"]
    assert list(lookup("missing")) == []

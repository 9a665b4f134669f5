"""WriteReviewGate: when writes are held (hold_writes + the last granted permission), what the
agent's file host gets back, the write reports; and the pure hunk-decision helpers."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from acp_tui.client.write_review import (
    WriteReport,
    WriteReviewGate,
)
from acp_tui.host.change_log import ChangeLog, WriteReview
from acp_tui.host.filesystem import ProposedWrite
from acp_tui.host.permission_subject import named_paths
from acp_tui.host.permissions import PendingPermission, PermissionBroker
from acp_tui.protocol.errors import RpcError
from acp_tui.protocol.models import RequestPermissionRequest, WriteTextFileRequest
from acp_tui.thread.diff import FileDiff
from acp_tui.thread.hunks import HunkDecision, ReviewedWrite, decide
from tests.routed import routed


def ask(broker: PermissionBroker, params: dict[str, Any]) -> Any:
    """The broker's handler reached as the router reaches it: params through their model."""
    return broker.request(RequestPermissionRequest.model_validate(params))


OPTIONS = [
    {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
    {"optionId": "always", "name": "Always", "kind": "allow_always"},
    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
]


class FakeReviewUi:
    """Records each review it is asked for and answers with a preset decision."""

    def __init__(self, answer: ReviewedWrite | None = None) -> None:
        self.calls: list[tuple[Path, str | None, str]] = []
        self.diffs: list[FileDiff] = []
        self.answer = answer

    async def __call__(self, path: Path, diff: FileDiff) -> ReviewedWrite | None:
        self.calls.append((path, diff.old_text, diff.new_text))
        self.diffs.append(diff)
        return self.answer


async def written(gate: WriteReviewGate, path: Path, before: str | None, new: str) -> str | None:
    """The content the gate tells the file host to write (None: rejected)."""
    outcome = await gate.review(ProposedWrite(path, before, new))
    return None if outcome is None else outcome.content


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
        ask(broker, {"sessionId": "s", "toolCall": tool_call, "options": OPTIONS})
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
    assert await written(gate, cwd / "a.txt", "old\n", "new\n") == "merged\n"
    assert ui.calls == [(cwd / "a.txt", "old\n", "new\n")]


async def test_never_holds_nothing(cwd: Path) -> None:
    ui = FakeReviewUi()
    gate = WriteReviewGate(ui, hold_writes="never", cwd=cwd)
    assert await written(gate, cwd / "a.txt", "old\n", "new\n") == "new\n"
    assert ui.calls == []


async def test_an_unchanged_write_is_never_held(cwd: Path) -> None:
    ui = FakeReviewUi()
    gate = WriteReviewGate(ui, hold_writes="always", cwd=cwd)
    assert await written(gate, cwd / "a.txt", "same\n", "same\n") == "same\n"
    assert ui.calls == []


async def test_rejection_returns_none(cwd: Path) -> None:
    gate = WriteReviewGate(FakeReviewUi(None), hold_writes="always", cwd=cwd)
    assert await written(gate, cwd / "a.txt", None, "new\n") is None


def test_unknown_setting_is_refused() -> None:
    with pytest.raises(ValueError, match="hold_writes"):
        WriteReviewGate(FakeReviewUi(), hold_writes="sometimes")


async def test_outside_permission_holds_until_a_grant_covers_the_path(cwd: Path) -> None:
    ui = FakeReviewUi(ReviewedWrite("reviewed\n", 1, 1))
    broker = PermissionBroker()
    gate = WriteReviewGate(ui, cwd=cwd)  # default: outside_permission
    gate.track(broker)
    a, b = cwd / "a.py", cwd / "b.py"
    assert await written(gate, a, "x\n", "y\n") == "reviewed\n"  # nothing granted yet
    tool_call = {"toolCallId": "t1", "locations": [{"path": str(a)}]}
    await answer_permission(broker, tool_call, "yes")
    assert not gate.should_hold(a) and gate.should_hold(b)
    assert await written(gate, a, "x\n", "y\n") == "y\n"  # covered: straight through
    assert await written(gate, b, "x\n", "y\n") == "reviewed\n"  # not covered: held
    assert [call[0] for call in ui.calls] == [a, b]


async def test_rejected_or_cancelled_permissions_leave_the_last_grant(cwd: Path) -> None:
    broker = PermissionBroker()
    gate = WriteReviewGate(FakeReviewUi(), cwd=cwd)
    gate.track(broker)
    a, b = cwd / "a.py", cwd / "b.py"
    await answer_permission(broker, {"toolCallId": "t1", "locations": [{"path": str(a)}]}, "always")
    await answer_permission(broker, {"toolCallId": "t2", "locations": [{"path": str(b)}]}, "no")
    await answer_permission(broker, {"toolCallId": "t3", "locations": [{"path": str(b)}]}, None)
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
    assert gate.should_hold(a) and gate.should_hold(b)


async def test_answers_given_without_asking_grant_nothing_and_tracking_stops(cwd: Path) -> None:
    broker = PermissionBroker()
    ui = FakeReviewUi(ReviewedWrite("reviewed\n", 1, 1))
    gate = WriteReviewGate(ui, cwd=cwd)
    stop = gate.track(broker)
    a, b = cwd / "a.py", cwd / "b.py"
    await answer_permission(broker, {"toolCallId": "t0", "locations": [{"path": str(b)}]}, "yes")
    assert not gate.should_hold(b) and gate.should_hold(a)
    automatic: list[PendingPermission] = []
    broker.subscribe_auto_answers(lambda event: automatic.append(event.pending))
    broker.auto_answer = lambda pending: "always"  # as a remembered allow_always rule would
    params = {"sessionId": "s", "options": OPTIONS}
    tool_call = {"toolCallId": "t1", "locations": [{"path": str(a)}]}
    await ask(broker, {**params, "toolCall": tool_call})
    assert [p.automatic for p in automatic] == [True]
    assert gate.should_hold(a)  # the rule's "yes" is not the user's
    assert gate.should_hold(b)  # and the last answer is no longer the user's: their grant ended
    assert await written(gate, a, "x\n", "y\n") == "reviewed\n"  # still held for review
    stop()
    broker.auto_answer = None
    await answer_permission(broker, {"toolCallId": "t2", "locations": [{"path": str(a)}]}, "yes")
    assert gate.should_hold(a) and gate.should_hold(b)  # (no longer tracked: nothing granted)


async def test_a_shown_request_answered_automatically_grants_nothing(cwd: Path) -> None:
    """E.g. a second request a rule answers once the user's "always" on the first added it."""
    broker = PermissionBroker()
    gate = WriteReviewGate(FakeReviewUi(), cwd=cwd)
    gate.track(broker)
    shown: list[PendingPermission] = []
    presented = asyncio.Event()

    def present(pending: PendingPermission) -> None:
        shown.append(pending)
        presented.set()

    broker.subscribe(present)
    a = cwd / "a.py"
    request = asyncio.create_task(
        ask(
            broker,
            {
                "sessionId": "s",
                "options": OPTIONS,
                "toolCall": {"toolCallId": "t1", "locations": [{"path": str(a)}]},
            },
        )
    )
    await asyncio.wait_for(presented.wait(), 5)
    shown[0].automatic = True  # what the broker's automatic answer marks
    shown[0].select("yes")
    await asyncio.wait_for(request, 5)
    assert gate.should_hold(a)


async def test_a_remembered_always_never_lets_a_later_write_skip_review(cwd: Path) -> None:
    """The user's "Always allow" covers the write it was asked for; the later request a rule
    answers, and a later write the agent makes on its own remembered "always" (no request at
    all), are held for review."""
    from acp_tui.host.permission_rules import RulesStore

    ui = FakeReviewUi(ReviewedWrite("reviewed\n", 1, 1))
    broker = PermissionBroker(RulesStore(cwd, cwd / "data" / "rules.json"))
    gate = WriteReviewGate(ui, cwd=cwd)
    gate.track(broker)
    a = cwd / "a.py"
    tool_call = {"toolCallId": "t1", "kind": "edit", "locations": [{"path": str(a)}]}
    await answer_permission(broker, tool_call, "always")
    assert await written(gate, a, "x\n", "y\n") == "y\n"  # the write the user allowed
    assert await written(gate, a, "y\n", "z\n") == "reviewed\n"  # the agent's own "always"
    auto: list[object] = []
    broker.subscribe_auto_answers(auto.append)
    await ask(broker, {"sessionId": "s", "options": OPTIONS,
                       "toolCall": {**tool_call, "toolCallId": "t2"}})  # fmt: skip
    assert auto  # answered by the remembered rule
    assert await written(gate, a, "z\n", "w\n") == "reviewed\n"
    assert [call[0] for call in ui.calls] == [a, a]


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
    granted = (cwd / "d.py", cwd / "rel" / "r.py", Path("/elsewhere/known.py"))
    assert not any(gate.should_hold(path) for path in granted)
    assert gate.should_hold(cwd / "other.py")


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


class DecidingUi:
    """Decides hunks on the diff it is shown, as the review screen does."""

    def __init__(self, decisions: dict[int, HunkDecision]) -> None:
        self.decisions = decisions
        self.diffs: list[FileDiff] = []

    async def __call__(self, path: Path, diff: FileDiff) -> ReviewedWrite | None:
        self.diffs.append(diff)
        return decide(diff, self.decisions)


async def test_the_review_outcome_carries_the_one_diff_into_the_record_and_report(
    cwd: Path,
) -> None:
    ui = DecidingUi({1: "rejected"})
    gate = WriteReviewGate(ui, hold_writes="always")
    log = ChangeLog()
    path = cwd / "f.txt"
    outcome = await gate.review(ProposedWrite(path, OLD, NEW))
    assert log.added.listener_count == 0  # the gate decides; it hears nothing back from the log
    assert outcome is not None
    [diff] = ui.diffs
    assert (diff.old_text, diff.new_text) == (OLD, NEW)  # the screen got the gate's diff
    assert outcome.content == NEW.replace("fifteen\n", "15\n")
    assert outcome.base_known and outcome.base == OLD
    assert outcome.review == WriteReview(True, 2, 3, 2, 1)  # "2"→"two", "28"+"28b"
    record = log.add(path, OLD, outcome.content, review=outcome.review)
    report = WriteReport.of(record)
    assert report is not None
    assert (report.held, report.accepted, report.total, report.record) == (True, 2, 3, record)
    assert report.summary(cwd) == "wrote f.txt: 2 of 3 hunks (+2 \N{MINUS SIGN}1)"
    # a revert is the user's own doing: no report; and a record nobody reviewed neither
    assert WriteReport.of(log.add(path, outcome.content, OLD, reverts=record.id)) is None
    assert WriteReport.of(log.add(cwd / "other.txt", None, "x\n")) is None


async def test_unheld_write_report_says_what_was_written(cwd: Path) -> None:
    gate = WriteReviewGate(FakeReviewUi(), hold_writes="never")
    log = ChangeLog()
    path = cwd / "new.txt"
    outcome = await gate.review(ProposedWrite(path, None, "1\n2\n"))
    assert outcome is not None and outcome.content == "1\n2\n"
    report = WriteReport.of(log.add(path, None, outcome.content, review=outcome.review))
    assert report is not None
    assert report.summary(cwd) == "wrote new.txt (+2 \N{MINUS SIGN}0)"
    assert not report.held


# ---- pure helpers -------------------------------------------------------------------------------

OLD = "".join(f"{i}\n" for i in range(1, 31))
NEW = OLD.replace("2\n", "two\n", 1).replace("15\n", "fifteen\n").replace("28\n", "28\n28b\n")


def test_named_paths_ignore_malformed_items() -> None:
    raw = {
        "locations": [{"path": "/a"}, {"line": 3}, "junk", {"path": 5}],
        "content": [{"type": "diff", "path": "/b"}, {"type": "diff"}, None],
    }
    assert named_paths(raw) == ["/a", "/b"]
    assert named_paths({"locations": "nope", "content": 5}) == []


def test_named_paths_reads_entries_too() -> None:
    entry = SimpleNamespace(
        locations=[SimpleNamespace(path="/x")],
        content=[SimpleNamespace(type="diff", path="/y"), SimpleNamespace(type="content")],
    )
    assert named_paths(entry) == ["/x", "/y"]
    assert named_paths(None) == []  # a tool call the thread does not know


async def test_a_write_the_policy_allowed_is_still_held_end_to_end(cwd: Path) -> None:
    """permission_policy allow_all_dangerous answers the edit; hold_writes still holds the write."""
    from acp_tui.host.asker import FixedAnswer
    from acp_tui.host.filesystem import FileSystemHost
    from acp_tui.host.permission_rules import PermissionPolicy

    broker = PermissionBroker(policy=PermissionPolicy.ALLOW_ALL_DANGEROUS)
    ui = FakeReviewUi(None)  # the user rejects in review
    gate = WriteReviewGate(ui, cwd=cwd)  # default: outside_permission
    gate.track(broker)
    fs = FileSystemHost(cwd, FixedAnswer("deny"), write_gate=gate)
    target = cwd / "secret.py"
    target.write_text("keep\n")
    tool_call = {"toolCallId": "t1", "kind": "edit", "locations": [{"path": str(target)}]}
    result = await ask(broker, {"sessionId": "s", "toolCall": tool_call, "options": OPTIONS})
    assert result["outcome"] == {"outcome": "selected", "optionId": "yes"}  # allowed, unasked
    with pytest.raises(RpcError):
        await routed(WriteTextFileRequest, fs.write_text_file)(
            {"sessionId": "s", "path": str(target), "content": "evil\n"}
        )
    assert ui.calls == [(target, "keep\n", "evil\n")]  # it went to review
    assert target.read_text() == "keep\n"

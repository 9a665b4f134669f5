"""One way to the disk: request → decision (the gate) → write (the file host) → record (the change
log) → report. Nobody on the way hears its own step back through the log."""

from __future__ import annotations

from pathlib import Path

from acp_tui.client.host_services import host_services
from acp_tui.client.write_review import WriteReviewGate
from acp_tui.config import Settings
from acp_tui.host.asker import FixedAnswer, Question
from acp_tui.host.boundary import DENY
from acp_tui.host.change_log import Observed, WriteRecord
from acp_tui.host.dir_watch import DirectoryWatchers
from acp_tui.host.filesystem import CANCEL, OVERWRITE_CHANGED, FileSystemHost
from acp_tui.host.process_guard import ProcessGuard
from acp_tui.host.write_report import WriteReport
from acp_tui.protocol.errors import RpcError
from acp_tui.protocol.models import WriteTextFileRequest
from acp_tui.tasks import Supervisor
from acp_tui.thread.diff import FileDiff
from acp_tui.thread.hunks import ReviewedWrite
from acp_tui.thread.thread import Thread
from bench.headless import HeadlessUi


class CountingAsker:
    """Answers every question with `answer` and keeps them."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.asked: list[Question] = []

    async def ask(self, question: Question) -> str:
        self.asked.append(question)
        return self.answer


async def never_review(path: Path, diff: FileDiff) -> ReviewedWrite | None:
    raise AssertionError("a write was held")


def request(path: Path, content: str) -> WriteTextFileRequest:
    return WriteTextFileRequest(session_id="s", path=str(path), content=content)


async def test_a_reviewed_write_is_reported_by_the_file_host_after_its_record(
    tmp_path: Path,
) -> None:
    gate = WriteReviewGate(never_review, hold_writes="never", cwd=tmp_path)
    fs = FileSystemHost(tmp_path, FixedAnswer(DENY), write_gate=gate)
    seen: list[tuple[WriteReport, list[WriteRecord]]] = []
    fs.written.subscribe(lambda report: seen.append((report, list(fs.changes.records))))
    target = tmp_path / "a.txt"
    target.write_text("one\n")

    await fs.write_text_file(request(target, "one\ntwo\n"))

    [(report, records_then)] = seen
    assert report.record is records_then[-1]  # the record is in the log before the report
    assert (report.path, report.held, report.added, report.removed) == (target, False, 1, 0)
    assert report.summary(tmp_path) == "wrote a.txt (+1 \N{MINUS SIGN}0)"


async def test_nobody_on_the_write_path_listens_to_the_log(tmp_path: Path) -> None:
    gate = WriteReviewGate(never_review, hold_writes="never", cwd=tmp_path)
    fs = FileSystemHost(tmp_path, FixedAnswer(DENY), write_gate=gate)
    # neither the file host (its own records) nor the gate (the facts it decided) hear the log
    assert fs.changes.added.listener_count == 0
    await fs.write_text_file(request(tmp_path / "b.txt", "x\n"))
    assert len(fs.changes.records) == 1


async def test_reverts_and_writes_without_a_gate_are_not_reported(tmp_path: Path) -> None:
    fs = FileSystemHost(tmp_path, FixedAnswer(DENY))
    reports: list[WriteReport] = []
    fs.written.subscribe(reports.append)
    target = tmp_path / "c.txt"
    await fs.write_text_file(request(target, "agent\n"))
    await fs.reverts.revert_record(1)
    assert [r.reverts for r in fs.changes.records] == [None, 1]
    assert reports == []


async def test_the_agents_next_write_over_its_own_write_is_not_asked_about(
    tmp_path: Path,
) -> None:
    asker = CountingAsker(CANCEL)
    fs = FileSystemHost(tmp_path, asker)
    target = tmp_path / "d.txt"
    await fs.write_text_file(request(target, "1\n"))
    await fs.write_text_file(request(target, "2\n"))  # the host knows what it wrote
    assert asker.asked == []
    assert target.read_text() == "2\n"


async def test_a_change_the_agent_made_itself_is_known_one_from_outside_is_asked_about(
    tmp_path: Path,
) -> None:
    asker = CountingAsker(CANCEL)
    fs = FileSystemHost(tmp_path, asker)
    target = tmp_path / "e.txt"
    await fs.write_text_file(request(target, "agent\n"))

    # the agent changed the file itself (the change monitor saw it and attributed it)
    target.write_text("agent, by its own tool\n")
    record = fs.changes.add(
        target, "agent\n", "agent, by its own tool\n", observed=Observed("agent", turn=1)
    )
    fs.agent_changed(record)
    await fs.write_text_file(request(target, "agent again\n"))
    assert asker.asked == []

    # the user changed it: the agent's next write asks first (and is cancelled here)
    target.write_text("the user's\n")
    record = fs.changes.add(target, "agent again\n", "the user's\n", observed=Observed("outside"))
    fs.agent_changed(record)
    try:
        await fs.write_text_file(request(target, "agent over the user\n"))
    except RpcError:
        pass
    else:
        raise AssertionError("the write over the user's change went through unasked")
    assert [q.kind for q in asker.asked] == [OVERWRITE_CHANGED]
    assert target.read_text() == "the user's\n"


async def test_the_session_wires_the_monitor_to_the_file_host_and_nothing_back(
    tmp_path: Path,
) -> None:
    tasks = Supervisor("test")
    services = host_services(
        Thread(),
        tmp_path,
        HeadlessUi(),
        Settings(watch_changes=True),
        rules=None,
        guard=ProcessGuard(),
        tasks=tasks,
        watchers=DirectoryWatchers(),
        name=lambda: "the agent",
    )
    try:
        monitor = services.changes.monitor
        assert monitor is not None
        assert monitor.on_observed == services.fs.agent_changed
        # the log's listeners are the readers after the record: attribution, turn summaries,
        # the monitor's view of what is on disk; never the file host or the gate
        owners = {
            getattr(listener, "__self__", None).__class__.__name__
            for listener in services.fs.changes.added._listeners
        }
        assert "FileSystemHost" not in owners and "WriteReviewGate" not in owners
    finally:
        await services.changes.stop()
        await tasks.close()

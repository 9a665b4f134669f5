"""The file host against a hostile file system: directories flipped to symlinks and moved away
while it writes (thousands of times), targets swapped during review, read-only and hard-linked
targets. Nothing may land outside the session directory without a question."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_tui.host import beneath
from acp_tui.host.asker import Question
from acp_tui.host.atomic_write import write_at
from acp_tui.host.beneath import PathChanged
from acp_tui.host.boundary import ALLOW_ONCE, DENY, OUTSIDE_CWD
from acp_tui.host.change_log import WriteReview
from acp_tui.host.filesystem import FileSystemHost, ProposedWrite, ReviewOutcome
from acp_tui.protocol.errors import RpcError
from acp_tui.protocol.models import ReadTextFileRequest, WriteTextFileRequest
from tests.routed import routed


def fs_read(host: FileSystemHost, params: Any) -> Any:
    """fs/read_text_file as the connection calls it: params through the router's model."""
    return routed(ReadTextFileRequest, host.read_text_file)(params)


def fs_write(host: FileSystemHost, params: Any) -> Any:
    """fs/write_text_file as the connection calls it: params through the router's model."""
    return routed(WriteTextFileRequest, host.write_text_file)(params)


ATTEMPTS = 1000
TARGET_CHANGED = "target_changed"
LINUX = sys.platform.startswith("linux")


class Answers:
    """Answers each question kind from a table (DENY when absent) and records the questions."""

    def __init__(self, **answers: str) -> None:
        self.answers = answers
        self.asked: list[Question] = []

    async def ask(self, question: Question) -> str:
        self.asked.append(question)
        return self.answers.get(question.kind, DENY)


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    project, outside = tmp_path / "project", tmp_path / "outside"
    (project / "d").mkdir(parents=True)
    outside.mkdir()
    return project.resolve(), outside.resolve()


def files_under(root: Path) -> list[Path]:
    return [Path(base, name) for base, _, names in os.walk(root) for name in names]


FLIPPER = r"""
import ctypes, os, random, signal, sys, time

libc = ctypes.CDLL(None, use_errno=True)
renameat2 = libc.renameat2
renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
AT_FDCWD, RENAME_EXCHANGE = -100, 2
project, outside = sys.argv[1], sys.argv[2]
d, link, away = f"{project}/d", f"{project}/link", f"{outside}/away"
os.symlink(outside, link)
stop = False


def on_term(signum, frame):
    global stop
    stop = True


def exchange(a, b):
    if renameat2(AT_FDCWD, a.encode(), AT_FDCWD, b.encode(), RENAME_EXCHANGE) != 0:
        raise OSError(ctypes.get_errno(), "renameat2")


signal.signal(signal.SIGTERM, on_term)
flips = spawned = 0
print("ready", flush=True)
def dwell():  # hold each state for a moment, so writes meet every state
    time.sleep(random.random() * 0.0005)


while not stop:
    exchange(d, link)  # project/d is now a symlink to outside
    dwell()
    exchange(d, link)
    dwell()
    try:
        os.rename(d, away)  # the real d leaves the project
    except OSError:
        pass
    dwell()
    while os.path.isdir(away):
        try:
            os.rename(away, d)
            break
        except OSError:  # the host created a new project/d meanwhile: set it aside, inside
            spawned += 1
            try:
                os.rename(d, f"{project}/spawn{spawned}")
            except OSError:
                pass
    dwell()
    flips += 1
os.unlink(link)
print(flips, spawned, flush=True)
"""


class Flipper:
    """A separate process (as an agent's shell would be) that, as fast as it can until stopped,
    swaps project/d with a symlink to `outside` and back (atomically: project/d never goes
    missing), then moves the real d out to outside/away and back. While d is away the host may
    create a new project/d; that one is moved aside inside the project (project/spawnN) so the
    real d can come back. So a file that ends up outside was written while its directory was
    outside (or through the symlink)."""

    def __init__(self, project: Path, outside: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", FLIPPER, str(project), str(outside)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        assert self.process.stdout.readline() == "ready\n"
        self.flips = self.spawned = 0

    def finish(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            out, _ = self.process.communicate(timeout=30)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
        self.flips, self.spawned = (int(n) for n in out.split())


@pytest.mark.skipif(not LINUX, reason="renameat2 RENAME_EXCHANGE is Linux only")
async def test_flipping_and_moving_a_directory_while_writing_lands_nothing_outside(
    tree, monkeypatch
):
    project, outside = tree
    # where files land is the point here, not durability: skip the fsyncs to stay fast
    monkeypatch.setattr(os, "fsync", lambda fd: None)
    asker = Answers()  # every question (outside, target changed) is denied
    host = FileSystemHost(project, asker)
    written = refused = 0
    flipper = Flipper(project, outside)
    try:
        for i in range(ATTEMPTS):
            params = {"sessionId": "s", "path": str(project / "d" / f"f{i}.txt"), "content": "x"}
            try:
                await fs_write(host, params)
                written += 1
            except RpcError:
                refused += 1
    finally:
        flipper.finish()
    landed_outside = files_under(outside)
    print(
        f"\n{ATTEMPTS} writes, {flipper.flips} flip cycles: {written} written, {refused} refused, "
        f"{len(asker.asked)} questions, {flipper.spawned} directories re-created, "
        f"{len(landed_outside)} outside"
    )
    assert landed_outside == []
    assert flipper.flips > 10  # the race really ran during the writes
    assert written + refused == ATTEMPTS
    assert len(files_under(project)) == written  # every write is somewhere inside
    assert len(host.changes.records) == written
    assert all(record.path.is_relative_to(project) for record in host.changes.records)
    assert {q.kind for q in asker.asked} <= {OUTSIDE_CWD, TARGET_CHANGED}


class SwappingGate:
    """Swaps project/d for a symlink to `outside` while the write waits in review."""

    def __init__(self, project: Path, outside: Path) -> None:
        self.project, self.outside = project, outside
        self.reviewed: list[Path] = []

    async def review(self, proposal: ProposedWrite) -> ReviewOutcome:
        self.reviewed.append(proposal.path)
        d = self.project / "d"
        os.rename(d, self.project / "d.old")
        os.symlink(self.outside, d)
        return ReviewOutcome(proposal.proposed, WriteReview(True, 1, 1, 1, 0))


async def test_a_parent_swapped_during_review_is_asked_again_naming_the_new_target(tree):
    project, outside = tree
    asker = Answers()
    host = FileSystemHost(project, asker, write_gate=SwappingGate(project, outside))
    target = project / "d" / "new.txt"
    with pytest.raises(RpcError) as caught:
        await fs_write(host, {"sessionId": "s", "path": str(target), "content": "x"})
    assert caught.value.data["reason"] == "target_changed"
    [question] = asker.asked
    assert question.kind == TARGET_CHANGED
    assert question.data["was"] == str(target)
    assert question.data["resolved"] == str(outside / "new.txt")
    assert question.data["outside"] is True
    assert str(outside / "new.txt") in question.detail
    assert files_under(outside) == []
    assert host.changes.records == []


async def test_a_yes_to_the_new_target_reviews_it_and_records_where_it_went(tree):
    project, outside = tree
    asker = Answers(target_changed=ALLOW_ONCE)
    gate = SwappingGate(project, outside)
    host = FileSystemHost(project, asker, write_gate=gate)
    target = project / "d" / "new.txt"
    original_gate_review = gate.review

    async def swap_once(proposal: ProposedWrite) -> ReviewOutcome:
        if not gate.reviewed:
            return await original_gate_review(proposal)
        gate.reviewed.append(proposal.path)
        return ReviewOutcome(proposal.proposed, WriteReview(True, 1, 1, 1, 0))

    gate.review = swap_once  # type: ignore[method-assign]
    await fs_write(host, {"sessionId": "s", "path": str(target), "content": "x"})
    # reviewed again for the new target (the yes was not a review of it)
    assert gate.reviewed == [target, outside / "new.txt"]
    assert [q.kind for q in asker.asked] == [TARGET_CHANGED]
    [record] = host.changes.records
    assert record.path == outside / "new.txt"  # the real target, not the path first checked
    assert (outside / "new.txt").read_text() == "x"


async def test_a_parent_moved_away_during_review_writes_where_the_path_leads_now(tree):
    project, outside = tree

    class MovingGate:
        async def review(self, proposal: ProposedWrite) -> ReviewOutcome:
            os.rename(project / "d", outside / "d")  # the old directory leaves the project
            return ReviewOutcome(proposal.proposed, WriteReview(True, 1, 1, 1, 0))

    host = FileSystemHost(project, Answers(), write_gate=MovingGate())
    target = project / "d" / "new.txt"
    await fs_write(host, {"sessionId": "s", "path": str(target), "content": "x"})
    assert files_under(outside) == []  # not into the moved directory (it is outside now)
    assert target.read_text() == "x"
    assert [r.path for r in host.changes.records] == [target]


async def test_a_read_only_target_is_asked_about(tree):
    project, _ = tree
    target = project / "ro.txt"
    target.write_text("keep")
    target.chmod(0o444)
    asker = Answers()
    host = FileSystemHost(project, asker)
    params = {"sessionId": "s", "path": str(target), "content": "new"}
    with pytest.raises(RpcError) as caught:
        await fs_write(host, params)
    assert caught.value.data["reason"] == "read_only"
    assert [(q.kind, q.data["mode"]) for q in asker.asked] == [("read_only", 0o444)]
    assert target.read_text() == "keep"
    asker.answers["read_only"] = "overwrite"
    await fs_write(host, params)
    assert target.read_text() == "new"
    assert target.stat().st_mode & 0o777 == 0o444  # still read-only


async def test_a_hard_linked_file_counts_as_outside(tree):
    project, outside = tree
    secret = outside / "secret.txt"
    secret.write_text("secret")
    os.link(secret, project / "h.txt")
    asker = Answers()
    host = FileSystemHost(project, asker)
    with pytest.raises(RpcError):
        await fs_write(host, {"sessionId": "s", "path": str(project / "h.txt"), "content": "x"})
    with pytest.raises(RpcError):
        await fs_read(host, {"sessionId": "s", "path": str(project / "h.txt")})
    assert [(q.kind, q.data["links"], q.data["action"]) for q in asker.asked] == [
        (OUTSIDE_CWD, 2, "write"),
        (OUTSIDE_CWD, 2, "read"),
    ]
    assert "hard link" in asker.asked[0].detail
    assert secret.read_text() == "secret"
    assert host.changes.records == []


async def test_extra_allowed_roots_still_need_no_question(tree):
    project, outside = tree
    asker = Answers()
    host = FileSystemHost(project, asker, extra_roots=[outside])
    await fs_write(host, {"sessionId": "s", "path": str(outside / "sub" / "x.txt"), "content": "x"})
    result = await fs_read(host, {"sessionId": "s", "path": str(outside / "sub" / "x.txt")})
    assert result == {"content": "x"}
    assert asker.asked == []


def test_a_directory_moved_away_just_before_the_rename_gets_the_write_undone(tree, monkeypatch):
    project, outside = tree
    (project / "d" / "old.txt").write_text("old")
    real_rename = os.rename

    def move_then_rename(src: str, dst: str, **dir_fds: int) -> None:
        if "src_dir_fd" in dir_fds and (project / "d").exists():
            real_rename(project / "d", outside / "d")  # the parent leaves between check and write
        real_rename(src, dst, **dir_fds)

    monkeypatch.setattr(os, "rename", move_then_rename)
    for name in ("old.txt", "new.txt"):
        with beneath.locate(project / "d" / name) as location, pytest.raises(PathChanged):
            write_at(location, b"agent")
        real_rename(outside / "d", project / "d")
    assert sorted(os.listdir(project / "d")) == ["old.txt"]  # no new file, no temp, no backup
    assert (project / "d" / "old.txt").read_text() == "old"  # the old file put back
    assert files_under(outside) == []


async def test_the_host_retries_where_the_path_leads_after_an_undone_write(tree, monkeypatch):
    project, outside = tree
    real_rename = os.rename
    moved: list[bool] = []

    def move_once(src: str, dst: str, **dir_fds: int) -> None:
        if "src_dir_fd" in dir_fds and not moved:
            moved.append(True)
            real_rename(project / "d", outside / "d")
        real_rename(src, dst, **dir_fds)

    monkeypatch.setattr(os, "rename", move_once)
    host = FileSystemHost(project, Answers())
    target = project / "d" / "x.txt"
    await fs_write(host, {"sessionId": "s", "path": str(target), "content": "x"})
    assert files_under(outside) == []
    assert target.read_text() == "x"  # written again in the project/d that the path leads to now
    assert [r.path for r in host.changes.records] == [target]

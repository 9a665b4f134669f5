"""The rewind's plan and its apply, with real files, a real change log and the file host's
reverts: created / edited / deleted / recreated files, a user edit after the agent's is a
conflict, files acp-tui could not observe named, commands listed; and the old branch's end
saved, read back and rewound forward."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from acp_tui.client import rewind, rewind_branches
from acp_tui.client.change_attribution import ChangeAttribution
from acp_tui.client.turn_changes import TurnChanges
from acp_tui.host.asker import FixedAnswer
from acp_tui.host.boundary import DENY
from acp_tui.host.change_log import Observed
from acp_tui.host.filesystem import FileSystemHost
from acp_tui.host.write_questions import OVERWRITE
from acp_tui.protocol.models import TextContent, WriteTextFileRequest
from acp_tui.thread.entries import MessageEntry
from acp_tui.thread.thread import Thread
from tests.unit.thread_support import notify


class Session:
    """A thread, the file host and the turn grouping, wired as the app wires them."""

    def __init__(self, cwd: Path, answer: str = DENY, max_read_bytes: int = 1 << 20) -> None:
        self.cwd = cwd
        self.thread = Thread()
        self.asker = FixedAnswer(answer)
        self.host = FileSystemHost(cwd, self.asker, max_read_bytes=max_read_bytes)
        self.attribution = ChangeAttribution(self.thread, cwd, grace=0.0)
        self.attribution.attach(self.host.changes)
        self.turns = TurnChanges(
            self.host.changes, self.attribution, self.thread, self.host.reverts
        )

    def prompt(self, text: str) -> MessageEntry:
        entry = self.thread.add_user_prompt([TextContent(text=text)])
        self.thread.begin_turn()
        return entry

    def end(self) -> None:
        self.thread.end_turn("end_turn")

    async def agent_write(self, name: str, content: str) -> None:
        """A write through fs/write_text_file."""
        params = {"sessionId": "s", "path": str(self.cwd / name), "content": content}
        await self.host.write_text_file(WriteTextFileRequest.model_validate(params))

    def agent_writes_itself(self, name: str, content: str | None) -> None:
        """A write the agent makes itself, as the change monitor records it (None: deleted)."""
        path = self.cwd / name
        before = path.read_text() if path.exists() else None
        if content is None:
            path.unlink()
        else:
            path.write_text(content)
        observed = Observed("agent", turn=self.attribution.turn)
        self.host.changes.add(path, before, content or "", deleted=content is None,
                              observed=observed)  # fmt: skip

    def user_edits(self, name: str, content: str) -> None:
        path = self.cwd / name
        before = path.read_text()
        path.write_text(content)
        self.host.changes.add(path, before, content, observed=Observed("outside"))

    def plan(self, prompt: MessageEntry) -> rewind.RewindPlan:
        turn = self.turns.prompt_turn(prompt.id)
        assert turn is not None
        entries = rewind.rewound_entries(self.thread.entries, prompt.id)
        return rewind.plan_rewind(self.host.changes, self.turns.records_from(turn), entries,
                                  self.cwd, max_bytes=self.host.max_read_bytes)  # fmt: skip


def tool_call(thread: Thread, call_id: str, kind: str, title: str, **fields: object) -> None:
    update = {"sessionUpdate": "tool_call", "toolCallId": call_id, "title": title, "kind": kind,
              "status": "completed", **fields}  # fmt: skip
    notify(thread, update)


def by_name(plan: rewind.RewindPlan) -> dict[str, rewind.FileStep]:
    return {step.path.name: step for step in plan.files}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path.resolve()


async def test_the_plan_undoes_every_turn_from_the_prompt_newest_first(project: Path) -> None:
    (project / "kept.txt").write_text("kept v0\n")
    (project / "edited.txt").write_text("e0\n")
    (project / "doomed.txt").write_text("doomed v0\n")
    s = Session(project)
    s.prompt("first")
    await s.agent_write("edited.txt", "e1\n")  # before the rewound turns: stays
    s.end()
    second = s.prompt("second")
    await s.agent_write("edited.txt", "e2\n")
    await s.agent_write("created.txt", "new\n")
    s.agent_writes_itself("doomed.txt", None)
    s.end()
    s.prompt("third")
    await s.agent_write("edited.txt", "e3\n")
    s.agent_writes_itself("created.txt", "new\nthen more\n")
    s.end()

    plan = s.plan(second)
    steps = by_name(plan)
    assert set(steps) == {"edited.txt", "created.txt", "doomed.txt"}
    assert [steps[n].action for n in ("edited.txt", "created.txt", "doomed.txt")] == [
        "revert", "delete", "recreate",
    ]  # fmt: skip
    assert steps["edited.txt"].content == b"e1\n"
    assert steps["edited.txt"].counts == (1, 1)
    assert steps["created.txt"].content is None and steps["created.txt"].counts == (0, 2)
    assert steps["doomed.txt"].content == b"doomed v0\n"
    assert not plan.conflicts

    result = await rewind.apply_plan(plan, s.host.reverts)
    assert len(result.restored) == 3 and not result.failed and not result.skipped
    assert (project / "edited.txt").read_bytes() == b"e1\n"
    assert not (project / "created.txt").exists()
    assert (project / "doomed.txt").read_bytes() == b"doomed v0\n"
    assert (project / "kept.txt").read_bytes() == b"kept v0\n"
    reverts = [r for r in s.host.changes.records if r.reverts is not None]
    assert sorted(r.path.name for r in reverts) == ["created.txt", "doomed.txt", "edited.txt"]


async def test_the_new_branch_writes_over_what_the_rewind_left_without_a_question(
    project: Path,
) -> None:
    """The rewind's own deletions and restores are acp-tui's writes: the new branch's agent
    writing hello.txt again was asked "hello.txt was deleted since acp-tui last wrote it —
    Overwrite?" (issue 39, 15a). The host answers "cancel" to every question here."""
    (project / "notes.txt").write_text("n0\n")
    s = Session(project, answer="cancel")
    first = s.prompt("do the task")
    await s.agent_write("hello.txt", "Hello\n")
    await s.agent_write("notes.txt", "n1\n")
    s.end()
    result = await rewind.apply_plan(s.plan(first), s.host.reverts)
    assert len(result.restored) == 2 and not (project / "hello.txt").exists()
    s.prompt("do the task again")
    await s.agent_write("hello.txt", "Hello again\n")  # (raised the agent's error before)
    await s.agent_write("notes.txt", "n2\n")
    assert (project / "hello.txt").read_text() == "Hello again\n"
    assert (project / "notes.txt").read_text() == "n2\n"


async def test_a_rewind_leaves_the_agents_own_state_as_it_is(project: Path) -> None:
    """fast-agent's `.fast-agent/sessions/*`, Claude's `.claude/settings.local.json`: named,
    not deleted by the rewind (issue 39, 15d)."""
    (project / ".claude").mkdir()
    s = Session(project)
    first = s.prompt("do it")
    s.agent_writes_itself(".claude/settings.local.json", "{}\n")
    await s.agent_write("hello.txt", "Hello\n")
    s.end()
    plan = s.plan(first)
    assert [step.path.name for step in plan.files] == ["hello.txt"]
    assert (project / ".claude" / "settings.local.json", "the agent's own state: left as it is "
            "(f2 reverts it)") in plan.unknown  # fmt: skip
    await rewind.apply_plan(plan, s.host.reverts)
    assert (project / ".claude" / "settings.local.json").read_text() == "{}\n"
    assert not (project / "hello.txt").exists()


async def test_a_file_the_user_changed_after_the_agent_is_a_conflict_kept_unless_asked(
    project: Path,
) -> None:
    (project / "a.txt").write_text("a0\n")
    (project / "b.txt").write_text("b0\n")
    s = Session(project)
    first = s.prompt("edit both")
    await s.agent_write("a.txt", "a1\n")
    await s.agent_write("b.txt", "b1\n")
    s.end()
    s.user_edits("a.txt", "a1 and mine\n")  # seen by the monitor
    (project / "b.txt").write_text("b1, unseen edit\n")  # not seen at all

    plan = s.plan(first)
    assert sorted(step.path.name for step in plan.conflicts) == ["a.txt", "b.txt"]
    result = await rewind.apply_plan(plan, s.host.reverts)
    assert [path.name for path, _ in result.skipped] == ["a.txt", "b.txt"]
    assert (project / "a.txt").read_text() == "a1 and mine\n"
    assert (project / "b.txt").read_text() == "b1, unseen edit\n"

    result = await rewind.apply_plan(plan, s.host.reverts, overwrite=[project / "a.txt"])
    assert [step.path.name for step in result.restored] == ["a.txt"]
    assert (project / "a.txt").read_text() == "a0\n"
    assert (project / "b.txt").read_text() == "b1, unseen edit\n"


async def test_a_user_edit_between_the_rewound_turns_is_a_conflict(project: Path) -> None:
    (project / "a.txt").write_text("a0\n")
    s = Session(project, OVERWRITE)  # (the agent's next write is allowed over the user's edit)
    first = s.prompt("one")
    await s.agent_write("a.txt", "a1\n")
    s.end()
    s.user_edits("a.txt", "a1 mine\n")
    s.prompt("two")
    await s.agent_write("a.txt", "a2\n")
    s.end()
    [step] = s.plan(first).files
    assert step.current == step.expected == b"a2\n"
    assert step.conflict, "rewinding would drop the user's edit between the turns"


async def test_a_file_changed_since_the_plan_is_not_touched(project: Path) -> None:
    (project / "a.txt").write_text("a0\n")
    s = Session(project)
    first = s.prompt("one")
    await s.agent_write("a.txt", "a1\n")
    s.end()
    plan = s.plan(first)
    (project / "a.txt").write_text("changed meanwhile\n")
    result = await rewind.apply_plan(plan, s.host.reverts)
    assert [(p.name, why) for p, why in result.failed] == [
        ("a.txt", "it changed on disk since the list was shown")
    ]
    assert (project / "a.txt").read_text() == "changed meanwhile\n"


async def test_commands_and_unobserved_files_are_named(project: Path) -> None:
    s = Session(project)
    first = s.prompt("build it")
    tool_call(s.thread, "c1", "execute", "Run `make install`")
    tool_call(s.thread, "r1", "read", "Read setup.py")
    ghost = [{"path": str(project / "ghost.py")}]
    tool_call(s.thread, "e1", "edit", "Edit ghost.py", locations=ghost)
    tool_call(s.thread, "m1", "other", "Post to the issue tracker")
    tool_call(s.thread, "t1", "other", "Watch tests",
              content=[{"type": "terminal", "terminalId": "term-1"}])  # fmt: skip
    s.end()
    plan = s.plan(first)
    assert plan.files == []
    assert plan.commands == ["Run `make install`", "Watch tests"]
    assert plan.other == ["Post to the issue tracker"]
    assert plan.unknown == [(project / "ghost.py", "no change was seen")]


async def test_prompts_map_to_their_turns_and_are_listed_newest_first(project: Path) -> None:
    s = Session(project)
    one = s.prompt("one")
    s.end()
    two = s.prompt("two")
    s.end()
    assert (s.turns.prompt_turn(one.id), s.turns.prompt_turn(two.id)) == (1, 2)
    assert [e.text for e in rewind.prompts(s.thread.entries)] == ["two", "one"]


async def test_the_old_branch_end_round_trips_and_rewinds_forward(project: Path) -> None:
    (project / "a.txt").write_text("a0\n")
    s = Session(project)
    first = s.prompt("one")
    await s.agent_write("a.txt", "a1\n")
    await s.agent_write("made.txt", "made\n")
    s.end()
    plan = s.plan(first)
    branch = rewind_branches.from_plan("sess-1", "one", plan)
    data = rewind_branches.encode(branch).encode()
    assert rewind_branches.decode(data, project) == branch
    await rewind.apply_plan(plan, s.host.reverts)
    assert not (project / "made.txt").exists()

    (project / "a.txt").write_text("mine now\n")
    forward = rewind_branches.plan_forward(branch, s.host.changes, max_bytes=1 << 20)
    steps = by_name(forward)
    assert steps["a.txt"].conflict and not steps["made.txt"].conflict
    assert steps["made.txt"].action == "recreate"
    result = await rewind.apply_plan(forward, s.host.reverts)
    assert (project / "made.txt").read_bytes() == b"made\n"
    assert (project / "a.txt").read_text() == "mine now\n", "the user's file is kept"
    assert [p.name for p, _ in result.skipped] == ["a.txt"]


@pytest.mark.parametrize(
    "path",
    ["relative.txt", "/etc/passwd", "{cwd}/../outside.txt"],
    ids=["relative", "outside", "dotdot"],
)
def test_a_saved_branch_naming_a_path_outside_the_session_is_refused(
    project: Path, path: str
) -> None:
    item = {"path": path.format(cwd=project), "end": None, "start": None}
    raw = json.dumps({"format": 1, "sessionId": "s", "prompt": "", "files": [item]})
    with pytest.raises(rewind_branches.BranchError, match="not inside the session directory"):
        rewind_branches.decode(raw.encode(), project)


def test_a_second_rewind_before_leaving_keeps_the_end_the_first_found(project: Path) -> None:
    a, b = project / "a.txt", project / "b.txt"
    first = rewind_branches.BranchEnd(
        "s", "two", (rewind_branches.BranchFile(a, b"a at the end", b"a before two"),)
    )
    second = rewind_branches.BranchEnd(
        "s",
        "one",
        (
            rewind_branches.BranchFile(a, b"a before two", b"a before one"),
            rewind_branches.BranchFile(b, b"b at the end", None),
        ),
    )
    assert rewind_branches.merged(first, second) == rewind_branches.BranchEnd(
        "s",
        "one",
        (
            rewind_branches.BranchFile(a, b"a at the end", b"a before one"),
            rewind_branches.BranchFile(b, b"b at the end", None),
        ),
    )


# ---- files the agent replaced under a rewind (issue 40, item 5) ------------------------------


async def _edited_then(project: Path, s: Session, name: str) -> MessageEntry:
    """A turn in which the agent wrote `name` through fs/write_text_file."""
    (project / name).write_text("v0\n")
    first = s.prompt("edit it")
    await s.agent_write(name, "v1\n")
    s.end()
    return first


async def test_a_file_the_agent_replaced_by_a_symlink_is_asked_about_not_read(
    project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret outside\n")
    s = Session(project)
    first = await _edited_then(project, s, "a.txt")
    (project / "a.txt").unlink()
    (project / "a.txt").symlink_to(outside)  # the agent's own trick, after its write

    plan = s.plan(first)  # (raised PathChanged: the app crashed when the prompt was picked)
    [step] = plan.files
    assert step.leads_to == outside.resolve() and step.current is None, "the target is not read"
    assert step.conflict, "kept unless the user says to overwrite"
    assert "now leads to" in step.describe()
    branch = rewind_branches.from_plan("s", "edit it", plan)
    assert branch.files == (), "no content from behind the link in the saved branch"

    result = await rewind.apply_plan(plan, s.host.reverts)
    assert result.skipped == [(project / "a.txt", f"it now leads to {outside}: left as it is")]
    assert not s.asker.asked
    result = await rewind.apply_plan(plan, s.host.reverts, overwrite=[project / "a.txt"])
    assert [p.name for p, _ in result.failed] == ["a.txt"]
    [question] = s.asker.asked
    assert question.kind == "target_changed", "asked as a revert asks (and denied)"
    assert question.detail.startswith("Your revert asked to write")
    assert outside.read_text() == "secret outside\n"
    assert (project / "a.txt").is_symlink()


async def test_a_file_the_agent_replaced_by_a_fifo_is_not_restorable_and_never_opened(
    project: Path,
) -> None:
    s = Session(project)
    first = await _edited_then(project, s, "a.txt")
    fifo = project / "a.txt"
    fifo.unlink()
    os.mkfifo(fifo)

    done = threading.Event()
    planned: list[rewind.RewindPlan] = []

    def plan() -> None:
        planned.append(s.plan(first))
        done.set()

    worker = threading.Thread(target=plan, daemon=True)
    worker.start()
    if not done.wait(30):  # (a guard against a hang, not a timing: the plan takes no time)
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # (let the blocked open go)
        worker.join()
        pytest.fail("planning the rewind opened the FIFO and blocked on it")
    [done_plan] = planned
    assert done_plan.files == []
    assert done_plan.unknown == [(fifo, "it is now a FIFO, device or socket: not restorable")]


async def test_a_file_the_agent_made_huge_is_listed_as_not_restorable_unread(
    project: Path,
) -> None:
    limit = 64 * 1024
    s = Session(project, max_read_bytes=limit)
    first = await _edited_then(project, s, "a.txt")
    with (project / "a.txt").open("r+b") as file:
        file.truncate(limit * 50)  # (sparse: the 300 MB of the report, scaled to the limit)

    plan = s.plan(first)
    assert plan.files == []
    [(path, why)] = plan.unknown
    assert path == project / "a.txt"
    assert why == f"it is now {limit * 50} bytes, over the read limit of {limit}: not restorable"
    assert rewind_branches.from_plan("s", "edit it", plan).files == (), "nothing of it saved"


async def test_rewinding_forward_over_replaced_files_reads_them_the_same_way(
    project: Path, tmp_path: Path
) -> None:
    s = Session(project, max_read_bytes=64 * 1024)
    for name in ("link.txt", "fifo.txt", "big.txt"):
        (project / name).write_text("start\n")
    end = rewind_branches.BranchEnd("s", "p", tuple(
        rewind_branches.BranchFile(project / name, b"end\n", b"start\n")
        for name in ("link.txt", "fifo.txt", "big.txt")
    ))  # fmt: skip
    (project / "link.txt").unlink()
    (project / "link.txt").symlink_to(tmp_path / "elsewhere.txt")
    (project / "fifo.txt").unlink()
    os.mkfifo(project / "fifo.txt")
    with (project / "big.txt").open("r+b") as file:
        file.truncate(1 << 20)

    plan = rewind_branches.plan_forward(end, s.host.changes, max_bytes=64 * 1024)
    [step] = plan.files
    assert step.path.name == "link.txt" and step.leads_to is not None and step.conflict
    assert sorted(p.name for p, _ in plan.unknown) == ["big.txt", "fifo.txt"]

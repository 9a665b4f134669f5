"""A `--log` file the agent's own process can read (inside the project, or in a directory its
sandbox lets it write) is said once at the first connect; one outside is not."""

from __future__ import annotations

from pathlib import Path

from acp_tui.client.events import Notice
from acp_tui.client.session.agent_session import AgentSession
from acp_tui.client.session.start_notices import StartNotices, exposed_log
from acp_tui.sandbox.modes import SandboxMode
from acp_tui.sandbox.policy import SandboxPolicy, SandboxRequest
from acp_tui.signal import Signal
from bench.headless import HeadlessUi


def told(session: AgentSession) -> list[Notice]:
    seen: list[Notice] = []
    session.notices.subscribe(seen.append)
    session.start_notices.tell()
    session.start_notices.tell()  # (a restart connects again: nothing is said twice)
    return seen


def test_a_log_inside_the_project_is_said_once(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    log = project / "logs" / "traffic.jsonl"
    session = AgentSession(["true"], project, HeadlessUi(), log_path=log)
    notices = told(session)
    assert len(notices) == 1 and notices[0].severity == "warning"
    assert str(log) in notices[0].text and "inside the project" in notices[0].text
    assert "outside the project" in notices[0].text


def test_a_log_outside_the_project_is_not_said(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    off = SandboxRequest(SandboxMode.OFF)  # (the default sandbox may let the agent write /tmp)
    outside = tmp_path / "traffic.jsonl"
    session = AgentSession(["true"], project, HeadlessUi(), log_path=outside, sandbox=off)
    assert told(session) == []
    assert told(AgentSession(["true"], project, HeadlessUi(), sandbox=off)) == []


def test_a_log_in_a_directory_the_sandbox_lets_the_agent_write(tmp_path: Path) -> None:
    project, scratch = tmp_path / "project", tmp_path / "scratch"
    project.mkdir()
    scratch.mkdir()
    sandbox = SandboxPolicy(SandboxMode.PROJECT, writable=(project, scratch), abi=4)
    text = exposed_log(scratch / "traffic.jsonl", project, sandbox)
    assert text is not None and "the sandbox lets the agent write" in text
    assert exposed_log(tmp_path / "traffic.jsonl", project, sandbox) is None
    off = SandboxPolicy(SandboxMode.OFF, writable=(scratch,))
    assert exposed_log(scratch / "traffic.jsonl", project, off) is None


def test_the_sandbox_notice_and_the_log_are_told_together_once(tmp_path: Path) -> None:
    notices: Signal[Notice] = Signal("notices")
    seen: list[Notice] = []
    notices.subscribe(seen.append)
    sandbox = SandboxPolicy(SandboxMode.OFF, notice="no Landlock here")
    start = StartNotices(notices, cwd=tmp_path, sandbox=sandbox, log_path=tmp_path / "t.jsonl")
    start.tell()
    start.tell()
    assert [notice.text.split(" ")[0] for notice in seen] == ["no", "The"]


def test_a_link_planted_at_the_log_path_is_not_followed(tmp_path: Path) -> None:
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    (project / "traffic.jsonl").symlink_to(elsewhere / "victim")
    text = exposed_log(project / "traffic.jsonl", project, None)
    assert text is not None and str(project / "traffic.jsonl") in text and "victim" not in text
    (elsewhere / "traffic.jsonl").symlink_to(project / "victim")
    assert exposed_log(elsewhere / "traffic.jsonl", project, None) is None
